import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Value } from '@sinclair/typebox/value';
import { AnalysisResultSchema } from '../../src/analysis/result.js';
import { overallFeedback, patternOf, qualityScore, toRepetitions, type JudgedRep, type SetContext } from '../../src/analysis/feedback.js';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exerciseDef, exercises } from '../../src/analysis/rules/index.js';
import { cycle, series, sideBridge, sidePushUp, sideSquatter } from './synthetic.js';
import { storyContradictions } from '../../src/analysis/story.js';

const squat = exerciseDef('squat')!;
const ctx = (over: Partial<SetContext> = {}): SetContext => ({ def: squat, view: 'side', unjudgedRules: [], personSeen: true, ...over });
const issue = (ruleId: string, impact: number) => ({
  ruleId, category: 'posture', name: ruleId, description: `${ruleId} seen`, correction: `fix ${ruleId}`,
  severity: 'moderate', impact_on_score: impact, evidence_timestamp_ms: 0,
});
const rep = (issues: JudgedRep['issues'], valid = true): JudgedRep => ({ startMs: 0, endMs: 1000, valid, issues, strengths: [], durationS: 1 });

test('quality_score is 100 plus the impacts, clamped to 0-100', () => {
  assert.equal(qualityScore([]), 100);
  assert.equal(qualityScore([{ impact_on_score: -10 }, { impact_on_score: -5 }]), 85);
  assert.equal(qualityScore(new Array(9).fill({ impact_on_score: -20 })), 0);
});

test('key improvement areas are ordered by total impact and list the affected attempts', () => {
  const reps = [rep([issue('lean', -10)]), rep([issue('lean', -10), issue('heels', -5)]), rep([issue('lean', -20)])];
  const areas = overallFeedback(reps, ctx()).key_improvement_areas;
  assert.deepEqual(areas.map((a) => [a.priority, a.name]).slice(0, 2), [[1, 'lean'], [2, 'heels']]);
  assert.deepEqual(areas[0]!.affected_reps, [1, 2, 3]);
  assert.equal(areas[0]!.pattern_of_occurrence, 'every_rep');
  assert.deepEqual(areas[1]!.affected_reps, [2]);
});

test('there are always two or three key improvement areas, even with a flawless set or no reps', () => {
  for (const reps of [[], [rep([])], [rep([]), rep([]), rep([])], new Array(6).fill(0).map((_, i) => rep([issue(`r${i}`, -5)]))]) {
    for (const c of [ctx(), ctx({ view: 'front' }), ctx({ personSeen: false }), ctx({ view: 'unknown' })]) {
      const n = overallFeedback(reps, c).key_improvement_areas.length;
      assert.ok(n >= 2 && n <= 3, `${n} areas`);
    }
  }
});

test('no person seen: the first area tells how to film the exercise', () => {
  const fb = overallFeedback([], ctx({ personSeen: false, view: 'unknown' }));
  assert.equal(fb.key_improvement_areas[0]!.category, 'setup');
  assert.equal(fb.key_improvement_areas[0]!.correction, squat.filmingAdvice);
  assert.equal(fb.visibility_context.recommended_angle, 'side');
});

test('a rule no rep could measure is "Not checked" with the reason, and never a "Keep:" area', () => {
  // A clean side-on set in which the heels were never seen: the view could show them, no rep did.
  const heels = squat.rules.find((r) => r.id === 'squat-heels')!;
  const fb = overallFeedback([rep([])], ctx({ unjudgedRules: [{ name: heels.name, views: ['side'], reason: 'unseen' }] }));
  const names = fb.key_improvement_areas.map((a) => a.name);
  const area = fb.key_improvement_areas.find((a) => a.name === `Not checked: ${heels.name.toLowerCase()}`);
  assert.ok(area && /could not be measured on any repetition/.test(area.description), names.join(' | '));
  assert.ok(!names.includes(`Keep: ${heels.strength.name.toLowerCase()}`), names.join(' | '));
});

