// The exercises added with issue 20, on synthetic 3D poses from the views they are filmed from: a
// clean set counts right, a partial one is not valid, and the catalog lists at least 30 named
// exercises, each with filming advice in its description and form rules scoped to views.
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExerciseDef } from '../../src/analysis/exercise.js';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exerciseDef, exercises } from '../../src/analysis/rules/index.js';
import { catalog } from '../../src/analysis/catalog.js';
import { KP, Z_SCALE, type Keypoint } from '../../src/analysis/pose.js';
import { series } from './synthetic.js';
import { body, dir, project, VIEWS, type Joints, type V3 } from './figure3d.js';

const FPS = 10;
const def = (id: string): ExerciseDef => {
  const d = exerciseDef(id);
  assert.ok(d, `${id} is in the catalog`);
  return d;
};
const wave = (t: number, period: number, rest: number) => {
  const k = (t % (period + rest)) - rest / 2;
  return k > 0 && k < period ? (1 - Math.cos((2 * Math.PI * k) / period)) / 2 : 0;
};
const valid = (out: ReturnType<typeof analyzePoses>) => out.result.repetitions.filter((r) => r.is_valid_rep).length;
function setOf(d: ExerciseDef, pose: (u: number) => Keypoint[], reps: number, period = 2, rest = 1) {
  return analyzePoses(d, series(FPS, reps * (period + rest), (t) => pose(wave(t, period, rest))), FPS);
}
const lerp = (a: number, b: number, u: number) => a + (b - a) * u;
const norm = (v: V3): V3 => { const n = Math.hypot(...v); return [v[0] / n, v[1] / n, v[2] / n]; };
const mix = (a: V3, b: V3, u: number): V3 => norm([lerp(a[0], b[0], u), lerp(a[1], b[1], u), lerp(a[2], b[2], u)]);
const both = (arm: Parameters<typeof body>[0] extends infer P ? P extends { left?: infer A } ? A : never : never) => ({ left: arm, right: arm });

const NEW = ['dips', 'crunch', 'leg-raise', 'romanian-deadlift', 'bent-over-row', 'kettlebell-swing', 'hammer-curl', 'mountain-climber',
  'face-pull', 'seated-row', 'chest-fly', 'overhead-tricep-extension'];

test('catalog: at least 30 named exercises, the twelve of issue 20 among them, each saying how to film it', () => {
  const named = catalog.filter((e) => e.exercise_id !== 'any');
  assert.ok(named.length >= 30, `${named.length} named exercises`);
  assert.equal(new Set(catalog.map((e) => e.exercise_id)).size, catalog.length, 'ids are unique');
  for (const id of NEW) {
    const e = catalog.find((c) => c.exercise_id === id);
    assert.ok(e, `${id} listed`);
    assert.match(e.description, /Film from the (side|front)/, `${id}: the description says how to film it`);
    assert.ok(e.form_checks.length >= 2, `${id}: form checks`);
    const d = def(id);
    assert.ok(d.angleAdvice.length > 20 && d.filmingAdvice.length > 20, `${id}: camera advice`);
    for (const r of d.rules) assert.ok(r.views.length > 0 && r.views.every((v) => ['front', 'side', 'diagonal'].includes(v)), `${id}/${r.id}: views`);
  }
  assert.ok(exercises.every((e) => /^[a-z]+(-[a-z]+)*$/.test(e.id)), 'kebab-case ids');
});

test('hammer curl: the curl as data, its own id and rule ids', () => {
  const d = def('hammer-curl'), curl = def('bicep-curl');
  assert.equal(d.progress, curl.progress);
  assert.deepEqual(d.rules.map((r) => r.id), curl.rules.map((r) => r.id.replace(/^curl-/, 'hammer-curl-')));
  const pose = (u: number) => project(body(both({ raise: 0, plane: 0, bend: 140 * u })), VIEWS.side);
  assert.equal(valid(setOf(d, pose, 4)), 4);
});

