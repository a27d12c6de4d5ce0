// Clips where nothing is done (issues 20 and 16): the person in an exercise's start position, or in
// a rest position between sets (standing, a split or wide stance, lying, a plank, hanging, seated,
// weights at the shoulders), held 5-20 s with what a body does while it waits: sway (a few cm at
// 0.2-0.5 Hz), breathing (the chest and head rising about a centimetre), the limbs drifting a
// little of the way into the movement, a small step, a look at the phone, a walk into or out of
// the picture; filmed by camera-sets.ts's phone with its keypoint noise and lost joints. And the
// same noise around a real set, and sets done to a fraction of the full movement. The count of a
// clip where nothing is done must be 0. Used by bench/still-sweep.ts and still-sweep.unit.
import { analyzePoses } from '../../src/analysis/pipeline.js';
import type { Keypoint, PoseFrame } from '../../src/analysis/pose.js';
import { seededRandom } from '../../bench/support/random.js';
import { series } from './synthetic.js';
import { film, UNITS_PER_M } from './camera.js';
import { body, type Joints, type V3 } from './figure3d.js';
import { moves, supine } from './catalog-moves.js';
import { lungeAt, sideLungeAt, pressAt } from './first-nine-demos.js';
import { aimedAt, ALTERNATING, defOf, FPS, movementOf, type PhoneCam } from './camera-sets.js';

const cm = UNITS_PER_M / 100;

/** Rest positions a person holds between sets or before one. */
export const RESTS: Record<string, () => Joints> = {
  standing: () => body(),
  split: () => lungeAt()(0, false, 0),
  wide: () => sideLungeAt()(0, false, 0),
  shoulders: () => pressAt()(0, false, 0),
  lying: () => supine(0, 50, 95),
  plank: () => moves['push-up']!(0, 1),
  hanging: () => moves['pull-up']!(0, 1),
  seated: () => moves['seated-row']!(0, 1),
};

export type Event = 'none' | 'step' | 'look' | 'walk-in' | 'walk-out';

export interface StillTake {
  /** Seconds held. */
  seconds: number;
  /** Sway amplitude (cm) and frequency (Hz). */
  sway: number;
  swayHz: number;
  /** Breathing: the chest and head rise (cm) at this rate (Hz). */
  breath: number;
  breathHz: number;
  /** The exercise's own movement drifted into, at most this fraction of its range, slowly. */
  drift: number;
  event: Event;
  noise: number;
  lost: number;
  seed: number;
}

/** A take drawn from `r`: 5-20 s, sway 1-5 cm at 0.2-0.5 Hz, breathing 0.5-1.5 cm, drift up to 12%, noise up to 6 px. */
export function stillTakeOf(r: () => number, events: Event[] = ['none', 'step', 'look', 'walk-in', 'walk-out']): StillTake {
  return {
    seconds: 5 + r() * 15,
    sway: 1 + r() * 4, swayHz: 0.2 + r() * 0.3,
    breath: 0.5 + r(), breathHz: 0.2 + r() * 0.3,
    drift: r() * 0.12,
    event: events[Math.floor(r() * events.length)]!,
    noise: r() * 6, lost: [0, 0.02, 0.05][Math.floor(r() * 3)]!,
    seed: Math.floor(r() * 2 ** 31),
  };
}

const isUpper = (k: string) => /Shoulder|Elbow|Wrist|nose|Eye|Ear/.test(k);
const isHead = (k: string) => /nose|Eye|Ear/.test(k);

function moved(j: Joints, f: (k: string, v: V3) => V3): Joints {
  const out: Joints = {};
  for (const [k, v] of Object.entries(j) as [keyof Joints, V3][]) out[k] = f(k, v);
  return out;
}

/** On the feet (hips at least 160 of standing's 200 above the ankles): one who can step or walk, not seated, lying or in a plank. */
const standingPose = (j: Joints) => ((j.leftHip?.[1] ?? 0) + (j.rightHip?.[1] ?? 0)) / 2 - Math.min(j.leftAnkle?.[1] ?? 0, j.rightAnkle?.[1] ?? 0) >= 160;

/** A smooth 0 -> 1 -> 0 bump over [a, a + d] seconds. */
const bump = (s: number, a: number, d: number) => (s < a || s > a + d ? 0 : (1 - Math.cos((2 * Math.PI * (s - a)) / d)) / 2);
/** A smooth 0 -> 1 ramp over [a, a + d]. */
const ramp = (s: number, a: number, d: number) => (s <= a ? 0 : s >= a + d ? 1 : (1 - Math.cos((Math.PI * (s - a)) / d)) / 2);