test('the pipeline lists as not checked the rules no synthetic rep let it measure', () => {
  // Side-on squats without ankles, heels or toes in the picture: heels and knees-past-toes read
  // the feet, so they are "Not checked" although the side view could show them.
  const noFeet = series(10, 9, (t) => sideSquatter({ knee: 180 - 100 * cycle(t, 2, 1), lean: 25 * cycle(t, 2, 1) })
    .map((k, i) => (i === 15 || i === 16 ? { ...k, score: 0.05 } : k)));
  // The areas list two rules not checked, those the view cannot show first: without the squat's
  // second front-only rule (hips shifting to one side) both kinds fit, which is what this reads.
  const oneFrontRule = { ...squat, rules: squat.rules.filter((r) => r.id !== 'squat-hip-shift') };
  const out = analyzePoses(oneFrontRule, noFeet, 10);
  const areas = out.result.overall_feedback.key_improvement_areas;
  assert.ok(out.result.repetitions.length >= 2, `${out.result.repetitions.length} reps`);
  // With it, both front-only rules take the two places, each for the view.
  const full = analyzePoses(squat, noFeet, 10).result.overall_feedback.key_improvement_areas;
  assert.match(full.find((a) => a.name === 'Not checked: hips shifting to one side')?.description ?? '', /cannot be judged from a side view/);
  // Valgus is a front rule: the side view cannot show it at all. Knees past the toes is a side
  // rule whose feet were never seen: the view could, no rep did.
  assert.match(areas.find((a) => a.name === 'Not checked: knees caving in')?.description ?? '', /cannot be judged from a side view/);
  assert.match(areas.find((a) => a.name === 'Not checked: knees past the toes')?.description ?? '', /could not be measured on any repetition/);
  assert.ok(!out.result.overall_feedback.strengths.some((s) => /Balanced knees and hips|Heels grounded/.test(s)), out.result.overall_feedback.strengths.join(' | '));
});

test('pattern_of_occurrence distinguishes late (fatigue) from early and single faults', () => {
  assert.equal(patternOf([5, 6], 6), 'late_reps');
  assert.equal(patternOf([1, 2], 6), 'early_reps');
  assert.equal(patternOf([3], 6), 'single_rep');
  assert.equal(patternOf([1, 3, 4, 6], 6), 'most_reps');
});

test('attempt numbers count every attempt, valid or not', () => {
  const reps = toRepetitions([rep([]), rep([issue('partial', -20)], false), rep([])]);
  assert.deepEqual(reps.map((r) => [r.attempt_number, r.is_valid_rep, r.quality_score]), [[1, true, 100], [2, false, 80], [3, true, 100]]);
});

test('the pipeline counts three synthetic side-view squats and judges their depth', () => {
  // 3 s squats to 50 deg knees (thighs near level) with 1 s standing between, 10 fps.
  const poses = series(10, 13, (t) => sideSquatter({ knee: 178 - 128 * cycle(t, 3, 1), lean: 10 + 25 * cycle(t, 3, 1) }));
  const { result, view } = analyzePoses(squat, poses, 10);
  assert.equal(view, 'side');
  assert.equal(result.repetitions.filter((r) => r.is_valid_rep).length, 3);
  assert.ok(result.repetitions.every((r) => r.strengths.some((s) => s.name === 'Full depth')));
  assert.ok(Value.Check(AnalysisResultSchema, result));
});

