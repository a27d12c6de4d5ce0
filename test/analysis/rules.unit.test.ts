import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContext, type CameraAngle, type ExerciseDef, type RepView } from '../../src/analysis/exercise.js';
import { exerciseDef, exercises } from '../../src/analysis/rules/index.js';
import { catalog } from '../../src/analysis/catalog.js';
import type { Keypoint } from '../../src/analysis/pose.js';
import { frontSquatter, series, sidePushUp, sideSquatter } from './synthetic.js';

/** One repetition of synthetic frames, peak in the middle. */
function repOf(poseAt: (u: number) => Keypoint[], view: CameraAngle, seconds = 2): RepView {
  const frames = buildContext(series(10, seconds, (t) => poseAt(Math.sin((Math.PI * t) / seconds))), 10);
  return { frames, peak: Math.floor(frames.length / 2), peakProgress: 1, valid: true, durationS: seconds, view };
}

const rule = (def: ExerciseDef, id: string) => def.rules.find((r) => r.id === id)!;
const squat = exerciseDef('squat')!;
const pushUp = exerciseDef('push-up')!;

test('every catalog exercise has a signal, a gate, at least three form rules with corrections, and an angle', () => {
  // The nine of the first catalog, the nine issue 9 names and the twelve of issue 20, exactly.
  assert.deepEqual(catalog.map((c) => c.exercise_id).sort(), [
    'bench-press', 'bicep-curl', 'burpee', 'calf-raise', 'deadlift', 'front-raise', 'glute-bridge', 'jumping-jack', 'lateral-raise',
    'lunge', 'pull-up', 'push-up', 'shoulder-press', 'side-lunge', 'sit-up', 'squat', 'thruster', 'tricep-pushdown',
    // issue 20
    'bent-over-row', 'chest-fly', 'crunch', 'dips', 'face-pull', 'hammer-curl', 'kettlebell-swing', 'leg-raise', 'mountain-climber',
    'overhead-tricep-extension', 'romanian-deadlift', 'seated-row', 'any'].sort());
  // `any` has no exercise-specific rules by design: range and tempo against the set only.
  for (const e of exercises.filter((x) => x.id !== 'any')) {
    assert.ok(e.rules.length >= 3, e.id);
    for (const r of e.rules) assert.ok(r.correction.length > 20 && r.strength.name, `${e.id}/${r.id}`);
    assert.ok(['front', 'side', 'diagonal'].includes(e.recommendedAngle));
  }
});

test('squat depth: knees to 90 deg pass, knees to 125 deg are flagged with the measured angle', () => {
  const deep = rule(squat, 'squat-depth').check(repOf((u) => sideSquatter({ knee: 180 - 90 * u, lean: 20 }), 'side'));
  assert.equal(deep, null);
  const shallow = rule(squat, 'squat-depth').check(repOf((u) => sideSquatter({ knee: 180 - 55 * u, lean: 20 }), 'side'));
  assert.ok(shallow && /12[0-9] deg/.test(shallow.description), shallow?.description);
  assert.equal(shallow!.severity, 'moderate'); // 20 deg short of the 105 deg limit
});

test('squat knee valgus (front view): knees caving inside the ankles is flagged, tracking knees are not', () => {
  const good = rule(squat, 'squat-knee-valgus').check(repOf((u) => frontSquatter(u, 0), 'front'));
  assert.equal(good, null);
  const caving = rule(squat, 'squat-knee-valgus').check(repOf((u) => frontSquatter(u, 25 * u), 'front'));
  assert.ok(caving, 'valgus not detected');
  assert.equal(caving!.evidence, 10);
});

test('squat knee valgus (front view): a single knee caving inside its foot is flagged', () => {
  const oneKnee = (u: number) => {
    const kps = frontSquatter(u);
    kps[13] = { ...kps[13]!, x: kps[13]!.x - 18 * u }; // left knee 15% of a shin inside its ankle
    return kps;
  };
  const r = rule(squat, 'squat-knee-valgus').check(repOf(oneKnee, 'front'));
  assert.ok(r && /One knee/.test(r.description), r?.description);
});

