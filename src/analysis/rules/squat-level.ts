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

/**
 * The camera's pitch read on the thigh instead, radians, for a rep whose ankles the picture does not
 * show (issue 16zf: a phone 1.5 m away and 0.3 m up cuts the feet off, no pitch was read, and a
 * half squat's thigh read in the picture came out 0.05 of parallel deeper than it was, past the
 * depth limit). Standing, the thigh is plumb as the whole leg is (the hip over the knee), so its
 * tilt in depth is the pitch as well. Its standing frames are not the longest (a thigh keeps its
 * length as it rises): they are those where it stands tallest in the picture, within
 * STANDING_LENGTH of the most (the 95th percentile; a thigh 11 deg off plumb is 2% shorter). NaN
 * as legPitch.
 */
export function thighPitch(rep: RepView, side: Side): number {
  const thighs = rep.frames.map((f) => thighVector(f, side));
  const tall = quantile(thighs.map((v) => (v ? v[1] : NaN)), 0.95);
  const standing = thighs.filter((v): v is V3 => !!v && v[1] > 0 && v[1] >= STANDING_LENGTH * tall);
  const tilts = standing.map((v) => Math.atan2(v[2], v[1]));
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

/**
 * The narrowest lens a phone's main camera has, degrees across the picture's long side (they span
 * 60-75; view.ts NEAR_LENS is the narrowest lens its perspective reading acts on, 40). A camera
 * whose lens is not read is taken to have it: the least perspective a phone filming from where it
 * frames the person puts in (a wider lens puts in more, so the correction below is never too much
 * for a phone), and a distant zoomed camera, the one it can be too much for, puts in little to
 * correct either way.
 */
export const PHONE_LENS = 60;

/**
 * The rep's frames with each knee drawn as if it were at its own ankle's depth, where the picture's
 * size is known (issue 16zf). A picture draws a nearer joint further from the line of sight to the
 * hips (view.ts `unprojected`): at the bottom of a squat the knees have travelled a quarter of a
 * metre forward of the ankles, so filmed from behind they are drawn narrower than the feet and from
 * the front wider, by that travel over the camera's distance (a phone 2.5 m behind a clean squat
 * with the knees over the ankles read them at 85-88% of the ankle width, at the valgus limit). Knee
 * and ankle are compared at one depth, so that cancels. The knee's depth is its travel from its
 * own ankle since the rep's start (the median of its first three frames, the person standing):
 * a depth the pose model gives the feet wrong by a constant (a real clip read the ankles 94-147 px
 * behind the hips standing: 16zc) then cancels too, and standing the correction is nothing. The
 * lens: PHONE_LENS. Without a picture size or depth the frames are as they were.
 */
export function kneesAtAnkleDepth(rep: RepView): RepView {
  const picture = rep.picture;
  if (!picture) return rep;
  const perspective = Math.tan((PHONE_LENS * Math.PI) / 360) / (Z_SCALE * (Math.max(picture.width, picture.height) / 2));
  const legs = (['left', 'right'] as const).map((side) => {
    const knee = joint(side, 'knee'), ankle = joint(side, 'ankle');
    const travel = (f: FrameCtx) => {
      const k = f.p[knee]!, a = f.p[ankle]!;
      return Math.min(k.score, a.score) < VISIBLE || k.z === undefined || a.z === undefined ? NaN : k.z - a.z;
    };
    return { knee, travel, standing: quantile(rep.frames.slice(0, 3).map(travel), 0.5) };
  });
  const frames = rep.frames.map((f) => {
    const lh = f.p[joint('left', 'hip')]!, rh = f.p[joint('right', 'hip')]!;
    if (Math.min(lh.score, rh.score) < VISIBLE) return f;
    const cx = (lh.x + rh.x) / 2, cy = (lh.y + rh.y) / 2;
    const p = f.p.slice();
    for (const leg of legs) {
      const grow = Math.max(1, 1 + (leg.travel(f) - leg.standing) * perspective);
      if (!(grow > 0)) continue;
      const k = p[leg.knee]!;
      p[leg.knee] = { ...k, x: cx + (k.x - cx) * grow, y: cy + (k.y - cy) * grow };
    }
    return { ...f, p };
  });
  return { ...rep, frames };
}

/**
 * The rep's frames with every joint placed where it is in 3D about the hips, in the camera's own
 * axes (issue 16zi), where the picture's size is known: a picture draws a joint at a different
 * depth from the hips larger or smaller about the picture's centre, not about the hips, so with the
 * person off the centre a thigh level across the picture, its knee nearer the phone than the hip,
 * is drawn tipped (side-on, 1 m up, the person half-way to the picture's edge and 0.3 down: a squat
 * sinking the hips 0.64 thigh lengths below the knees read 0.45-0.50, centred 0.58). The hips' ray
 * h (their place off the centre over the focal length) and the depth channel, read along that ray
 * (the pose model reads depth on a crop round the person), give each joint's offset D from the
 * hips: drawn at d = D_xy - h D_z, at depth D.(h, 1)/|(h, 1)| = z / Z_SCALE; so D_z = (z |(h, 1)| /
 * Z_SCALE - d.h) / (1 + h.h) and D_xy = d + h D_z. The lens: `lens` degrees across the long side.
 * Without a picture size the frames are as they were.
 */
export function unprojectedAboutHips(rep: RepView, lens = PHONE_LENS): RepView {
  const picture = rep.picture;
  if (!picture) return rep;
  const focal = focalOf(picture, lens);
  const cx = picture.width / 2, cy = picture.height / 2;
  const frames = rep.frames.map((f) => {
    const lh = f.p[joint('left', 'hip')]!, rh = f.p[joint('right', 'hip')]!;
    if (Math.min(lh.score, rh.score) < VISIBLE || lh.z === undefined || rh.z === undefined) return f;
    const hx = (lh.x + rh.x) / 2, hy = (lh.y + rh.y) / 2, hz = (lh.z + rh.z) / 2;
    const a = (hx - cx) / focal, b = (hy - cy) / focal, n2 = 1 + a * a + b * b;
    const p = f.p.map((k) => {
      if (k.z === undefined || !Number.isFinite(k.z)) return k;
      const dx = k.x - hx, dy = k.y - hy;
      const dz = (((k.z - hz) / Z_SCALE) * Math.sqrt(n2) - dx * a - dy * b) / n2;
      return { ...k, x: hx + dx + a * dz, y: hy + dy + b * dz, z: hz + dz * Z_SCALE };
    });
    return { ...f, p };
  });
  return { ...rep, frames };
}

/** A lens's focal length in pixels, `lens` its angle of view (deg) across the picture's long side. */
export function focalOf(picture: { width: number; height: number }, lens = PHONE_LENS): number {
  return Math.max(picture.width, picture.height) / 2 / Math.tan((lens * Math.PI) / 360);
}

/** The camera's pitch at the legs over a rep on `side`: legPitch, or thighPitch where the ankles are unseen standing. */
export function repPitch(rep: RepView, side: Side): number {
  const legs = legPitch(rep, side);
  return Number.isFinite(legs) ? legs : thighPitch(rep, side);
}

/** Midpoint of a left/right pair in 3D (x, y, z / Z_SCALE), or null where either is unseen or has no depth. */
function midpoint3d(f: FrameCtx, part: 'shoulder' | 'hip' | 'knee' | 'ankle', side?: Side): V3 | null {
  const ks = side ? [f.p[joint(side, part)]!] : [f.p[joint('left', part)]!, f.p[joint('right', part)]!];
  if (ks.some((k) => k.score < VISIBLE || k.z === undefined)) return null;
  const n = ks.length;
  return [ks.reduce((s, k) => s + k.x, 0) / n, ks.reduce((s, k) => s + k.y, 0) / n, ks.reduce((s, k) => s + k.z! / Z_SCALE, 0) / n];
}

/**
 * The angle from the floor's vertical, degrees, of the segment from `lower` up to `upper` (the
 * torso: hips to shoulders; the shin: ankle to knee, on `side`), in 3D with the camera's `pitch`
 * taken out (issue 16zf). Read in the picture a lean that has a part along the line of sight is
 * foreshortened: from a diagonal, a phone 0.3 m up reads a long torso's 61 deg lean as 46, under
 * the 50 deg limit, where 1 m up it reads 57 and side-on 59. NaN where a joint is unseen or
 * carries no depth.
 */
export function floorAngle(f: FrameCtx, lower: 'hip' | 'ankle', upper: 'shoulder' | 'knee', pitch: number, side?: Side): number {
  const a = midpoint3d(f, lower, side), b = midpoint3d(f, upper, side);
  if (!a || !b) return NaN;
  const v: V3 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const down = v[1] * Math.cos(pitch) + v[2] * Math.sin(pitch), n = Math.hypot(...v);
  return n > 0 ? (Math.acos(Math.max(-1, Math.min(1, -down / n))) * 180) / Math.PI : NaN;
}
