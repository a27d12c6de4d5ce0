// Sets of a catalog exercise's movement (catalog-moves.ts) filmed by a phone: a pinhole camera
// (camera.ts) at any yaw, 0.3-2 m off the floor, 1.5-5 m away, at 12 fps, with keypoint noise,
// joints lost for a frame, and the feet or the hands out of the picture. catalog-moves' own sets
// are filmed by a level orthographic camera; a phone's height, nearness and depth channel are what
// these add. Used by bench/camera-sweep.ts (the whole catalog from every camera) and
// catalog-camera.unit.
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exercises } from '../../src/analysis/rules/index.js';
import type { Keypoint, PoseFrame } from '../../src/analysis/pose.js';
import { seededRandom } from '../../bench/support/random.js';
import { series } from './synthetic.js';
import { film, pxPerUnit, UNITS_PER_M, type Phone } from './camera.js';
import { body, FORE, SHIN, THIGH, TORSO, UPPER, type Joints, type V3 } from './figure3d.js';
import { middle, moves } from './catalog-moves.js';
import { lungeAt, sideLungeAt } from './first-nine-demos.js';

/** A phone's frame rate after the engine's sampling. */
export const FPS = 12;

const both = (arm: { raise: number; plane: number; bend?: number }) => ({ left: arm, right: arm });

/** Both knees driven toward the chest from a plank at once: the mountain climber's left drive mirrored onto the right leg. */
function tuck(u: number): Joints {
  const l = moves['mountain-climber']!(u, 1);
  const out: Joints = { ...l };
  for (const k of ['Hip', 'Knee', 'Ankle'] as const) { const v = l[`left${k}`]!; out[`right${k}`] = [-v[0], v[1], v[2]]; }
  return out;
}

/** Movements outside the catalog, counted as `any`. */
export const outside: Record<string, (u: number) => Joints> = {
  'good-morning (any)': (u) => body({ tilt: 65 * u, thigh: 15 * u, shin: 3 * u, ...both({ raise: 150, plane: 80, bend: 150 }) }),
  'upright-row (any)': (u) => body(both({ raise: 80 * u, plane: 70, bend: 130 * u })),
  'squat-reach (any)': (u) => body({ kneeBend: 100 * u, tilt: 20 * u, ...both({ raise: 170 * u, plane: 20 }) }),
  'knee-tuck (any)': tuck,
};

/**
 * A calf raise rises on the balls of the feet: the toes stay on the floor and the heel rises about
 * 1.4 times the ankle (camera.ts withFeet would carry the whole foot up with the ankle, and then the
 * ankle never rises over the toe the calf raise's signal reads).
 */
function planted(j: Joints): Joints {
  const out: Joints = { ...j };
  for (const side of ['left', 'right'] as const) {
    const a = j[`${side}Ankle`]!, lift = a[1];
    out[`${side}Toe`] = [a[0], -18, a[2] + 44];
    out[`${side}Heel`] = [a[0], -18 + 1.4 * lift, a[2] - 12];
  }
  return out;
}

/**
 * A glute bridge as it is done: shoulders and feet on the floor, the torso turning about the
 * shoulders until shoulders, hips and knees are in line (the hip angle opens from about 130 deg to
 * 176, the torso turned 20 deg). catalog-moves' supine bridge lifts the hips while the thighs rise with them, and its hip
 * angle opens only 18 deg of the 35 the signal calls a full rep.
 */
