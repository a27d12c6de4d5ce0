// The exercises added with issue 9, on synthetic 3D poses seen from every angle they can be filmed
// from: a clean set counts right and raises no issue, each rule fires on a faulty rep (with the
// measured value in its description and the evidence at the frame that shows the fault) and stays
// silent on a clean one, and a partial rep is not valid.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContext, type CameraAngle, type ExerciseDef, type RepView } from '../../src/analysis/exercise.js';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exerciseDef } from '../../src/analysis/rules/index.js';
import type { Keypoint } from '../../src/analysis/pose.js';
import { series } from './synthetic.js';
import { body, project, shift, VIEWS, FORE, SHIN, THIGH, UPPER, type Joints, type V3 } from './figure3d.js';

const FPS = 10;
const def = (id: string) => {
  const d = exerciseDef(id);
  assert.ok(d, `${id} is in the catalog`);
  return d;
};
const rule = (d: ExerciseDef, id: string) => {
  const r = d.rules.find((x) => x.id === id);
  assert.ok(r, `${d.id} has rule ${id}`);
  return r;
};

/** A smooth 0 -> 1 -> 0 repetition over `period` s, then `rest` s at 0. */
const wave = (t: number, period: number, rest: number) => {
  const k = (t % (period + rest)) - rest / 2;
  return k > 0 && k < period ? (1 - Math.cos((2 * Math.PI * k) / period)) / 2 : 0;
};

/** A set: `reps` repetitions of `pose(u)` (u = 0 rest .. 1 full), framed by rest. */
function runSet(d: ExerciseDef, pose: (u: number) => Keypoint[], reps: number, period = 2, rest = 1) {
  const seconds = reps * (period + rest);
  return analyzePoses(d, series(FPS, seconds, (t) => pose(wave(t, period, rest))), FPS);
}

/** One repetition as the rules see it, peak in the middle. */
function repOf(pose: (u: number) => Keypoint[], view: CameraAngle, seconds = 2): RepView {
  // seconds * FPS + 1 frames: the rep ends back at rest, as the segmenter cuts it.
  const frames = buildContext(series(FPS, seconds + 1 / FPS, (t) => pose(Math.sin((Math.PI * t) / seconds))), FPS);
  return { frames, peak: Math.floor(frames.length / 2), peakProgress: 1, valid: true, durationS: seconds, view };
}

/** The first number in a finding's description, to compare the measured value. */
const measured = (f: { description: string } | null | undefined) => Number(/-?\d+(\.\d+)?/.exec(f?.description ?? '')?.[0]);
const inRange = (f: { description: string } | null | undefined, lo: number, hi: number) => {
  assert.ok(f, 'finding expected');
  const v = measured(f);
  assert.ok(v >= lo && v <= hi, `${f.description} (expected ${lo}-${hi})`);
};

const valid = (out: ReturnType<typeof analyzePoses>) => out.result.repetitions.filter((r) => r.is_valid_rep).length;
const issues = (out: ReturnType<typeof analyzePoses>) => out.result.repetitions.flatMap((r) => r.issues.map((i) => `${i.name}: ${i.description}`));

function assertCleanSet(d: ExerciseDef, pose: (u: number) => Keypoint[], reps: number, label: string, period = 2, rest = 1) {
  const out = runSet(d, pose, reps, period, rest);
  assert.equal(valid(out), reps, `${label}: ${reps} valid reps`);
  assert.equal(out.result.repetitions.length, reps, `${label}: no extra attempts`);
  assert.deepEqual(issues(out), [], `${label}: no issues`);
}

function assertPartialInvalid(d: ExerciseDef, pose: (u: number) => Keypoint[], label: string) {
  const out = runSet(d, pose, 3);
  assert.equal(valid(out), 0, `${label}: partial reps are not valid`);
}

/** Overrides one side's elbow and wrist with an arm pointing from the shoulder toward `target`. */
function reach(j: Joints, side: 'left' | 'right', target: V3): Joints {
  const sh = j[`${side}Shoulder`]!;
  const d: V3 = [target[0] - sh[0], target[1] - sh[1], target[2] - sh[2]];
  const n = Math.hypot(...d);
  const u: V3 = [d[0] / n, d[1] / n, d[2] / n];
  return { ...j, [`${side}Elbow`]: [sh[0] + u[0] * UPPER, sh[1] + u[1] * UPPER, sh[2] + u[2] * UPPER], [`${side}Wrist`]: [sh[0] + u[0] * (UPPER + FORE), sh[1] + u[1] * (UPPER + FORE), sh[2] + u[2] * (UPPER + FORE)] };
}