test('squat torso lean beyond 45 deg is flagged, an upright squat is a strength', () => {
  assert.equal(rule(squat, 'squat-torso-lean').check(repOf((u) => sideSquatter({ knee: 180 - 90 * u, lean: 30 * u }), 'side')), null);
  const lean = rule(squat, 'squat-torso-lean').check(repOf((u) => sideSquatter({ knee: 180 - 90 * u, lean: 58 * u }), 'side'));
  assert.equal(lean?.severity, 'major');
});

test('squat heels: ankles rising during the rep are flagged', () => {
  const up = rule(squat, 'squat-heels').check(repOf((u) => sideSquatter({ knee: 180 - 90 * u, lean: 20, heelLift: 25 * u }), 'side'));
  assert.ok(up);
  assert.equal(rule(squat, 'squat-heels').check(repOf((u) => sideSquatter({ knee: 180 - 90 * u, lean: 20 }), 'side')), null);
});

test('push-up hip sag of 30 deg is flagged as sagging, a straight plank passes', () => {
  const sag = rule(pushUp, 'push-up-hips').check(repOf((u) => sidePushUp(170 - 80 * u, 30), 'side'));
  assert.ok(sag && /sagged/.test(sag.description), sag?.description);
  assert.equal(rule(pushUp, 'push-up-hips').check(repOf((u) => sidePushUp(170 - 80 * u, 0), 'side')), null);
});

test('push-up partial range: elbows only to 130 deg is a shallow push-up', () => {
  const r = rule(pushUp, 'push-up-range').check(repOf((u) => sidePushUp(175 - 45 * u), 'side'));
  assert.ok(r && /13[0-9] deg/.test(r.description), r?.description);
  assert.equal(rule(pushUp, 'push-up-range').check(repOf((u) => sidePushUp(175 - 90 * u), 'side')), null);
});

test('push-up gate: a plank passes, standing upright (talking to the camera) fails', () => {
  const plank = buildContext(series(10, 1, () => sidePushUp(160)), 10)[5]!;
  const standing = buildContext(series(10, 1, () => sideSquatter({ knee: 178, lean: 0 })), 10)[5]!;
  assert.equal(pushUp.gate(plank), true);
  assert.equal(pushUp.gate(standing), false);
});

test('push-up gate: a head-on plank with the hips hidden behind the shoulders still passes', () => {
  const hidden = (kps: Keypoint[]) => kps.map((k, i) => (i >= 11 ? { ...k, score: 0.05 } : k));
  const plank = buildContext(series(10, 1, () => hidden(sidePushUp(160))), 10)[5]!;
  assert.equal(pushUp.gate(plank), true);
});

test('squat gate: bending over to pick something up (torso near horizontal) fails', () => {
  const bent = buildContext(series(10, 1, () => sideSquatter({ knee: 150, lean: 75 })), 10)[5]!;
  const squatting = buildContext(series(10, 1, () => sideSquatter({ knee: 90, lean: 35 })), 10)[5]!;
  assert.equal(squat.gate(bent), false);
  assert.equal(squat.gate(squatting), true);
});

test('sit-up tempo: dropping back down much faster than coming up is flagged', () => {
  const situp = exerciseDef('sit-up')!;
  const frames = buildContext(series(10, 3, () => sideSquatter({ knee: 90, lean: 10 })), 10);
  const fast: RepView = { frames, peak: 25, peakProgress: 1, valid: true, durationS: 3, view: 'side' };
  const slow: RepView = { ...fast, peak: 12 };
  assert.ok(rule(situp, 'situp-descent').check(fast));
  assert.equal(rule(situp, 'situp-descent').check(slow), null);
});