test('kettlebell swing: hike to chest height counts from the side and a diagonal; a swing to the hips does not', () => {
  const d = def('kettlebell-swing');
  const swing = (u: number, yaw: number, top = 90) => project(body({ tilt: 60 * (1 - u), thigh: 35 * (1 - u), shin: 10 * (1 - u), ...both({ raise: top * u, plane: 0 }) }), yaw);
  for (const yaw of [VIEWS.side, VIEWS.diagonal]) assert.equal(valid(setOf(d, (u) => swing(u, yaw), 4)), 4, `yaw ${yaw}`);
  assert.equal(valid(setOf(d, (u) => swing(u * 0.25, VIEWS.side), 3)), 0);
});

test('romanian deadlift: the hinge counts from every side; soft knees raise no knee fault', () => {
  const d = def('romanian-deadlift');
  const rdl = (u: number, yaw: number) => project(body({ tilt: 70 * u, thigh: 45 * u, shin: 5 * u }), yaw);
  for (const [view, yaw] of Object.entries(VIEWS)) {
    const out = setOf(d, (u) => rdl(u, yaw), 4);
    assert.equal(valid(out), 4, view);
    assert.ok(!out.result.repetitions.some((r) => r.issues.some((i) => i.name === 'Knees bending into a squat')), view);
  }
});

test('dips: the shoulders sinking to the hands count; a quarter dip does not', () => {
  const d = def('dips');
  const dip = (u: number, yaw: number) => project(body({ kneeBend: 60, ...both({ raise: 0, plane: 0, upper: dir(90 * u, 180, 1), fore: [0, -1, 0] }) }), yaw);
  for (const yaw of [VIEWS.side, VIEWS.front]) assert.equal(valid(setOf(d, (u) => dip(u, yaw), 4)), 4, `yaw ${yaw}`);
  assert.equal(valid(setOf(d, (u) => dip(u * 0.25, VIEWS.side), 3)), 0);
});

test('overhead triceps extension: lowering behind the head and extending counts from the side and the front', () => {
  const d = def('overhead-tricep-extension');
  const ext = (u: number, yaw: number) => project(body(both({ raise: 170, plane: 10, bend: 130 * u })), yaw);
  for (const yaw of [VIEWS.side, VIEWS.front]) assert.equal(valid(setOf(d, (u) => ext(u, yaw), 4)), 4, `yaw ${yaw}`);
});

test('chest fly: the hands sweeping together counts from the front and a diagonal', () => {
  const d = def('chest-fly');
  const fly = (u: number, yaw: number) => project(body(both({ raise: 90, plane: 90 - 118 * u, bend: 15 })), yaw);
  for (const yaw of [VIEWS.front, VIEWS.diagonal]) assert.equal(valid(setOf(d, (u) => fly(u, yaw), 4)), 4, `yaw ${yaw}`);
  assert.equal(valid(setOf(d, (u) => fly(u * 0.2, VIEWS.front), 3)), 0);
});

test('bent-over row and seated row: pulling the hands to the torso counts; standing up is not a row', () => {
  const row = (u: number, yaw: number, tilt = 50) => project(body({ tilt, kneeBend: 20, ...both({ raise: 0, plane: 0, upper: dir(90 * u, 180, 1), fore: [0, -1, 0] }) }), yaw);
  for (const yaw of [VIEWS.side, VIEWS.diagonal]) assert.equal(valid(setOf(def('bent-over-row'), (u) => row(u, yaw), 4)), 4, `yaw ${yaw}`);
  assert.equal(valid(setOf(def('bent-over-row'), (u) => row(u, VIEWS.side, 0), 3)), 0, 'upright: an upright row is not a bent-over row');
  const seated = (u: number, yaw: number) => project(body({ kneeBend: 90, ...both({ raise: 0, plane: 0, upper: mix(dir(80, 0, 1), dir(30, 180, 1), u), fore: mix(dir(80, 0, 1), [0, 0, 1], u) }) }), yaw);
  for (const yaw of [VIEWS.side, VIEWS.diagonal]) assert.equal(valid(setOf(def('seated-row'), (u) => seated(u, yaw), 4)), 4, `seated yaw ${yaw}`);
});