// ---------------------------------------------------------------- deadlift

interface Hinge { tilt?: number; shin?: number; thigh?: number; ahead?: number; topTilt?: number }
/**
 * Hinge depth u: the shins tilt a little, the thighs and the torso a lot (hips back), the hands
 * hang toward the middle of the feet, or `ahead` px further in front.
 */
function hinge(u: number, yaw: number, h: Hinge = {}): Keypoint[] {
  const top = h.topTilt ?? 0;
  let j = body({ tilt: top + ((h.tilt ?? 62) - top) * u, shin: (h.shin ?? 15) * u, thigh: (h.thigh ?? 50) * u + Math.max(0, top * 0.3) });
  for (const side of ['left', 'right'] as const) {
    const sh = j[`${side}Shoulder`]!;
    // The arms point from the shoulders to the weight, held over the middle of the feet.
    const z = 15 + (h.ahead ?? 0) * u;
    j = reach(j, side, [sh[0], 0, z]);
  }
  return project(j, yaw);
}

test('deadlift: a clean set of hinges counts from the side, the front, a diagonal and the back, with no issue', () => {
  const d = def('deadlift');
  for (const [view, yaw] of Object.entries(VIEWS)) assertCleanSet(d, (u) => hinge(u, yaw), 4, `deadlift ${view}`);
});

test('deadlift: walking into the frame before the set adds no rep', () => {
  const d = def('deadlift');
  const walkS = 3;
  const frames = series(FPS, walkS + 9, (t) => {
    if (t >= walkS) return hinge(wave(t - walkS, 2, 1), VIEWS.side);
    // Striding in from the left: knees flex and feet lift twice a second.
    const step = Math.abs(Math.sin(2 * Math.PI * t));
    return project(shift(body({ kneeBend: 25 * step, lift: 12 * step, tilt: 5 }), [0, 0, -(walkS - t) * 80]), VIEWS.side);
  });
  const out = analyzePoses(d, frames, FPS);
  assert.equal(valid(out), 3);
  assert.equal(out.result.repetitions.length, 3);
});

test('deadlift: bending only a third of the way down is not a valid rep', () => {
  const d = def('deadlift');
  assertPartialInvalid(d, (u) => hinge(u * 0.35, VIEWS.side), 'deadlift');
});

test('deadlift lockout: stopping 30 deg short of upright is flagged with the hip angle, a full lockout is not', () => {
  const r = rule(def('deadlift'), 'deadlift-lockout');
  assert.equal(r.check(repOf((u) => hinge(u, VIEWS.side), 'side')), null);
  const rep = repOf((u) => hinge(u, VIEWS.side, { topTilt: 30 }), 'side');
  const f = r.check(rep);
  assert.ok(f && /hips opened only to about 1[2-4]\d deg/.test(f.description), f?.description);
  assert.ok(f.evidence >= rep.peak, 'evidence on the way up');
  // From the front the same fault is read from the torso's vertical extent against the rep's
  // most upright frame: here the rep starts standing tall and stops 30 deg short on the way up.
  const frames = buildContext(series(FPS, 2.1, (t) => {
    const u = Math.sin((Math.PI * t) / 2);
    return hinge(t < 1 ? u : 30 / 62 + (1 - 30 / 62) * u, VIEWS.front);
  }), FPS);
  const front = r.check({ frames, peak: 10, peakProgress: 1, valid: true, durationS: 2, view: 'front' });
  assert.ok(front && /torso was still tilted about \d+ deg/.test(front.description), front?.description);
  inRange(front, 25, 32);
  assert.ok(front.evidence >= 18, 'evidence at the top, at the end of the rep');
});

test('deadlift squatting: knees bent past 90 deg are flagged, soft knees are not', () => {
  const r = rule(def('deadlift'), 'deadlift-squatting');
  assert.equal(r.check(repOf((u) => hinge(u, VIEWS.side), 'side')), null);
  const rep = repOf((u) => hinge(u, VIEWS.side, { shin: 50, thigh: 70, tilt: 45 }), 'side');
  const f = r.check(rep);
  assert.ok(f && /knees bent to about \d+ deg/.test(f.description), f?.description);
  inRange(f, 58, 62);
  assert.equal(f.severity, 'major');
  assert.ok(Math.abs(f.evidence - rep.peak) <= 2, `evidence ${f.evidence} at the bottom (${rep.peak})`);
});

