import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RepView } from '../../src/analysis/exercise.js';
import type { JudgedRep } from '../../src/analysis/feedback.js';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exerciseDef } from '../../src/analysis/rules/index.js';
import { marginOf, pastLimit } from '../../src/analysis/rules/common.js';
import { settleSetNoise } from '../../src/analysis/rules/set-relative.js';
import { storyContradictions } from '../../src/analysis/story.js';
import { series, sidePushUp } from './synthetic.js';

const pushUp = exerciseDef('push-up')!;

/** A side-on push-up set, one rep per entry of `sags` (the hips' sag at the bottom, deg). */
function pushUpSet(sags: number[]) {
  const per = 2.4;
  const poses = series(10, per * sags.length + 1, (t) => {
    const k = Math.min(sags.length - 1, Math.floor(t / per));
    const u = t >= per * sags.length ? 0 : Math.sin((Math.PI * (t - k * per)) / per) ** 2;
    return sidePushUp(170 - 90 * u, sags[k]! * u);
  });
  return analyzePoses(pushUp, poses, 10);
}
const hipsFaulted = (out: ReturnType<typeof pushUpSet>) =>
  out.result.repetitions.map((r) => r.issues.some((i) => i.name === 'Hips sagging or piking'));

test('a good set with one rep just past the hips limit, within the set\'s own spread, is not faulted', () => {
  const out = pushUpSet([2, 4, 6, 4, 16]);
  assert.equal(out.result.repetitions.length, 5);
  // The rule did find the last rep past its limit; the set says that is noise.
  const m = out.reps.map((r) => marginOf(r, 'push-up-hips'));
  assert.ok(m[4]! > 0 && m.slice(0, 4).every((x) => x < -1), m.join(' '));
  assert.deepEqual(hipsFaulted(out), [false, false, false, false, false]);
  assert.ok(out.result.repetitions.every((r) => r.quality_score === 100));
  assert.deepEqual(storyContradictions(out.result, pushUp), []);
});

test('a rep clearly past the limit stays faulted however good the rest of the set is', () => {
  const out = pushUpSet([2, 4, 6, 4, 22]);
  assert.ok(out.reps.map((r) => marginOf(r, 'push-up-hips'))[4]! > 1);
  assert.deepEqual(hipsFaulted(out), [false, false, false, false, true]);
  assert.ok(out.result.repetitions[4]!.quality_score < 100);
  assert.deepEqual(storyContradictions(out.result, pushUp), []);
});

test('a rep just past the limit stays faulted when the other reps sit near the limit (sagging more on every rep)', () => {
  assert.deepEqual(hipsFaulted(pushUpSet([8, 9, 10, 11, 16])), [false, false, false, false, true]);
});

test('a set with no spread between its passing reps, or too short, keeps its fault', () => {
  assert.deepEqual(hipsFaulted(pushUpSet([4, 16, 4])), [false, true, false]);
  assert.deepEqual(hipsFaulted(pushUpSet([4, 16])), [false, true]);
});

/** Judged reps and their views with recorded margins for one rule (synthetic, no frames read). */
function set(margins: number[], faulted: (m: number) => boolean = (m) => m > 0) {
  const views = margins.map(() => ({ frames: [], peak: 0, peakProgress: 1, valid: true, durationS: 2, view: 'side' }) as unknown as RepView);
  margins.forEach((m, i) => pastLimit(views[i]!, 'r', m, 1));
  const reps: JudgedRep[] = margins.map((m) => ({
    startMs: 0, endMs: 1, valid: true, durationS: 1, strengths: [], checked: ['r', 'other'],
    issues: [
      ...(faulted(m) ? [{ ruleId: 'r', category: 'alignment', name: 'R', description: 'r', correction: 'c', severity: 'minor' as const, impact_on_score: -5, evidence_timestamp_ms: 0 }] : []),
      { ruleId: 'other', category: 'posture', name: 'O', description: 'o', correction: 'c', severity: 'minor' as const, impact_on_score: -5, evidence_timestamp_ms: 0 },
    ],
  }));
  return { reps, views };
}
const ruleFaults = (reps: JudgedRep[]) => reps.map((r) => r.issues.some((i) => i.ruleId === 'r'));

test('settleSetNoise: only the rule\'s own noise-level faults go; other issues, shared and moderate faults stay', () => {
  const noise = set([-1.5, -1.2, -1.8, -1.4, -0.9, -1.6, 0.2]);
  const settled = settleSetNoise(noise.reps, noise.views);
  assert.deepEqual(ruleFaults(settled), [false, false, false, false, false, false, false]);
  // The other rule, with no margins recorded, is left alone.
  assert.ok(settled.every((r) => r.issues.some((i) => i.ruleId === 'other')));
  // Moderate (past one band), even if the set's spread were wider.
  const moderate = set([-3, -1, -2.5, -1.5, 1.2]);
  assert.deepEqual(ruleFaults(settleSetNoise(moderate.reps, moderate.views)), [false, false, false, false, true]);
  // Shared by more than a third of the set: the set's pattern, not one rep's noise.
  const shared = set([-1.5, -1.2, 0.1, -1.4, 0.2]);
  assert.deepEqual(ruleFaults(settleSetNoise(shared.reps, shared.views)), [false, false, true, false, true]);
  // Past the passing reps' spread.
  const outlier = set([-1.5, -1.4, -1.6, -1.5, 0.5]);
  assert.deepEqual(ruleFaults(settleSetNoise(outlier.reps, outlier.views)), [false, false, false, false, true]);
  // Unjudged attempts (cut off by the end of the set) neither count nor lose anything.
  const cut = set([-1.5, -1.2, 0.2]);
  cut.reps[0] = { ...cut.reps[0]!, endsSet: true };
  assert.deepEqual(ruleFaults(settleSetNoise(cut.reps, cut.views)), [false, false, true]);
});