/**
 * The projection with the depth the pose model gives (smaller = nearer the camera): Z_SCALE times
 * the true depth in x's scale (pose.ts), as BlazePose reports it and as rules/reach.ts reads it.
 */
function projectZ(j: Joints, yaw: number): Keypoint[] {
  const c = Math.cos((yaw * Math.PI) / 180), s = Math.sin((yaw * Math.PI) / 180);
  const kps = project(j, yaw);
  for (const [name, v] of Object.entries(j) as [keyof typeof KP, V3][]) kps[KP[name]]!.z = -Z_SCALE * (v[0] * s + v[2] * c);
  return kps;
}

test('face pull: the elbows flaring out and back count, from the front (as from behind) and the side', () => {
  const d = def('face-pull');
  const pull = (u: number, yaw: number) => projectZ(body(both({ raise: 90, plane: 0, upper: mix(dir(90, 0, 1), dir(90, 90, 1), u), fore: mix(dir(90, 0, 1), [0, 0.96, -0.29], u) })), yaw);
  for (const yaw of [VIEWS.front, VIEWS.side, 180]) assert.equal(valid(setOf(d, (u) => pull(u, yaw), 4)), 4, `yaw ${yaw}`);
});

/** Lying on the back along z (head toward -z), hips at the origin; `legs` and `curl` in degrees. */
function lying(legs: number, curl: number, kneeBend = 0): Joints {
  const j: Joints = {};
  const r = (d: number) => (d * Math.PI) / 180;
  for (const side of [1, -1] as const) {
    const n = side === 1 ? 'left' : 'right';
    const hip: V3 = [side * 35, 20, 0];
    const th: V3 = [0, Math.sin(r(legs + kneeBend)), Math.cos(r(legs + kneeBend))];
    const knee: V3 = [hip[0], hip[1] + 100 * th[1], hip[2] + 100 * th[2]];
    const sh_: V3 = [0, Math.sin(r(legs - kneeBend)), Math.cos(r(legs - kneeBend))];
    const ankle: V3 = [hip[0], knee[1] + 100 * sh_[1], knee[2] + 100 * sh_[2]];
    const up: V3 = [0, Math.sin(r(curl)), -Math.cos(r(curl))];
    const sh: V3 = [side * 60, hip[1] + 120 * up[1], 120 * up[2]];
    j[`${n}Hip`] = hip; j[`${n}Knee`] = knee; j[`${n}Ankle`] = ankle; j[`${n}Shoulder`] = sh;
    j[`${n}Elbow`] = [side * 70, 20, -60]; j[`${n}Wrist`] = [side * 70, 15, 0];
  }
  const head: V3 = [0, 20 + 160 * Math.sin(r(curl)), -160 * Math.cos(r(curl))];
  j.nose = [head[0], head[1] + 15, head[2]]; j.leftEye = [10, head[1] + 12, head[2]]; j.rightEye = [-10, head[1] + 12, head[2]];
  j.leftEar = [22, head[1], head[2]]; j.rightEar = [-22, head[1], head[2]];
  return j;
}

test('lying leg raise: legs to vertical count from the side; a knee lift to 20 deg does not', () => {
  const d = def('leg-raise');
  assert.equal(valid(setOf(d, (u) => project(lying(85 * u, 0), VIEWS.side), 4)), 4);
  assert.equal(valid(setOf(d, (u) => project(lying(20 * u, 0), VIEWS.side), 3)), 0);
});

test('crunch: the shoulders curling off the floor count from the side', () => {
  const d = def('crunch');
  assert.equal(valid(setOf(d, (u) => project(lying(55, 35 * u, 35), VIEWS.side), 4)), 4);
});

