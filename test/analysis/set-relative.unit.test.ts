import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RepView } from '../../src/analysis/exercise.js';
import type { JudgedRep } from '../../src/analysis/feedback.js';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exerciseDef } from '../../src/analysis/rules/index.js';
import { marginOf, pastLimit } from '../../src/analysis/rules/common.js';
import { settleSetNoise } from '../../src/analysis/rules/set-relative.js';
import { closeness, COMFORT_BANDS, markNearLimits, NEAR_LIMIT_MAX, nearLimitPoints, pointsFor } from '../../src/analysis/rules/near-limit.js';
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
  // No issue; the rep that went past the limit is scored as one at the limit (rules/near-limit.ts),
  // below the reps that stayed inside it.
  const q = out.result.repetitions.map((r) => r.quality_score);
  assert.equal(q[4], 100 - NEAR_LIMIT_MAX);
  assert.ok(q.slice(0, 4).every((x) => x > q[4]! && x <= 100), q.join(' '));
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
  cut.reps[0] = { ...cut.reps[0]!, endsSet: true, checked: undefined };
  assert.deepEqual(ruleFaults(settleSetNoise(cut.reps, cut.views)), [false, false, true]);
  // An attempt cut off by the end of the set but judged on the part seen (pipeline.ts judgeCut) is
  // held to the set's noise like any rep: a fault within it is dropped, one past it stays; and it
  // does not count in the set (one rep fewer would leave too few to judge against).
  const cutJudged = (last: number) => {
    const s = set([-1.5, -1.0, -2.0, -1.4, last]);
    s.reps[4] = { ...s.reps[4]!, valid: false, endsSet: true };
    return ruleFaults(settleSetNoise(s.reps, s.views));
  };
  assert.deepEqual(cutJudged(0.2), [false, false, false, false, false]);
  assert.deepEqual(cutJudged(0.9), [false, false, false, false, true]);
  const few = set([-1.5, -1.0, 0.2]);
  few.reps[2] = { ...few.reps[2]!, valid: false, endsSet: true };
  assert.deepEqual(ruleFaults(settleSetNoise(few.reps, few.views)), [false, false, true]);
});

test('near-limit score: the further inside its limits a clean rep stayed, the higher it scores; a faulted rep below every clean one', () => {
  // Hips limit 12 deg, moderate band 6: a straight body line is 2 bands inside it, 9 deg half a
  // band, 11 deg a sixth. Every clean rep loses some points (none stayed infinitely far from every
  // limit), fewer the more room it left, never NEAR_LIMIT_MAX or more.
  const close = pushUpSet([0, 9, 0, 11, 18]);
  const [a, b, c, d, e] = close.result.repetitions.map((r) => r.quality_score);
  assert.equal(a, c);
  assert.ok(a! > b! && a! > 100 - NEAR_LIMIT_MAX, `${a} ${b}`);
  assert.ok(d! < b! && d! > 100 - NEAR_LIMIT_MAX, `${d}`);
  assert.equal(close.result.repetitions[1]!.issues.length, 0);
  assert.ok(close.result.repetitions[1]!.strengths.some((s) => s.name === 'Straight body line'));
  // The faulted rep (18 deg) scores below every clean one.
  assert.ok(close.result.repetitions[4]!.issues.length > 0);
  assert.ok(e! < Math.min(a!, b!, c!, d!), `${e}`);
  assert.deepEqual(storyContradictions(close.result, pushUp), []);
});

test('nearLimitPoints: the room used up on the limits a rep passed, faults and unchecked rules left out', () => {
  const at = (margins: Record<string, number>, checked: string[], faulted: string[] = []) => {
    const view = { frames: [], peak: 0, peakProgress: 1, valid: true, durationS: 2, view: 'side' } as unknown as RepView;
    for (const [id, m] of Object.entries(margins)) pastLimit(view, id, m, 1);
    const rep: JudgedRep = { startMs: 0, endMs: 1, valid: true, durationS: 1, strengths: [], checked,
      issues: faulted.map((id) => ({ ruleId: id, category: 'c', name: id, description: 'd', correction: 'c', severity: 'moderate' as const, impact_on_score: -12, evidence_timestamp_ms: 0 })) };
    return { rep, view, points: nearLimitPoints(rep, view) };
  };
  const tenth = (x: number) => Math.round(10 * x) / 10;
  assert.equal(COMFORT_BANDS, 2);
  assert.equal(closeness(0), 1);
  assert.equal(closeness(-COMFORT_BANDS), Math.exp(-1));
  assert.equal(at({ a: 0 }, ['a']).points, NEAR_LIMIT_MAX);
  // A pass past the limit (a fault dropped as set noise) is scored as one at the limit, no more.
  assert.equal(at({ a: 0.4 }, ['a']).points, NEAR_LIMIT_MAX);
  // Strictly fewer points the more room a pass left, none only where the room used rounds to nothing.
  const one = [-0.1, -0.5, -1, -2, -4, -8].map((m) => at({ a: m }, ['a']).points);
  assert.deepEqual(one, [-0.1, -0.5, -1, -2, -4, -8].map((m) => tenth(NEAR_LIMIT_MAX * Math.exp(m / COMFORT_BANDS))));
  for (let i = 1; i < one.length; i++) assert.ok(one[i]! < one[i - 1]!, one.join(' '));
  assert.ok(one.at(-1)! > 0);
  assert.equal(at({ a: -30 }, ['a']).points, 0);
  // Close to two limits costs more than close to either, and never more than NEAR_LIMIT_MAX.
  const two = at({ a: -1.5, b: -0.5 }, ['a', 'b']).points;
  assert.equal(two, tenth(NEAR_LIMIT_MAX * (1 - (1 - Math.exp(-1.5 / 2)) * (1 - Math.exp(-0.5 / 2)))));
  assert.ok(two > at({ a: -0.5 }, ['a']).points && two < NEAR_LIMIT_MAX);
  assert.equal(at({ a: 0, b: -0.5 }, ['a', 'b']).points, NEAR_LIMIT_MAX);
  // A faulted rule is already in the impacts, an unchecked one says nothing.
  assert.equal(at({ a: -1.5, b: 2 }, ['a', 'b'], ['b']).points, at({ a: -1.5 }, ['a']).points);
  assert.equal(at({ a: -1.5, b: -0.1 }, ['a']).points, at({ a: -1.5 }, ['a']).points);
  assert.equal(at({}, ['a']).points, 0);
  assert.equal(pointsFor([-1.5, -0.5]), two);
  // In the score: 100 + impacts - points, one decimal.
  const faulted = at({ a: -1, b: 1.5 }, ['a', 'b'], ['b']);
  const [marked] = markNearLimits([faulted.rep], [faulted.view]);
  assert.equal(marked!.nearLimit, tenth(NEAR_LIMIT_MAX * Math.exp(-0.5)));
});
