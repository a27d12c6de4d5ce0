// Every catalog exercise's own movement as a 3D stick figure (figure3d.ts), and a set of it filmed
// from any yaw, to any depth, with keypoint noise and joints the model loses: the synthetic clips
// the whole-catalog checks run on (catalog-story.unit: one story per result; mirror-verdicts.unit:
// the same verdicts filmed mirrored).
import fc from 'fast-check';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exercises } from '../../src/analysis/rules/index.js';
import type { Keypoint, PoseFrame } from '../../src/analysis/pose.js';
import { seededRandom as rng } from '../../bench/support/random.js';
import { series } from './synthetic.js';
import { body, dir, pitch, project, FORE, UPPER, type Joints, type V3 } from './figure3d.js';

export const FPS = 10;
const rad = (d: number) => (d * Math.PI) / 180;
type Arm = NonNullable<Parameters<typeof body>[0]>['left'];
const both = (arm: Arm) => ({ left: arm, right: arm });

/** The middle joint of a two-segment limb from `a` to `c`, bent toward `toward` (a unit vector). */
export function middle(a: V3, c: V3, l1: number, l2: number, toward: V3): V3 {
  const d: V3 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
  const n = Math.min(Math.hypot(...d), l1 + l2 - 1e-6);
  const u: V3 = [d[0] / Math.hypot(...d), d[1] / Math.hypot(...d), d[2] / Math.hypot(...d)];
  const along = (l1 * l1 - l2 * l2 + n * n) / (2 * n), out = Math.sqrt(Math.max(0, l1 * l1 - along * along));
  // `toward` made perpendicular to the limb's line.
  const k = toward[0] * u[0] + toward[1] * u[1] + toward[2] * u[2];
  const p: V3 = [toward[0] - k * u[0], toward[1] - k * u[1], toward[2] - k * u[2]];
  const pn = Math.hypot(...p) || 1;
  return [a[0] + u[0] * along + (p[0] / pn) * out, a[1] + u[1] * along + (p[1] / pn) * out, a[2] + u[2] * along + (p[2] / pn) * out];
}

export const head = (j: Joints, at: V3, face: V3): Joints => ({
  ...j, nose: [at[0] + face[0] * 18, at[1] + face[1] * 18, at[2] + face[2] * 18],
  leftEye: [at[0] + 10, at[1] + 3, at[2] + face[2] * 14], rightEye: [at[0] - 10, at[1] + 3, at[2] + face[2] * 14],
  leftEar: [at[0] + 22, at[1], at[2]], rightEar: [at[0] - 22, at[1], at[2]],
});

/** Face down on hands and toes along z (head toward +z): shoulders at `shY`, hips `sag` px below the line. */
function plank(shY: number, sag = 0, knee: [number, number] = [0, 0]): Joints {
  let j: Joints = {};
  for (const side of [1, -1] as const) {
    const n = side === 1 ? 'left' : 'right';
    const sh: V3 = [side * 60, shY, 0], wrist: V3 = [side * 60, 0, 10], ankle: V3 = [side * 40, 5, -250];
    const hip: V3 = [side * 35, (shY + 5) / 2 - sag, -125];
    const drive = side === 1 ? knee[0] : knee[1];
    const a = rad(5 + 95 * drive);
    const kneeP: V3 = drive > 0 ? [hip[0], hip[1] - 100 * Math.sin(a), hip[2] - 100 * Math.cos(a)] : [side * 38, (hip[1] + 5) / 2, -187];
    j = { ...j, [`${n}Shoulder`]: sh, [`${n}Wrist`]: wrist, [`${n}Elbow`]: middle(sh, wrist, UPPER, FORE, [0, 0, -1]), [`${n}Hip`]: hip, [`${n}Knee`]: kneeP, [`${n}Ankle`]: drive > 0 ? [hip[0], Math.max(5, kneeP[1] - 60), kneeP[2] - 80] : ankle };
  }
  return head(j, [0, shY + 10, 35], [0, -1, 0.3]);
}