test('deadlift weight drift: hands 0.4 leg lengths further forward are flagged, hands over the feet are not', () => {
  const r = rule(def('deadlift'), 'deadlift-weight-drift');
  assert.equal(r.check(repOf((u) => hinge(u, VIEWS.side), 'side')), null);
  const rep = repOf((u) => hinge(u, VIEWS.side, { ahead: 80 }), 'side');
  const f = r.check(rep);
  assert.ok(f && /hands drifted \d+% of a leg length forward/.test(f.description), f?.description);
  inRange(f, 30, 45);
  assert.ok(Math.abs(f.evidence - rep.peak) <= 2, `evidence ${f.evidence} at the bottom (${rep.peak})`);
});

test('deadlift lean back: finishing 20 deg behind vertical is flagged at the top', () => {
  const r = rule(def('deadlift'), 'deadlift-lean-back');
  assert.equal(r.check(repOf((u) => hinge(u, VIEWS.side), 'side')), null);
  const rep = repOf((u) => hinge(u, VIEWS.side, { topTilt: -20 }), 'side');
  const f = r.check(rep);
  assert.ok(f && /leaned about \d+ deg back/.test(f.description), f?.description);
  inRange(f, 14, 21);
  assert.ok(f.evidence > rep.peak, 'evidence at the lockout after the bottom');
});

test('deadlift gate: kneeling or sitting on the floor is not a deadlift posture', () => {
  const d = def('deadlift');
  const standing = buildContext(series(FPS, 1, () => hinge(0.5, VIEWS.side)), FPS)[5]!;
  const base = body({});
  const at = (j: Joints) => buildContext(series(FPS, 1, () => project(j, VIEWS.side)), FPS)[5]!;
  // Kneeling upright: knees on the floor, feet behind.
  const kneeling = at({ ...shift(base, [0, -100, 0]), leftKnee: [40, 0, 0], rightKnee: [-40, 0, 0], leftAnkle: [40, 0, -100], rightAnkle: [-40, 0, -100] });
  // Sitting on the floor, knees up, feet in front.
  const sitting = at({ ...shift(base, [0, -190, -150]), leftKnee: [40, 80, -60], rightKnee: [-40, 80, -60], leftAnkle: [40, 0, 0], rightAnkle: [-40, 0, 0] });
  assert.equal(d.gate(standing), true);
  assert.equal(d.gate(kneeling), false);
  assert.equal(d.gate(sitting), false);
});

// ---------------------------------------------------------------- lateral and front raise

interface Raise { top?: number; plane: number; bend?: number; lean?: number; oneArm?: boolean }
function raise(u: number, yaw: number, r: Raise): Keypoint[] {
  const arm = { raise: (r.top ?? 88) * u, plane: r.plane, bend: (r.bend ?? 10) * u };
  return project(body({ left: arm, right: r.oneArm ? undefined : arm, tilt: (r.lean ?? 0) * u }), yaw);
}

/** The same raise seated on a bench: thighs level, shins vertical, torso upright. */
function seatedRaise(u: number, yaw: number, r: Raise): Keypoint[] {
  const arm = { raise: (r.top ?? 88) * u, plane: r.plane, bend: (r.bend ?? 10) * u };
  const j = shift(body({ left: arm, right: arm }), [0, -THIGH, 0]);
  for (const [side, x] of [['left', 40], ['right', -40]] as const) {
    j[`${side}Knee`] = [x, SHIN, THIGH];
    j[`${side}Ankle`] = [x, 0, THIGH];
  }
  return project(j, yaw);
}

test('lateral raise: a clean set counts from the front, a diagonal, the side and the back, seated or standing, with no issue', () => {
  const d = def('lateral-raise');
  for (const [view, yaw] of Object.entries(VIEWS)) assertCleanSet(d, (u) => raise(u, yaw, { plane: 90 }), 4, `lateral raise ${view}`);
  // Alternating arms: each arm's raise is a rep.
  assertCleanSet(d, (u) => raise(u, VIEWS.front, { plane: 90, oneArm: true }), 3, 'one-arm lateral raise');
  // Seated on a bench, from the front and the side.
  for (const yaw of [VIEWS.front, VIEWS.side]) assertCleanSet(d, (u) => seatedRaise(u, yaw, { plane: 90 }), 3, `seated lateral raise ${yaw}`);
});

test('lateral raise: arms to 40 deg is not a valid rep', () => {
  assertPartialInvalid(def('lateral-raise'), (u) => raise(u, VIEWS.front, { plane: 90, top: 40 }), 'lateral raise');
});