/**
 * What the body does while it waits, on top of `pose` at s seconds: sway, breathing, and the event
 * (a step 25 cm aside at `at`, a look at the phone, or walking 2 m in from the side before `at` /
 * out after it). `gait` is 0..1 while walking or stepping: the legs take turns lifting.
 */
export function idle(pose: Joints, t: StillTake, s: number, at: number): Joints {
  const sw = t.sway * cm * Math.sin(2 * Math.PI * t.swayHz * s), sw2 = 0.5 * t.sway * cm * Math.sin(2 * Math.PI * t.swayHz * 0.7 * s + 1);
  const br = t.breath * cm * (1 - Math.cos(2 * Math.PI * t.breathHz * s)) / 2;
  const standing = standingPose(pose);
  let dx = sw, dz = sw2, walking = 0, look = 0;
  if (t.event === 'step') { dx += 25 * cm * ramp(s, at, 1); walking = s > at && s < at + 1 ? 1 : 0; }
  if (t.event === 'walk-in' && standing) { dx += -200 * cm * (1 - ramp(s, at - 3, 3)); walking = s < at ? 1 : 0; }
  if (t.event === 'walk-out' && standing) { dx += 200 * cm * ramp(s, at, 3); walking = s > at ? 1 : 0; }
  if (t.event === 'look') look = bump(s, at, 2.5);
  const hip: V3 = [((pose.leftHip?.[0] ?? 0) + (pose.rightHip?.[0] ?? 0)) / 2, ((pose.leftHip?.[1] ?? 0) + (pose.rightHip?.[1] ?? 0)) / 2, ((pose.leftHip?.[2] ?? 0) + (pose.rightHip?.[2] ?? 0)) / 2];
  // Two steps a second, the legs taking turns: the ankle lifts 10 cm and the knee comes forward.
  const phase = Math.sin(2 * Math.PI * 1 * s);
  return moved(pose, (k, v) => {
    let [x, y, z] = v;
    if (isUpper(k)) y += br;
    if (look) {
      if (standing) {
        // Leaning 15 deg toward the phone about the hips, the head bowed to look at it.
        const a = (15 * look * Math.PI) / 180;
        if (isUpper(k)) { const yy = y - hip[1], zz = z - hip[2]; y = hip[1] + yy * Math.cos(a) - zz * Math.sin(a); z = hip[2] + yy * Math.sin(a) + zz * Math.cos(a); }
        if (isHead(k)) y -= 4 * cm * look;
      } else if (isHead(k)) {
        // On the floor, the head lifts to look at the phone.
        y += 10 * cm * look;
      }
    }
    if (walking && standing) {
      const lift = k.startsWith('left') ? Math.max(0, phase) : k.startsWith('right') ? Math.max(0, -phase) : 0;
      if (/Ankle|Heel|Toe/.test(k)) { y += 10 * cm * lift; z += 5 * cm * lift; }
      if (/Knee/.test(k)) { y += 4 * cm * lift; z += 8 * cm * lift; }
    }
    return [x + dx, y, z + dz];
  });
}

/** Frames of `at(s)` filmed by the phone for `seconds`, with the take's noise and lost joints. `rest` is the pose the camera is aimed by. */
export function shootAt(at: (s: number) => Joints, rest: Joints, cam: PhoneCam, seconds: number, noise: number, lostShare: number, seed: number): PoseFrame[] {
  const r = seededRandom(seed);
  const camera = aimedAt(rest, cam);
  return series(FPS, seconds, (s) => film(at(s), camera).map((k): Keypoint => {
    const lost = r() < lostShare;
    const x = k.x + (r() - 0.5) * 2 * noise, y = k.y + (r() - 0.5) * 2 * noise, z = (k.z ?? 0) + (r() - 0.5) * 4 * noise;
    const out = x < 0 || x > 640 || y < 0 || y > 640;
    return { x, y, z, score: lost || out ? Math.min(k.score, 0.1) : k.score };
  }));
}

function counted(id: string, frames: PoseFrame[]) {
  const out = analyzePoses(defOf(id), frames, FPS);
  return { count: out.result.repetitions.filter((x) => x.is_valid_rep).length, attempts: out.result.repetitions.length, out };
}

