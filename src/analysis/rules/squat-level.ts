// The thigh's level against the floor, read the same from any camera. In the picture a thigh's rise
// toward level is a vertical distance, and that is the floor's vertical only for a camera at the
// hips' height: a camera above or below the hips (a phone on a shelf, on the floor, at chest
// height) tilts the picture's vertical toward the line of sight, so a thigh pointing at it reads
// shallower or deeper by sin(pitch) of its length (0.2-0.5 of parallel at 15-30 deg), and a thigh
// across the line of sight (side-on) not at all. The pose model's depth (z) gives the third
// coordinate, and the person's own standing legs give the floor's vertical in the camera's frame:
// standing, the hip-ankle line is plumb, so its tilt in depth is the camera's pitch at the legs.
import type { FrameCtx, RepView } from '../exercise.js';
import { Z_SCALE } from '../pose.js';
import { joint, quantile, VISIBLE, type Side } from '../signals.js';


type V3 = [number, number, number];

/** Keypoint b minus a in 3D (x, y, z / Z_SCALE), or null where either is unseen or has no depth. */
function between(f: FrameCtx, a: number, b: number): V3 | null {
  const p = f.p[a]!, q = f.p[b]!;
  if (Math.min(p.score, q.score) < VISIBLE || p.z === undefined || q.z === undefined) return null;
  return [q.x - p.x, q.y - p.y, (q.z - p.z) / Z_SCALE];
}

/**
 * A standing frame of the rep: its hip-ankle line, in 3D, within this share of the longest the rep
 * held it (the 95th percentile of its frames; a 20 deg knee bend shortens it 1.5%). The rep's signal cannot pick them: near standing it
 * barely moves (the knee bend is counted from 170 deg) while the hips already travel back over the
 * heels and tilt the hip-ankle line (4-7 deg read as pitch on frames the signal calls standing).
 */
const STANDING_LENGTH = 0.98;

/** A pitch past this is not a phone filming a squat but a reading gone wrong (a leg mistracked). */
const MAX_PITCH = (40 * Math.PI) / 180;

/**
 * The camera's pitch at the legs over a rep, radians (positive looking down): the median over the
 * rep's standing frames of the hip-ankle line's tilt in depth, (dz / Z_SCALE) against dy, on
 * `side`. NaN without depth (a model that gives none), without two standing frames where that
 * side's hip and ankle are seen, or past MAX_PITCH.
 */
export function legPitch(rep: RepView, side: Side): number {
  const legs = rep.frames.map((f) => between(f, joint(side, 'hip'), joint(side, 'ankle')));
  const lengths = legs.map((v) => (v ? Math.hypot(...v) : NaN));
  const longest = quantile(lengths, 0.95);
  // The straightest frames: within STANDING_LENGTH of the longest, or else the two longest.
  const order = legs.map((_, i) => i).filter((i) => legs[i] && legs[i]![1] > 0).sort((a, b) => lengths[b]! - lengths[a]!);
  const standing = order.filter((i, n) => n < 2 || lengths[i]! >= STANDING_LENGTH * longest);
  const tilts = standing.map((i) => Math.atan2(legs[i]![2], legs[i]![1]));
  const pitch = tilts.length >= 2 ? quantile(tilts, 0.5) : NaN;
  return Math.abs(pitch) <= MAX_PITCH ? pitch : NaN;
}

/** The hip-to-knee vector on `side` in 3D (between), or null where unseen or without depth. */
const thighVector = (f: FrameCtx, side: Side): V3 | null => between(f, joint(side, 'hip'), joint(side, 'knee'));

/**
 * The thigh's 3D length over a rep (85th percentile of its frames, as exercise.ts reads the 2D
 * lengths): one length for the rep, so a frame whose depth reads short does not stretch its angle.
 */
export function thighLength3d(rep: RepView, side: Side): number {
  return quantile(rep.frames.map((f) => { const v = thighVector(f, side); return v ? Math.hypot(...v) : NaN; }), 0.85);
}

/**
 * How far the knee sits below the hip along the floor's vertical, in the thigh's 3D length `len`
 * (thighLength3d): 1 standing, 0 level, negative with the hips below the knees, with the camera's
 * `pitch` (legPitch) taken out. NaN where that side's hip or knee is unseen or carries no depth.
 */
export function thighDrop(f: FrameCtx, side: Side, pitch: number, len: number): number {
  const v = thighVector(f, side);
  // The floor's downward direction in the camera's frame is (0, cos pitch, sin pitch).
  return v && len > 0 ? (v[1] * Math.cos(pitch) + v[2] * Math.sin(pitch)) / len : NaN;
}

const hipLine = (f: FrameCtx) => between(f, joint('left', 'hip'), joint('right', 'hip'));

/**
 * Where keypoint k sits along the body's left-right axis (the hip line, left to right, in 3D),
 * in the picture's pixels, or NaN without depth. Knees that travel forward over the toes move
 * across the picture too when the camera is turned even a little (sin of the yaw of the forward
 * travel: 10 deg of yaw and a camera looking down read a good squat's knees a third of a shin
 * inside the feet); along the hip line they do not move at all.
 */
export function acrossBody(f: FrameCtx): ((k: number) => number) | null {
  const line = hipLine(f);
  const n = line ? Math.hypot(...line) : 0;
  if (!line || !(n > 0)) return null;
  const u = line.map((c) => c / n) as V3;
  return (k) => {
    const p = f.p[k]!;
    return p.z === undefined ? NaN : p.x * u[0] + p.y * u[1] + (p.z / Z_SCALE) * u[2];
  };
}

/** Keypoints a and b's distance in 3D (z / Z_SCALE), or NaN where either is unseen or has no depth. */
export function dist3d(f: FrameCtx, a: number, b: number): number {
  const v = between(f, a, b);
  return v ? Math.hypot(...v) : NaN;
}

/**
 * The camera's yaw to the hips over a rep, degrees (0 square-on, 90 side-on): the median over its
 * frames of the hip line's angle in depth, z / Z_SCALE against x (view.ts yawOf reads the
 * shoulders' the same way). Where a thigh points is the hips' turn (a squat's hips and shoulders
 * face the same way). NaN without depth.
 */
export function hipYaw(rep: RepView): number {
  return quantile(rep.frames.map((f) => {
    const v = hipLine(f);
    return v ? (Math.atan2(Math.abs(v[2]), Math.abs(v[0])) * 180) / Math.PI : NaN;
  }), 0.5);
}