test('lateral raise height and too-high: measured elevation in the description, evidence at the top', () => {
  const d = def('lateral-raise');
  const clean = repOf((u) => raise(u, VIEWS.front, { plane: 90 }), 'front');
  assert.equal(rule(d, 'lateral-raise-height').check(clean), null);
  assert.equal(rule(d, 'lateral-raise-too-high').check(clean), null);
  const low = rule(d, 'lateral-raise-height').check(repOf((u) => raise(u, VIEWS.front, { plane: 90, top: 50 }), 'front'));
  assert.ok(low && /rose to about \d+ deg/.test(low.description), low?.description);
  inRange(low, 48, 52);
  assert.ok(Math.abs(low.evidence - clean.peak) <= 1);
  const high = rule(d, 'lateral-raise-too-high').check(repOf((u) => raise(u, VIEWS.front, { plane: 90, top: 140 }), 'front'));
  assert.ok(high && /about 1[34]\d deg/.test(high.description), high?.description);
});

test('lateral raise elbows: forearms folded to 90 deg at the top are flagged from the front', () => {
  const d = def('lateral-raise');
  const bent = rule(d, 'lateral-raise-elbows').check(repOf((u) => raise(u, VIEWS.front, { plane: 90, bend: 90 }), 'front'));
  assert.ok(bent && /elbows were bent to about \d+ deg/.test(bent.description), bent?.description);
  inRange(bent, 85, 110);
  assert.equal(rule(d, 'lateral-raise-elbows').check(repOf((u) => raise(u, VIEWS.front, { plane: 90 }), 'front')), null);
});

test('lateral raise swing: a torso rocking through 25 deg is flagged, a still torso is not', () => {
  const d = def('lateral-raise');
  const f = rule(d, 'lateral-raise-swing').check(repOf((u) => raise(u, VIEWS.side, { plane: 90, lean: -25 }), 'side'));
  inRange(f, 15, 25);
  assert.equal(rule(d, 'lateral-raise-swing').check(repOf((u) => raise(u, VIEWS.side, { plane: 90 }), 'side')), null);
});

test('front raise: a clean set counts from the side, a diagonal, the front and the back, standing or seated, with no issue; half-way is not valid', () => {
  const d = def('front-raise');
  for (const [view, yaw] of Object.entries(VIEWS)) assertCleanSet(d, (u) => raise(u, yaw, { plane: 0 }), 4, `front raise ${view}`);
  assertCleanSet(d, (u) => seatedRaise(u, VIEWS.side, { plane: 0 }), 3, 'seated front raise');
  assertPartialInvalid(d, (u) => raise(u, VIEWS.side, { plane: 0, top: 40 }), 'front raise');
});

test('front raise rules: leaning back, bent elbows, short and too high raises are flagged with their measure', () => {
  const d = def('front-raise');
  const clean = repOf((u) => raise(u, VIEWS.side, { plane: 0 }), 'side');
  for (const r of d.rules) assert.equal(r.check(clean), null, r.id);
  const lean = rule(d, 'front-raise-swing').check(repOf((u) => raise(u, VIEWS.side, { plane: 0, lean: -22 }), 'side'));
  inRange(lean, 15, 22);
  const bent = rule(d, 'front-raise-elbows').check(repOf((u) => raise(u, VIEWS.side, { plane: 0, bend: 80 }), 'side'));
  inRange(bent, 95, 115);
  const low = rule(d, 'front-raise-height').check(repOf((u) => raise(u, VIEWS.side, { plane: 0, top: 45 }), 'side'));
  assert.ok(low);
  inRange(low, 43, 47);
  assert.equal(low.severity, 'moderate');
  const high = rule(d, 'front-raise-too-high').check(repOf((u) => raise(u, VIEWS.side, { plane: 0, top: 150 }), 'side'));
  assert.ok(high && /about 1[45]\d deg/.test(high.description), high?.description);
});

test('raise gate: bending over to pick up the dumbbells is not a raise posture', () => {
  const d = def('lateral-raise');
  const bent = buildContext(series(FPS, 1, () => project(body({ tilt: 70, kneeBend: 40 }), VIEWS.side)), FPS)[5]!;
  assert.equal(d.gate(bent), false);
  const upright = buildContext(series(FPS, 1, () => raise(0.5, VIEWS.side, { plane: 90 })), FPS)[5]!;
  assert.equal(d.gate(upright), true);
});