/** When the event happens: a walk in ends 3 s in, a walk out starts 3 s before the end, a step or a look midway. */
const eventAt = (t: StillTake) => (t.event === 'walk-in' ? 3 : t.event === 'walk-out' ? t.seconds - 3 : t.seconds / 2 - 1);

/**
 * Nothing done: `rest` (a RESTS key) held, or with rest undefined the exercise's own start
 * position, the limbs drifting up to `t.drift` of the way into its movement. Counted as `id`.
 */
export function stillOn(id: string, cam: PhoneCam, t: StillTake, rest?: string) {
  const move = movementOf(id);
  const alt = ALTERNATING.has(id);
  const r = seededRandom(t.seed ^ 0x5eed);
  const driftHz = 0.1 + r() * 0.2;
  const pose = (s: number) => (rest ? RESTS[rest]!() : move((alt && s % 10 > 5 ? -1 : 1) * t.drift * (1 - Math.cos(2 * Math.PI * driftHz * s)) / 2));
  const base = rest ? RESTS[rest]!() : move(0);
  const at = eventAt(t);
  return counted(id, shootAt((s) => idle(pose(s), t, s, at), base, cam, t.seconds, t.noise, t.lost, t.seed));
}

export interface AroundTake extends StillTake { reps: number; period: number; pause: number; depth: number; before: number; after: number }

/** A set drawn from `r`: 3-8 reps at 1-3 s, half with pauses, 85-100% depth, 3-8 s of waiting before and after. */
export function aroundTakeOf(r: () => number): AroundTake {
  const t = stillTakeOf(r);
  return { ...t, reps: 3 + Math.floor(r() * 6), period: 1 + 2 * r(), pause: r() < 0.5 ? 0 : 0.3 + 1.2 * r(), depth: 0.85 + 0.15 * r(), before: 3 + 5 * r(), after: 3 + 5 * r() };
}

/** The same waiting around a real set of `t.reps` reps of the exercise: the count must be t.reps. */
export function aroundOn(id: string, cam: PhoneCam, t: AroundTake) {
  const move = movementOf(id, t.depth);
  const alt = ALTERNATING.has(id);
  const r = seededRandom(t.seed ^ 0xa11);
  const driftHz = 0.1 + r() * 0.2;
  const setS = t.reps * (t.period + t.pause);
  const seconds = t.before + setS + t.after;
  const u = (s: number) => {
    const k = s - t.before;
    if (k < 0 || k >= setS) return t.drift * (1 - Math.cos(2 * Math.PI * driftHz * s)) / 2 / t.depth;
    const n = Math.floor(k / (t.period + t.pause)), w = k % (t.period + t.pause);
    if (w >= t.period) return 0;
    return (alt && n % 2 ? -1 : 1) * (1 - Math.cos((2 * Math.PI * w) / t.period)) / 2;
  };
  // The event happens while waiting: a walk in before the set, a walk out after it, a step or a look before or after.
  const at = t.event === 'walk-in' ? Math.min(3, t.before) : t.event === 'walk-out' ? t.before + setS + t.after - 3 : r() < 0.5 ? t.before / 2 - 1 : t.before + setS + t.after / 2 - 1;
  const tt = { ...t, seconds };
  return counted(id, shootAt((s) => idle(move(u(s)), tt, s, at), move(0), cam, seconds, t.noise, t.lost, t.seed));
}

/** A set of `reps` reps done to `depth` of the full movement, with sway and breathing: attempts and valid reps counted. */
export function partialOn(id: string, cam: PhoneCam, depth: number, reps: number, seed: number) {
  const move = movementOf(id, depth);
  const alt = ALTERNATING.has(id);
  const t: StillTake = { seconds: 0, sway: 2, swayHz: 0.3, breath: 1, breathHz: 0.25, drift: 0, event: 'none', noise: 2, lost: 0, seed };
  const period = 2, pause = 0.5, before = 1.5;
  const seconds = before + reps * (period + pause) + 1.5;
  const u = (s: number) => {
    const k = s - before;
    if (k < 0) return 0;
    const n = Math.floor(k / (period + pause)), w = k % (period + pause);
    if (n >= reps || w >= period) return 0;
    return (alt && n % 2 ? -1 : 1) * (1 - Math.cos((2 * Math.PI * w) / period)) / 2;
  };
  return counted(id, shootAt((s) => idle(move(u(s)), t, s, 0), move(0), cam, seconds, t.noise, t.lost, seed));
}