function bridge(u: number, depth: number): Joints {
  const th = (20 * u * depth * Math.PI) / 180;
  const j: Joints = {};
  for (const side of [1, -1] as const) {
    const n = side === 1 ? 'left' : 'right';
    const hip: V3 = [side * 35, 20 + 120 * Math.sin(th), -120 + 120 * Math.cos(th)];
    const ankle: V3 = [side * 40, 5, 110];
    // The knee: 100 from the hip and from the ankle, bent upward, in the body's (z, y) plane.
    const dz = ankle[2] - hip[2], dy = ankle[1] - hip[1], d = Math.hypot(dz, dy);
    const along = d / 2, out = Math.sqrt(Math.max(0, 100 * 100 - along * along));
    const knee: V3 = [side * 38, hip[1] + (dy / d) * along + (dz / d) * out, hip[2] + (dz / d) * along - (dy / d) * out];
    Object.assign(j, {
      [`${n}Shoulder`]: [side * 60, 20, -120], [`${n}Elbow`]: [side * 70, 15, -60], [`${n}Wrist`]: [side * 70, 10, 0],
      [`${n}Hip`]: hip, [`${n}Knee`]: knee, [`${n}Ankle`]: ankle,
      [`${n}Eye`]: [side * 10, 23, -160], [`${n}Ear`]: [side * 22, 20, -160],
    });
  }
  j.nose = [0, 38, -160];
  return j;
}

const lerp = (a: V3, b: V3, t: number): V3 => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];

/**
 * A burpee as it is done: a squat down, the torso tipping forward and the arms hanging until the
 * hands reach the floor just in front of the feet (the first half), then the hands planted there
 * while the feet jump back to a straight-arm plank (the second half), and the same back. Done to
 * `depth`, the feet go that share of the way back. catalog-moves' burpee tips the whole straight
 * body 78 deg forward about the ankles, the shoulders landing 1.4 m in front of the feet: filmed
 * from 1.5 m in front they pass under the phone (14 of 7 counted from 2 m up, 0 from the floor),
 * which no burpee does.
 */
function burpee(u: number, depth: number): Joints {
  const d = u * depth;
  const s = Math.min(1, d / 0.5);
  const squat = body({ kneeBend: 140 * s, tilt: 60 * s, ...both({ raise: 10 * s, plane: 0 }) });
  if (d <= 0.5) return squat;
  const v = (d - 0.5) / 0.5;
  const low = body({ kneeBend: 140, tilt: 60, ...both({ raise: 10, plane: 0 }) });
  const out: Joints = {};
  const neck0 = lerp(low.leftShoulder!, low.rightShoulder!, 0.5);
  for (const side of [1, -1] as const) {
    const n = side === 1 ? 'left' : 'right';
    const wrist: V3 = [low[`${n}Wrist`]![0], Math.max(5, low[`${n}Wrist`]![1]), low[`${n}Wrist`]![2]];
    // The plank: shoulders over the hands on straight arms, the body straight from them to the
    // feet (the torso's and the legs' own lengths along one line down to the floor).
    const shP: V3 = [side * 60, wrist[1] + UPPER + FORE - 5, wrist[2] - 10];
    const fall = (shP[1] - 5) / (TORSO + THIGH + SHIN), run = Math.sqrt(1 - fall * fall);
    const along = (k: number, x: number): V3 => [x, shP[1] - fall * k, shP[2] - run * k];
    const sh = lerp(low[`${n}Shoulder`]!, shP, v);
    // The hips rise with the jump (the knees, tucked under them, then clear the floor).
    const hip = lerp(low[`${n}Hip`]!, along(TORSO, side * 35), v);
    hip[1] += 50 * Math.sin(Math.PI * v);
    // The feet leave the floor on the way (a jump back), clear of it by up to 13 cm.
    const ankle = lerp(low[`${n}Ankle`]!, along(TORSO + THIGH + SHIN, side * 40), v);
    ankle[1] += 30 * Math.sin(Math.PI * v);
    Object.assign(out, {
      [`${n}Shoulder`]: sh, [`${n}Wrist`]: wrist, [`${n}Elbow`]: middle(sh, wrist, UPPER, FORE, [0, 0, -1]),
      [`${n}Hip`]: hip, [`${n}Ankle`]: ankle, [`${n}Knee`]: middle(hip, ankle, THIGH, SHIN, [0, ankle[2] - hip[2], hip[1] - ankle[1]]),
    });
  }
  const neck = lerp(out.leftShoulder!, out.rightShoulder!, 0.5);
  for (const k of ['nose', 'leftEye', 'rightEye', 'leftEar', 'rightEar'] as const) out[k] = [low[k]![0] + neck[0] - neck0[0], low[k]![1] + neck[1] - neck0[1], low[k]![2] + neck[2] - neck0[2]];
  return out;
}