/** On the back along z (head toward -z): torso raised `curl` deg, thighs `legs` deg off the floor, hips lifted `lift` px. */
export function supine(curl: number, legs: number, kneeBend: number, lift = 0, arms?: (sh: V3, side: 1 | -1) => [V3, V3]): Joints {
  let j: Joints = {};
  for (const side of [1, -1] as const) {
    const n = side === 1 ? 'left' : 'right';
    const hip: V3 = [side * 35, 20 + lift, 0];
    const knee: V3 = [hip[0], hip[1] + 100 * Math.sin(rad(legs)), 100 * Math.cos(rad(legs))];
    const shinA = rad(legs - kneeBend);
    const ankle: V3 = [hip[0], Math.max(5, knee[1] + 100 * Math.sin(shinA)), knee[2] + 100 * Math.cos(shinA)];
    const sh: V3 = [side * 60, 20 + 120 * Math.sin(rad(curl)) + lift * Math.cos(rad(curl)) * 0, -120 * Math.cos(rad(curl))];
    const [elbow, wrist] = arms ? arms(sh, side) : [[side * 70, 20, sh[2] + 60] as V3, [side * 70, 15, sh[2] + 120] as V3];
    j = { ...j, [`${n}Hip`]: hip, [`${n}Knee`]: knee, [`${n}Ankle`]: ankle, [`${n}Shoulder`]: sh, [`${n}Elbow`]: elbow, [`${n}Wrist`]: wrist };
  }
  const c = rad(curl);
  return head(j, [0, 20 + 160 * Math.sin(c), -160 * Math.cos(c)], [0, 1, 0]);
}

/**
 * Each catalog exercise's own movement at progress u (0 rest .. 1 the top of the rep), done to
 * `depth` of the full range. Every id in the catalog must have one: a new exercise without a
 * generator fails the test below, so its story is checked from the day it is added.
 */
export const moves: Record<string, (u: number, depth: number) => Joints> = {
  'squat': (u, d) => body({ kneeBend: 115 * u * d, tilt: 35 * u * d }),
  'lunge': (u, d) => body({ kneeBend: 100 * u * d, tilt: 15 * u * d }),
  'side-lunge': (u, d) => body({ kneeBend: 90 * u * d, tilt: 25 * u * d }),
  'thruster': (u, d) => body({ kneeBend: 110 * (1 - u) * d, ...both({ raise: 90 + 85 * u, plane: 90, bend: 90 * (1 - u) }) }),
  'bicep-curl': (u, d) => body(both({ raise: 0, plane: 0, bend: 140 * u * d })),
  'hammer-curl': (u, d) => body(both({ raise: 10 * u * d, plane: 0, bend: 135 * u * d })),
  'shoulder-press': (u, d) => body(both({ raise: 90 + 85 * u * d, plane: 90, bend: 90 * (1 - u * d) })),
  'jumping-jack': (u, d) => body(both({ raise: 170 * u * d, plane: 90 })),
  'lateral-raise': (u, d) => body(both({ raise: 85 * u * d, plane: 90, bend: 10 })),
  'front-raise': (u, d) => body(both({ raise: 85 * u * d, plane: 0, bend: 10 })),
  'calf-raise': (u, d) => body({ lift: 14 * u * d }),
  'tricep-pushdown': (u, d) => body({ tilt: 10, ...both({ raise: 5, plane: 0, bend: 95 * (1 - u * d) }) }),
  'deadlift': (u, d) => body({ tilt: 62 * u * d, shin: 15 * u * d, thigh: 50 * u * d }),
  'romanian-deadlift': (u, d) => body({ tilt: 70 * u * d, thigh: 45 * u * d, shin: 5 * u * d }),
  'kettlebell-swing': (u, d) => body({ tilt: 60 * (1 - u), thigh: 35 * (1 - u), shin: 10 * (1 - u), ...both({ raise: 90 * u * d, plane: 0 }) }),
  'bent-over-row': (u, d) => body({ tilt: 50, kneeBend: 20, ...both({ raise: 0, plane: 0, upper: dir(90 * u * d, 180, 1), fore: [0, -1, 0] }) }),
  'seated-row': (u, d) => body({ kneeBend: 90, ...both({ raise: 0, plane: 0, upper: dir(80 - 110 * u * d, 0, 1), fore: dir(80 + 10 * u * d, 0, 1) }) }),
  'face-pull': (u, d) => body(both({ raise: 90, plane: 90 * u * d, bend: 100 * u * d })),
  'chest-fly': (u, d) => body(both({ raise: 90, plane: 90 - 118 * u * d, bend: 15 })),
  'overhead-tricep-extension': (u, d) => body(both({ raise: 170, plane: 10, bend: 130 * u * d })),
  'dips': (u, d) => body({ kneeBend: 60, ...both({ raise: 0, plane: 0, upper: dir(90 * u * d, 180, 1), fore: [0, -1, 0] }) }),
  'pull-up': (u, d) => body({ kneeBend: 20, ...both({ raise: 175 - 130 * u * d, plane: 90, bend: 130 * u * d }) }),
  'burpee': (u, d) => pitch(body({ kneeBend: 40 * u * d, ...both({ raise: 90 - 60 * u * d, plane: 0 }) }), 78 * u * d),
  'push-up': (u, d) => plank(120 - 70 * u * d),
  'mountain-climber': (u, d) => plank(120, 0, [u * d, 0]),
  'glute-bridge': (u, d) => supine(0, 50 + 12 * u * d, 100, 70 * u * d),
  'sit-up': (u, d) => supine(15 + 60 * u * d, 50, 95),
  'crunch': (u, d) => supine(5 + 35 * u * d, 55, 90),
  'leg-raise': (u, d) => supine(0, 3 + 85 * u * d, 5),
  'bench-press': (u, d) => supine(0, 40, 80, 0, (sh, side) => {
    const wrist: V3 = [side * 70, 20 + 120 - 60 * u * d, sh[2] + 5];
    return [middle(sh, wrist, UPPER, FORE, [side, 0, 0]), wrist];
  }),
  'any': (u, d) => body({ kneeBend: 90 * u * d, ...both({ raise: 120 * u * d, plane: 45 }) }),
};