test('mountain climber: each knee drive counts, the two legs alternating and overlapping in time', () => {
  const d = def('mountain-climber');
  const r = (x: number) => (x * Math.PI) / 180;
  const plank = (l: number, rt: number): Keypoint[] => {
    const j: Joints = {};
    for (const side of [1, -1] as const) {
      const n = side === 1 ? 'left' : 'right';
      const drive = side === 1 ? l : rt;
      const sh: V3 = [side * 60, 125, 0], hip: V3 = [side * 35, 105, -125];
      const a = r(5 + 95 * drive);
      const knee: V3 = [hip[0], hip[1] - 100 * Math.sin(a), hip[2] - 100 * Math.cos(a)];
      const ankle: V3 = [hip[0], Math.max(5, knee[1] - 100 * Math.sin(r(5 + 20 * drive))), knee[2] - 100 * Math.cos(r(5 + 20 * drive))];
      j[`${n}Shoulder`] = sh; j[`${n}Hip`] = hip; j[`${n}Knee`] = knee; j[`${n}Ankle`] = ankle;
      j[`${n}Elbow`] = [side * 60, 62, 0]; j[`${n}Wrist`] = [side * 60, 0, 0];
    }
    j.nose = [0, 135, 40]; j.leftEye = [10, 140, 35]; j.rightEye = [-10, 140, 35]; j.leftEar = [22, 135, 20]; j.rightEar = [-22, 135, 20];
    // A diagonal: this stick figure hides the far leg side-on, where the pose model still tracks it.
    return project(j, VIEWS.diagonal);
  };
  // One drive per leg per second, the right half a second after the left: 12 drives in 6 s.
  const drive = (t: number) => (t < 0 ? 0 : (1 - Math.cos(2 * Math.PI * t)) / 2);
  const frames = series(FPS, 6.05, (t) => plank(t < 6 ? drive(t) : 0, t >= 0.5 && t < 6.5 ? drive(t - 0.5) : 0));
  const out = analyzePoses(d, frames, FPS);
  assert.ok(Math.abs(valid(out) - 12) <= 1, `${valid(out)} drives`);
});

// ---------------------------------------------------------------- any

test('any: counts squats, curls and raises it has no rules for, from the whole-body pose, in the same result shape', () => {
  const d = def('any');
  assert.equal(catalog.find((e) => e.exercise_id === 'any')?.name, 'Any repeated movement');
  const moves: [string, (u: number) => Keypoint[]][] = [
    ['squat side', (u) => project(body({ kneeBend: 100 * u, tilt: 30 * u }), VIEWS.side)],
    ['curl front', (u) => project(body(both({ raise: 0, plane: 0, bend: 140 * u })), VIEWS.front)],
    ['lateral raise front', (u) => project(body(both({ raise: 90 * u, plane: 90 })), VIEWS.front)],
  ];
  for (const [name, pose] of moves) {
    const out = setOf(d, pose, 5);
    assert.equal(valid(out), 5, name);
    for (const r of out.result.repetitions) {
      assert.ok(r.end_time_ms > r.start_time_ms, `${name}: times`);
      assert.ok(r.issues.every((i) => ['range_of_motion', 'tempo'].includes(i.category)), `${name}: only range and tempo are judged`);
    }
    const areas = out.result.overall_feedback.key_improvement_areas.map((a) => a.name);
    assert.ok(areas.includes('Not checked: form faults'), `${name}: ${areas.join(', ')}`);
  }
});