/** The body mirrored left for right (x negated, the sides' names swapped). */
function mirrored(j: Joints): Joints {
  const out: Joints = {};
  for (const [k, v] of Object.entries(j) as [string, V3][]) {
    const name = k.startsWith('left') ? `right${k.slice(4)}` : k.startsWith('right') ? `left${k.slice(5)}` : k;
    out[name as keyof Joints] = [-v[0], v[1], v[2]];
  }
  return out;
}

/**
 * Movements done one side per rep, the sides taking turns: the mountain climber drives the left
 * knee, then the right (catalog-moves' climber drives only the left, so a camera on the right side
 * of the body saw every drive with the far leg, which camera.ts hides). shoot gives these a negative
 * progress on every other rep.
 */
export const ALTERNATING = new Set(['mountain-climber']);

/** The joints of a movement at progress u (0 rest .. 1 the top): a catalog exercise's own (to `depth`), or one of `outside`. */
export function movementOf(id: string, depth = 1): (u: number) => Joints {
  if (outside[id]) return outside[id]!;
  const m = moves[id];
  if (!m) throw new Error(`no movement for ${id}`);
  if (id === 'calf-raise') return (u) => planted(m(u, depth));
  if (id === 'glute-bridge') return (u) => bridge(u, depth);
  if (id === 'burpee') return (u) => burpee(u, depth);
  // A lunge and a side lunge as they are done (first-nine-demos.ts): catalog-moves' lunge and side
  // lunge are a squat's body, both knees bending alike with the feet side by side, which from the
  // front or behind is a squat, not a lunge. Here the lunge is a split stance, the front shin
  // vertical and the back knee dropping toward the floor; the side lunge a wide stance, the hips
  // shifting over one bending knee while the other leg stays straight.
  if (id === 'lunge') { const at = lungeAt(); return (u) => at(u * depth, false, 0); }
  if (id === 'side-lunge') { const at = sideLungeAt(); return (u) => at(u * depth, false, 0); }
  if (ALTERNATING.has(id)) return (u) => (u < 0 ? mirrored(m(-u, depth)) : m(u, depth));
  return (u) => m(u, depth);
}

/** The exercise definition a movement is counted as: its own, or `any` for one outside the catalog. */
export const defOf = (id: string) => exercises.find((e) => e.id === (moves[id] ? id : 'any'))!;

export interface PhoneCam {
  /** Degrees around the person (camera.ts). */
  yaw: number;
  /** Metres off the floor. */
  height: number;
  /** Metres along the floor from what it aims at. */
  away: number;
  /** A phone's camera (camera.ts Phone: its field of view, picture and turn off the body) instead of the default 640 x 640 one. */
  phone?: Phone;
}

export interface PhoneTake {
  reps: number;
  /** Seconds per rep, there and back. */
  period: number;
  /** Seconds at rest between reps (0: continuous). */
  pause: number;
  /** Keypoint jitter, +- px of a 640 px picture. */
  noise: number;
  /** Share of joints lost (low score) on a frame. */
  lost: number;
  /** Out of the picture: below a line about the shins (a camera too close or tilted up), or above one at the forehead (hands overhead go out). */
  crop: 'none' | 'feet' | 'top';
  seed: number;
}

/** Seconds at rest before the first rep and after the last. */
const LEAD = 0.6, TAIL = 0.8;

/** Progress at s seconds; with `alternating`, negative on every other rep (the other side's). */
function progressAt(t: PhoneTake, alternating = false) {
  return (s: number) => {
    if (s < LEAD) return 0;
    const k = (s - LEAD) % (t.period + t.pause), n = Math.floor((s - LEAD) / (t.period + t.pause));
    if (n >= t.reps || k >= t.period) return 0;
    return (alternating && n % 2 ? -1 : 1) * (1 - Math.cos((2 * Math.PI * k) / t.period)) / 2;
  };
}