export interface Take { id: string; yaw: number; depth: number; reps: number; period: number; noise: number; lost: number; seed: number }

/** Any take of a catalog exercise filmed from one of `yaws`: any depth, tempo, noise, lost joints. */
export function takes(yaws: number[]): fc.Arbitrary<Take> {
  return fc.record({
    id: fc.constantFrom(...exercises.map((e) => e.id)),
    yaw: fc.constantFrom(...yaws),
    depth: fc.double({ min: 0.25, max: 1, noNaN: true }),
    reps: fc.integer({ min: 1, max: 4 }),
    period: fc.double({ min: 0.8, max: 2.5, noNaN: true }),
    noise: fc.double({ min: 0, max: 6, noNaN: true }),
    lost: fc.constantFrom(0, 0.02, 0.1),
    seed: fc.integer(),
  });
}

/** A set of `reps` repetitions of the exercise's movement, filmed from `yaw`, with noise and lost joints (`film` changes the frames, as mirrored). */
export function setOf(t: Take, film: (frames: PoseFrame[]) => PoseFrame[] = (f) => f) {
  const rest = 0.8;
  const wave = (s: number) => {
    const k = (s % (t.period + rest)) - rest / 2;
    return k > 0 && k < t.period ? (1 - Math.cos((2 * Math.PI * k) / t.period)) / 2 : 0;
  };
  return filmed(t, wave, t.reps * (t.period + rest) + 0.4, film);
}

/**
 * The exercise's movement at progress `u(s)` (s seconds into the clip) for `seconds`, filmed from
 * the take's yaw with its noise and lost joints, and analysed.
 */
export function filmed(t: Take, u: (s: number) => number, seconds: number, film: (frames: PoseFrame[]) => PoseFrame[] = (f) => f) {
  const r = rng(t.seed);
  const frames = series(FPS, seconds, (s) => project(moves[t.id]!(u(s), t.depth), t.yaw).map((k): Keypoint => {
    // Keypoint jitter, and now and then a joint the model loses (its score drops) for a frame.
    const lost = r() < t.lost;
    return { x: k.x + (r() - 0.5) * 2 * t.noise, y: k.y + (r() - 0.5) * 2 * t.noise, score: lost ? 0.1 : k.score };
  }));
  const def = exercises.find((e) => e.id === t.id)!;
  return { def, out: analyzePoses(def, film(frames), FPS) };
}