test('a set of shallow synthetic push-ups counts, each rep flagged for its range; a tremor does not', () => {
  // People count a set of half push-ups as push-ups (the labels count quarter squats); the range
  // rule says what was missing. A dip of a fifth of the range is not a push-up at all.
  const pushUp = exerciseDef('push-up')!;
  const full = series(10, 8, (t) => sidePushUp(170 - 90 * cycle(t, 2, 0.5)));
  const { result } = analyzePoses(pushUp, full, 10);
  assert.equal(result.repetitions.filter((r) => r.is_valid_rep).length, 3);
  const shallow = series(10, 8, (t) => sidePushUp(170 - 50 * cycle(t, 2, 0.5)));
  const s = analyzePoses(pushUp, shallow, 10).result.repetitions;
  assert.equal(s.filter((r) => r.is_valid_rep).length, 3);
  assert.ok(s.every((r) => r.issues.some((i) => i.name === 'Shallow push-up')));
  const tremor = series(10, 8, (t) => sidePushUp(170 - 18 * cycle(t, 2, 0.5)));
  assert.equal(analyzePoses(pushUp, tremor, 10).result.repetitions.filter((r) => r.is_valid_rep).length, 0);
});

test('a single squat the clip opens in at the bottom is an attempt, not counted and not judged', () => {
  // The video starts in the squat's bottom: the way down was never seen, the way up is.
  const poses = series(10, 3, (t) => sideSquatter({ knee: 178 - 110 * Math.max(0, 1 - t / 1.2), lean: 10 + 40 * Math.max(0, 1 - t / 1.2) }));
  const { result } = analyzePoses(squat, poses, 10);
  assert.equal(result.repetitions.length, 1);
  assert.equal(result.repetitions[0]!.is_valid_rep, false);
  assert.deepEqual(result.repetitions[0]!.issues, []);
  assert.match(result.overall_feedback.brief_summary, /already under way when the video started/);
  // A standing person who only sways is still nobody squatting.
  const sway = series(10, 3, (t) => sideSquatter({ knee: 176 + 2 * Math.sin(t * 7), lean: 8 }));
  assert.equal(analyzePoses(squat, sway, 10).result.repetitions.length, 0);
});

test('every exercise returns a schema-valid result with no reps when nobody is in view', () => {
  const empty = series(10, 3, () => new Array(17).fill(0).map(() => ({ x: 0, y: 0, score: 0.01 })));
  for (const def of exercises) {
    const { result } = analyzePoses(def, empty, 10);
    assert.deepEqual(result.repetitions, []);
    assert.ok(Value.Check(AnalysisResultSchema, result), def.id);
  }
});

test('the pipeline counts synthetic glute bridges against the resting hip angle of the clip', () => {
  const bridge = exerciseDef('glute-bridge')!;
  const full = analyzePoses(bridge, series(10, 10, (t) => sideBridge(cycle(t, 2, 1))), 10).result.repetitions;
  assert.equal(full.filter((r) => r.is_valid_rep).length, 3); // the fourth is cut off at 10 s
  // Half-height bridges still count, each flagged; a lift of a fifth of the way does not.
  const half = analyzePoses(bridge, series(10, 10, (t) => sideBridge(0.5 * cycle(t, 2, 1))), 10).result.repetitions;
  assert.equal(half.filter((r) => r.is_valid_rep).length, 3);
  assert.ok(half.filter((r) => r.is_valid_rep).every((r) => r.issues.length > 0));
  const twitch = analyzePoses(bridge, series(10, 10, (t) => sideBridge(0.2 * cycle(t, 2, 1))), 10).result.repetitions;
  assert.equal(twitch.filter((r) => r.is_valid_rep).length, 0);
});

test('any pose series, however noisy, gives a schema-valid result for every exercise (property)', () => {
  const kp = fc.record({ x: fc.double({ min: -50, max: 700, noNaN: true }), y: fc.double({ min: -50, max: 700, noNaN: true }), score: fc.double({ min: 0, max: 1, noNaN: true }) });
  const frames = fc.array(fc.array(kp, { minLength: 17, maxLength: 17 }), { maxLength: 60 });
  fc.assert(fc.property(frames, fc.constantFrom(...exercises), (kps, def) => {
    const poses = kps.map((k, i) => ({ timeMs: i * 100, width: 640, height: 640, keypoints: k }));
    const { result } = analyzePoses(def, poses, 10);
    assert.ok(Value.Check(AnalysisResultSchema, result), JSON.stringify([...Value.Errors(AnalysisResultSchema, result)].slice(0, 2)));
  }), { numRuns: 200 });
});