/**
 * The camera `cam` places, aimed by the body at rest: a body on the floor at where it lies (the
 * mean of its joints), a standing one at its hips; pitched down from the phone's height to that point.
 */
export function aimedAt(rest: Joints, cam: PhoneCam): { yaw: number; pitch: number; distance: number; aim?: V3 } {
  const pts = Object.values(rest) as V3[];
  const hipsY = ((rest.leftHip?.[1] ?? 0) + (rest.rightHip?.[1] ?? 0)) / 2;
  const lying = hipsY < 120;
  const aim: V3 | undefined = lying ? [0, pts.reduce((a, v) => a + v[1], 0) / pts.length, pts.reduce((a, v) => a + v[2], 0) / pts.length] : undefined;
  const aimH = (aim ? aim[1] : hipsY) / UNITS_PER_M;
  const pitch = (Math.atan2(cam.height - aimH, cam.away) * 180) / Math.PI;
  const distance = Math.hypot(cam.height - aimH, cam.away);
  return { yaw: cam.yaw, pitch, distance, ...(aim ? { aim } : {}) };
}

/** The set as the phone's pose frames. A body on the floor is aimed at where it lies; a standing one at its hips. */
export function shoot(pose: (u: number) => Joints, cam: PhoneCam, t: PhoneTake, alternating = false): PoseFrame[] {
  const r = seededRandom(t.seed);
  const u = progressAt(t, alternating);
  const camera = { ...aimedAt(pose(0), cam), ...(cam.phone ? { phone: cam.phone } : {}) };
  const [w, h] = cam.phone ? [cam.phone.width, cam.phone.height] : [640, 640];
  // The noise is the model's, in the person's own size: a phone's person is not 0.6 of the picture.
  const noise = cam.phone ? (t.noise * pxPerUnit(camera)) / pxPerUnit({ yaw: 0, pitch: 0, distance: 1 }) : t.noise;
  const frames = series(FPS, LEAD + t.reps * (t.period + t.pause) + TAIL, (s) => film(pose(u(s)), camera).map((k): Keypoint => {
    const lost = r() < t.lost;
    const x = k.x + (r() - 0.5) * 2 * noise, y = k.y + (r() - 0.5) * 2 * noise, z = (k.z ?? 0) + (r() - 0.5) * 4 * noise;
    // Out of the picture the model still places a joint, with a low score.
    const out = x < 0 || x > w || y < 0 || y > h
      || (t.crop === 'feet' && y > (470 / 640) * h) || (t.crop === 'top' && y < (140 / 640) * h);
    return { x, y, z, score: lost || out ? Math.min(k.score, 0.1) : k.score };
  }));
  return cam.phone ? frames.map((f) => ({ ...f, width: w, height: h })) : frames;
}

/**
 * A body's proportions against figure3d's (a 1.8 m person): each factor scales one kind of segment,
 * the same on both sides. Drawn by bench/camera-sweep.ts --seed: a height of 1.55-1.95 m, each
 * segment +-10% of that.
 */
export interface Build { shin: number; thigh: number; torso: number; upper: number; fore: number; hips: number; shoulders: number; head: number; foot: number }

/** A build drawn from `r`: a height of 1.55-1.95 m, each kind of segment +-10% around it. */
export function buildOf(r: () => number): Build {
  const g = (1.55 + 0.4 * r()) / 1.8;
  const f = () => g * (0.9 + 0.2 * r());
  return { shin: f(), thigh: f(), torso: f(), upper: f(), fore: f(), hips: f(), shoulders: f(), head: f(), foot: f() };
}