test('any: a person standing still, swaying a little, has no repetitions; one short rep among full ones is flagged', () => {
  const d = def('any');
  const still = analyzePoses(d, series(FPS, 12, (t) => project(body({ tilt: 2 * Math.sin(t), kneeBend: 3 * Math.sin(1.7 * t) }), VIEWS.front)), FPS);
  assert.equal(valid(still), 0);
  // Six squats, the fourth to 65% of the depth of the others: a repetition, short of the best.
  const depth = (t: number) => (Math.floor(t / 3) === 3 ? 0.65 : 1) * wave(t, 2, 1);
  const out = analyzePoses(d, series(FPS, 18, (t) => project(body({ kneeBend: 100 * depth(t), tilt: 30 * depth(t) }), VIEWS.side)), FPS);
  assert.equal(valid(out), 6);
  const flagged = out.result.repetitions.filter((r) => r.issues.some((i) => i.name === 'Shorter than the best repetitions')).map((r) => r.attempt_number);
  assert.deepEqual(flagged, [4]);
});

test('rows whose hands the view hides: from behind on the whole-body movement; hands hidden at the top of each pull still count', () => {
  const hide = (kps: Keypoint[], joints: number[]) => { for (const i of joints) kps[i] = { ...kps[i]!, score: 0.05 }; return kps; };
  const hands = [KP.leftWrist, KP.rightWrist, KP.leftHand, KP.rightHand];
  // Seated row filmed from behind: the hands stay in front of the body, unseen the whole set; the
  // elbows, seen, come back and down past the torso on every pull.
  const seated = (u: number) => body({ kneeBend: 90, ...both({ raise: 0, plane: 0, upper: mix(dir(80, 0, 1), dir(30, 180, 1), u), fore: mix(dir(80, 0, 1), [0, 0, 1], u) }) });
  const behind = setOf(def('seated-row'), (u) => hide(projectZ(seated(u), VIEWS.back), hands), 4);
  assert.equal(behind.countedOn, 'movement');
  assert.equal(valid(behind), 4);
  assert.equal(setOf(def('seated-row'), (u) => projectZ(seated(u), VIEWS.side), 4).countedOn, 'exercise', 'seen from the side, its own signal');
  // Someone sitting still from behind is not rowing, whatever the signal.
  assert.equal(valid(setOf(def('seated-row'), () => hide(projectZ(seated(0), VIEWS.back), hands), 4)), 0);
  // Bent-over row whose arms the body hides once the pull is past 40% (a rear diagonal): the top
  // of every pull is unseen, and the highest reading left is only the way up.
  const row = (u: number) => project(body({ tilt: 50, kneeBend: 20, ...both({ raise: 0, plane: 0, upper: dir(90 * u, 180, 1), fore: [0, -1, 0] }) }), VIEWS.side);
  const arms = [KP.leftElbow, KP.rightElbow, ...hands];
  assert.equal(valid(setOf(def('bent-over-row'), (u) => (u > 0.4 ? hide(row(u), arms) : row(u)), 4)), 4, 'tops hidden');
  // The same reading, seen, is a pull to 40%: too short to be a row.
  assert.equal(valid(setOf(def('bent-over-row'), (u) => row(Math.min(u, 0.4)), 4)), 0, 'a 40% pull in full view');
});

test('eval: holdout clips examined since they were chosen are tuning clips; labels filed under the exercise a user would pick', async () => {
  const { holdout, catalogIdOf, catalogPart } = await import('../../bench/eval.js');
  const h = JSON.parse(readFileSync(new URL('../../bench/holdout.json', import.meta.url), 'utf8')) as { clips: string[]; examined?: { clips: string[]; why: string }[] };
  for (const e of h.examined ?? []) {
    assert.ok(e.why.length > 20, 'each examined list says why');
    for (const c of e.clips) assert.ok(!holdout.has(c), `${c} was examined: no longer never-tuned`);
  }
  assert.ok(h.clips.every((c) => holdout.has(c) || (h.examined ?? []).some((e) => e.clips.includes(c))));
  // Every label filed elsewhere lands on a catalog exercise.
  for (const id of Object.values(catalogIdOf)) assert.ok(exerciseDef(id), id);
  assert.equal(catalogPart('squat'), 'first nine');
  assert.equal(catalogPart('pull-up'), 'added nine');
  assert.equal(catalogPart('dips'), 'issue 20 twelve');
});