test('a single squat the clip cuts while rising is judged for what its bottom showed, still invalid and never praised', () => {
  // A 1.2 s squat filmed at 12 fps whose clip ends while the person is coming back up: the bottom
  // was seen. Down to `knee`, then up; the clip ends `endU` of the way through the rep.
  const cutSquat = (knee: number, endU: number) => series(12, 0.4 + 1.2 * endU, (t) => {
    const u = Math.max(0, (t - 0.4) / 1.2);
    const s = Math.sin(Math.PI * Math.min(1, u)) ** 2;
    return sideSquatter({ knee: 178 - (178 - knee) * s, lean: 10 + 35 * s });
  });
  // A shallow one (the thighs about half way to parallel), cut three quarters of the way through.
  const shallow = analyzePoses(squat, cutSquat(110, 0.75), 12);
  const [rep] = shallow.result.repetitions;
  assert.equal(shallow.result.repetitions.length, 1);
  assert.equal(rep!.is_valid_rep, false);
  assert.deepEqual(rep!.issues.map((i) => i.name), ['Squat depth']);
  assert.deepEqual(rep!.strengths, []);
  assert.match(shallow.result.overall_feedback.brief_summary, /^0 valid squat repetitions out of 1 attempt.*cut off when the set ended mid-repetition, so it does not count; only the part seen was judged\.$/);
  assert.deepEqual(storyContradictions(shallow.result, squat), []);
  // A squat to parallel cut the same way carries nothing, and is praised for nothing: no strength,
  // no "Keep:" area, no set strength (a rule it passed may have failed on the part not seen).
  const deep = analyzePoses(squat, cutSquat(45, 0.75), 12).result;
  assert.equal(deep.repetitions[0]!.is_valid_rep, false);
  assert.deepEqual(deep.repetitions[0]!.issues, []);
  assert.deepEqual(deep.repetitions[0]!.strengths, []);
  assert.deepEqual(deep.overall_feedback.strengths, []);
  assert.ok(!deep.overall_feedback.key_improvement_areas.some((a) => a.name.startsWith('Keep:')));
  assert.deepEqual(storyContradictions(deep, squat), []);
  // Opened by the clip on its way down, deeper than a count allows (counting.ts START_SLACK), and
  // seen going on down to its bottom and back up: judged the same way.
  const opened = analyzePoses(squat, series(12, 1.6, (t) => {
    const s = Math.sin(Math.PI * Math.min(1, 0.3 + t / 1.2)) ** 2;
    return sideSquatter({ knee: 178 - 68 * s, lean: 10 + 35 * s });
  }), 12).result;
  assert.equal(opened.repetitions.length, 1);
  assert.equal(opened.repetitions[0]!.is_valid_rep, false);
  assert.deepEqual(opened.repetitions[0]!.issues.map((i) => i.name), ['Squat depth']);
  assert.deepEqual(opened.repetitions[0]!.strengths, []);
  assert.match(opened.overall_feedback.brief_summary, /already under way when the video started, so it does not count; only the part seen was judged\.$/);
  assert.deepEqual(storyContradictions(opened, squat), []);
  // Cut at its bottom (the rise not begun) or on the way down: no bottom seen, nothing judged.
  for (const endU of [0.5, 0.35]) {
    const early = analyzePoses(squat, cutSquat(110, endU), 12).result;
    assert.equal(early.repetitions.length, 1, `cut at ${endU}`);
    assert.deepEqual(early.repetitions[0]!.issues, [], `cut at ${endU}`);
    assert.match(early.overall_feedback.brief_summary, /so it was not judged\.$/);
  }
});