type Node = keyof Joints | 'hipMid' | 'neck';
/** The skeleton as a tree (the hips and the shoulders joined through their midpoints), each edge with the build's factor that scales it. */
const EDGES: [Node, Node, keyof Build][] = [
  ...(['left', 'right'] as const).flatMap((s): [Node, Node, keyof Build][] => [
    [`${s}Ankle`, `${s}Knee`, 'shin'], [`${s}Knee`, `${s}Hip`, 'thigh'], [`${s}Hip`, 'hipMid', 'hips'],
    ['neck', `${s}Shoulder`, 'shoulders'], [`${s}Shoulder`, `${s}Elbow`, 'upper'], [`${s}Elbow`, `${s}Wrist`, 'fore'],
    [`${s}Wrist`, `${s}Hand`, 'fore'], [`${s}Ankle`, `${s}Heel`, 'foot'], [`${s}Ankle`, `${s}Toe`, 'foot'],
    ['neck', `${s}Eye`, 'head'], ['neck', `${s}Ear`, 'head'],
  ]),
  ['hipMid', 'neck', 'torso'], ['neck', 'nose', 'head'],
];

/**
 * The movement done by a body of other proportions: every segment's direction kept, its length
 * scaled, rebuilt outward from the joint that moves least over the rep (the feet of a squat, the
 * hands of a push-up or a pull-up), so what is planted stays planted.
 */
export function proportioned(pose: (u: number) => Joints, b: Build, alternating = false): (u: number) => Joints {
  const at = (j: Joints, n: Node): V3 | undefined => {
    if (n === 'hipMid' || n === 'neck') {
      const [l, r] = n === 'hipMid' ? [j.leftHip, j.rightHip] : [j.leftShoulder, j.rightShoulder];
      return l && r ? [(l[0] + r[0]) / 2, (l[1] + r[1]) / 2, (l[2] + r[2]) / 2] : undefined;
    }
    return j[n];
  };
  const us = alternating ? [0, 0.5, 1, -0.5, -1] : [0, 0.5, 1];
  const frames = us.map(pose);
  // The root: the joint that moves least; the feet first, then the hands, on a tie (within 1 px).
  const order: (keyof Joints)[] = ['leftAnkle', 'rightAnkle', 'leftWrist', 'rightWrist', 'leftHip', 'rightHip', 'leftShoulder', 'rightShoulder', 'leftKnee', 'rightKnee', 'leftElbow', 'rightElbow'];
  const moved = (n: keyof Joints) => Math.max(...frames.map((f) => { const a = f[n], o = frames[0]![n]; return a && o ? Math.hypot(a[0] - o[0], a[1] - o[1], a[2] - o[2]) : Infinity; }));
  let root = order[0]!;
  for (const n of order) if (moved(n) < moved(root) - 1) root = n;
  return (u) => {
    const j = pose(u);
    const out: Partial<Record<Node, V3>> = { [root]: j[root] };
    const todo: Node[] = [root];
    while (todo.length) {
      const p = todo.shift()!;
      for (const [a, c, k] of EDGES) {
        const q = a === p ? c : c === p ? a : undefined;
        if (!q || out[q]) continue;
        const from = at(j, p), to = at(j, q);
        if (!from || !to) continue;
        const np = out[p]!;
        out[q] = [np[0] + b[k] * (to[0] - from[0]), np[1] + b[k] * (to[1] - from[1]), np[2] + b[k] * (to[2] - from[2])];
        todo.push(q);
      }
    }
    delete out.hipMid; delete out.neck;
    return out as Joints;
  };
}

/** Valid repetitions counted on the set, and the clip's view; with `build`, done by a body of those proportions. */
export function countOn(id: string, cam: PhoneCam, t: PhoneTake, depth = 1, build?: Build) {
  const alt = ALTERNATING.has(id), move = movementOf(id, depth);
  // A phone's picture size is given as the pipeline gives a video's (index.ts).
  const picture = cam.phone ? { width: cam.phone.width, height: cam.phone.height } : undefined;
  const out = analyzePoses(defOf(id), shoot(build ? proportioned(move, build, alt) : move, cam, t, alt), FPS, picture);
  return { count: out.result.repetitions.filter((x) => x.is_valid_rep).length, attempts: out.result.repetitions.length, view: out.view, out };
}
