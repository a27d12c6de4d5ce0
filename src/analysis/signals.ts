// Pure per-frame geometry on pose series: smoothing, joint angles, body-scale references and the
// view-robust ratios the exercises use as repetition signals. No I/O, no model.
import { KP, KP_COUNT, kpAt, kpZ, type AnyPose, type Keypoint } from './pose.js';

/** Keypoints below this score are treated as unseen. */
export const VISIBLE = 0.3;

export type Side = 'left' | 'right';
const SIDE = {
  left: { shoulder: KP.leftShoulder, elbow: KP.leftElbow, wrist: KP.leftWrist, hip: KP.leftHip, knee: KP.leftKnee, ankle: KP.leftAnkle, ear: KP.leftEar },
  right: { shoulder: KP.rightShoulder, elbow: KP.rightElbow, wrist: KP.rightWrist, hip: KP.rightHip, knee: KP.rightKnee, ankle: KP.rightAnkle, ear: KP.rightEar },
} as const;
export type Joint = keyof typeof SIDE.left;
export const joint = (side: Side, j: Joint): number => SIDE[side][j];

export const dist = (a: Keypoint, b: Keypoint): number => Math.hypot(a.x - b.x, a.y - b.y);

/** Angle at b in degrees (0-180). */
export function angleAt(a: Keypoint, b: Keypoint, c: Keypoint): number {
  const v1x = a.x - b.x, v1y = a.y - b.y, v2x = c.x - b.x, v2y = c.y - b.y;
  const n = Math.hypot(v1x, v1y) * Math.hypot(v2x, v2y);
  if (n === 0) return NaN;
  const cos = Math.max(-1, Math.min(1, (v1x * v2x + v1y * v2y) / n));
  return (Math.acos(cos) * 180) / Math.PI;
}

/** Angle of the segment from a to b above the horizontal, 0-90 degrees, direction ignored. */
export function elevation(a: Keypoint, b: Keypoint): number {
  return (Math.atan2(Math.abs(a.y - b.y), Math.abs(a.x - b.x)) * 180) / Math.PI;
}

export const mid = (a: Keypoint, b: Keypoint): Keypoint => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, score: Math.min(a.score, b.score) });

export function seen(p: Keypoint[], ...idx: number[]): boolean {
  return idx.every((i) => p[i]!.score >= VISIBLE);
}

/** Midpoint of a left/right pair, or the one visible side alone (side views hide the far side). */
export function pairPoint(p: Keypoint[], j: Joint): Keypoint | null {
  const l = p[joint('left', j)]!, r = p[joint('right', j)]!;
  if (l.score >= VISIBLE && r.score >= VISIBLE) return mid(l, r);
  if (l.score >= VISIBLE) return l;
  if (r.score >= VISIBLE) return r;
  return null;
}

/** The side whose chain of joints is seen most confidently, or null if neither is seen. */
export function bestSide(p: Keypoint[], joints: Joint[]): Side | null {
  const [s] = bestSides(p, joints);
  return s ?? null;
}

/**
 * The best-seen side, or both when the model gives the two chains the same confidence (as it can
 * a synthetic or a symmetric pose): naming 'left' there would read a different limb on the same
 * set filmed mirrored. Empty when neither is seen.
 */
export function bestSides(p: Keypoint[], joints: Joint[]): Side[] {
  const conf = (s: Side) => Math.min(...joints.map((j) => p[joint(s, j)]!.score));
  const l = conf('left'), r = conf('right');
  if (Math.max(l, r) < VISIBLE) return [];
  return l === r ? ['left', 'right'] : [l > r ? 'left' : 'right'];
}

/** A reading on the best-seen side, the mean of both sides' on a tie (bestSides); NaN when unseen. */
export function onBestSide(p: Keypoint[], joints: Joint[], read: (s: Side) => number): number {
  const v = bestSides(p, joints).map(read);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

/** A joint angle on the best-seen side (e.g. knee: hip-knee-ankle), NaN when unseen. */
export function sideAngle(p: Keypoint[], a: Joint, b: Joint, c: Joint, side?: Side): number {
  if (!side) return onBestSide(p, [a, b, c], (s) => sideAngle(p, a, b, c, s));
  const A = p[joint(side, a)]!, B = p[joint(side, b)]!, C = p[joint(side, c)]!;
  if (Math.min(A.score, B.score, C.score) < VISIBLE) return NaN;
  return angleAt(A, B, C);
}

/** Same angle on both sides, each NaN when unseen. */
export function bothAngles(p: Keypoint[], a: Joint, b: Joint, c: Joint): [number, number] {
  return [sideAngle(p, a, b, c, 'left'), sideAngle(p, a, b, c, 'right')];
}

/** Limb length (sum of its two segments) on the best side (onBestSide), NaN when unseen. */
export function limbLength(p: Keypoint[], a: Joint, b: Joint, c: Joint): number {
  return onBestSide(p, [a, b, c], (s) => limbLengthOn(p, s, a, b, c));
}

/** The two-segment limb a-b-c of one side, pixels, seen or not (limbLength picks the side). */
export function limbLengthOn(p: Keypoint[], s: Side, a: Joint, b: Joint, c: Joint): number {
  return dist(p[joint(s, a)]!, p[joint(s, b)]!) + dist(p[joint(s, b)]!, p[joint(s, c)]!);
}

/**
 * The pose smoothing averages a frame with the poses this long before and after it, seconds: one
 * frame each side at the engine's 12 fps, the 1-2-1 average it always was there. Set in frames, that
 * 1-2-1 reached twice as far in time at 6 fps (frames 0.17 s apart are other moments of the rep: at
 * half the frame rate good push-ups read shallow) and half as far at 24 fps, so one movement read
 * at two frame rates gave two depths. In seconds, the poses 1/12 s away are read between the frames
 * around them wherever the frame rate puts none there (see smoothPoses).
 */
export const POSE_SMOOTH_S = 1 / 12;

/**
 * The local quadratic fit's reach either side of a frame, seconds (fitPoses): two frames at 12 fps
 * and at 10, one at 6 (three frames, the fit through them is the frame itself), three at 15.
 */
export const POSE_FIT_S = 0.2;

/**
 * Each frame's place in frames of the clip's rate from the first: its time snapped to that rate's
 * grid (frames are decoded on it), so a frame lost in between leaves a gap in time.
 */
function framePlaces(timesMs: readonly number[], fps: number): number[] {
  const t0 = timesMs[0] ?? 0;
  return timesMs.map((t) => Math.round(((t - t0) * fps) / 1000));
}

/** A frame's share in a reading: a pose between two frames is read from both, by how near each is. */
interface Share { j: number; w: number }

/**
 * The pose at `place` (in frames of the clip's rate) read from the frames around it by linear
 * interpolation, as the frames' shares (one frame when one is there); empty outside the frames.
 */
function sharesAt(place: readonly number[], from: number, at: number): Share[] {
  let a = from;
  while (a > 0 && place[a]! > at) a--;
  while (a + 1 < place.length && place[a + 1]! <= at) a++;
  if (place[a] === at) return [{ j: a, w: 1 }];
  if (place[a]! > at || a + 1 >= place.length) return [];
  const u = (at - place[a]!) / (place[a + 1]! - place[a]!);
  return [{ j: a, w: 1 - u }, { j: a + 1, w: u }];
}

/**
 * `linear`'s reading between two frames (sharesAt) on a curve instead of the line: the mean of the
 * parabolas through the two frames and the frame beyond each (Lagrange's, on the frames' places),
 * either alone where the other's frames are not all there and `ok`, the line where neither is. At
 * a turn the line cuts under the movement (halfway between the bottom frame and the next, by a
 * quarter of their difference), so at a low frame rate, where the moments read fall between
 * frames, a turn read shallower than at 12 fps, where they fall on frames.
 */
function curvedShares(place: readonly number[], linear: Share[], at: number, ok: (j: number) => boolean): Share[] {
  if (linear.length !== 2) return linear;
  const a = linear[0]!.j, b = linear[1]!.j;
  const curves = [[a - 1, a, b], [a, b, b + 1]].filter((js) => js.every((j) => j >= 0 && j < place.length && ok(j)));
  if (!curves.length) return linear;
  const w = new Map<number, number>();
  for (const js of curves) {
    for (const j of js) {
      const l = js.reduce((v, m) => (m === j ? v : (v * (at - place[m]!)) / (place[j]! - place[m]!)), 1);
      w.set(j, (w.get(j) ?? 0) + l / curves.length);
    }
  }
  return [...w].sort((x, y) => x[0] - y[0]).map(([j, share]) => ({ j, w: share }));
}

/** A moment `at` (in frames of the clip's rate) and the frames' shares of it on the line (sharesAt). */
interface Moment { at: number; linear: Share[] }

/**
 * The moments `reach` frames of the clip's rate before and after frame i, the neighbours both the
 * pose smoothing and a series' average read (smoothPoses, averageAround): on frames at 12 fps with
 * 1/12 s, between frames at any other rate or beside a lost frame.
 */
function momentsAround(place: readonly number[], i: number, reach: number): [Moment, Moment] {
  const before = place[i]! - reach, after = place[i]! + reach;
  return [{ at: before, linear: sharesAt(place, i, before) }, { at: after, linear: sharesAt(place, i, after) }];
}

/** The shares of a moment read on the curve through the frames `ok` says are read (curvedShares). */
const sharesOf = (place: readonly number[], m: Moment, ok: (j: number) => boolean): Share[] => curvedShares(place, m.linear, m.at, ok);

/**
 * The frames within `seconds` of frame i, each with its offset in frames of the clip's rate
 * (framePlaces: a lost frame leaves a gap, not a nearer neighbour).
 */
function framesAround(place: readonly number[], i: number, fps: number, seconds: number): { j: number; offset: number }[] {
  const reach = seconds * fps + 1e-9;
  const out: { j: number; offset: number }[] = [];
  for (let j = i; j >= 0 && place[i]! - place[j]! <= reach; j--) out.unshift({ j, offset: place[j]! - place[i]! });
  for (let j = i + 1; j < place.length && place[j]! - place[i]! <= reach; j++) out.push({ j, offset: place[j]! - place[i]! });
  return out;
}

/**
 * Confidence-aware smoothing of keypoints over time: each frame averaged 1-2-1 with the poses
 * POSE_SMOOTH_S before and after it (read between frames where none falls there), weighted by
 * score, so a single-frame glitch or a briefly occluded joint does not create or break a
 * repetition. The reach is in seconds, not frames: the same movement read at 6, 12 or 30 fps is
 * averaged over the same moments, up to what the frames show of them. Scores are averaged too, so
 * a joint that is mostly unseen stays unseen.
 */
export function smoothPoses(frames: readonly AnyPose[], fps: number): Keypoint[][] {
  const place = framePlaces(frames.map((f) => f.timeMs), fps), reach = POSE_SMOOTH_S * fps;
  return frames.map((own, i) => {
    // The frame itself counts twice, each pose beside it once (its frames' shares of it).
    const [before, after] = momentsAround(place, i, reach);
    const kps: Keypoint[] = [];
    for (let k = 0; k < KP_COUNT; k++) {
      // Read on the curve through frames where this keypoint is seen (curvedShares).
      const seenAt = (j: number) => kpAt(frames[j]!, k, 2) >= VISIBLE;
      const parts = [sharesOf(place, before, seenAt), [{ j: i, w: 2 }], sharesOf(place, after, seenAt)].filter((s) => s.length);
      let sx = 0, sy = 0, sz = 0, sw = 0, ss = 0;
      for (const part of parts) {
        for (const { j, w: share } of part) {
          const f = frames[j]!, score = kpAt(f, k, 2), w = share * score;
          sx += kpAt(f, k, 0) * w; sy += kpAt(f, k, 1) * w; sz += (kpZ(f, k) ?? 0) * w; sw += w;
        }
        ss += part.reduce((s, { j, w }) => s + (part.length > 1 ? w : 1) * kpAt(frames[j]!, k, 2), 0);
      }
      const n = parts.length, ownScore = kpAt(own, k, 2);
      const hasZ = kpZ(own, k) !== undefined;
      const kp: Keypoint = sw > 0
        ? { x: sx / sw, y: sy / sw, score: Math.min(ownScore, ss / n) * 0.5 + (ss / n) * 0.5 }
        : { x: kpAt(own, k, 0), y: kpAt(own, k, 1), score: ownScore };
      if (hasZ) kp.z = sw > 0 ? sz / sw : kpZ(own, k)!;
      kps.push(kp);
    }
    return kps;
  });
}

/**
 * Keypoints from a local quadratic fit over the frames within POSE_FIT_S on each side
 * (Savitzky-Golay, each frame weighted by its score), evaluated at the frame. A fit of a parabola
 * keeps the height of a turn that the 1-2-1 average of `smoothPoses` flattens: at 12 fps the bottom of a
 * 0.8 s squat is about one frame, and averaging it with the two frames either side (already on
 * their way up) read a squat to 0.79 of parallel as 0.66. A one-frame glitch moves the fit about as
 * much as it moves the average (17/35 of the jump at its own frame against a half, at 12 fps), so
 * it stays as much a glitch. The score is `smoothPoses`'s, so what is seen is the same on both.
 * Where fewer than three frames of the window are seen, the smoothed keypoint.
 */
export function fitPoses(frames: readonly AnyPose[], smooth: readonly Keypoint[][], fps: number): Keypoint[][] {
  const place = framePlaces(frames.map((f) => f.timeMs), fps);
  return smooth.map((kps, i) => {
    const around = framesAround(place, i, fps, POSE_FIT_S);
    return kps.map((s, k) => {
      // Weighted least squares of a + b t + c t^2 over t, the offset in frames; the fit at the frame is a.
      const m = [0, 0, 0, 0, 0], vx = [0, 0, 0], vy = [0, 0, 0];
      let seen = 0;
      for (const { j, offset: t } of around) {
        const f = frames[j]!, w = kpAt(f, k, 2);
        if (!(w > 0)) continue;
        seen++;
        const x = kpAt(f, k, 0), y = kpAt(f, k, 1);
        for (let e = 0; e < 5; e++) m[e]! += w * t ** e;
        for (let e = 0; e < 3; e++) { vx[e]! += w * x * t ** e; vy[e]! += w * y * t ** e; }
      }
      const a = seen >= 3 ? quadraticAt0(m, vx) : NaN, b = seen >= 3 ? quadraticAt0(m, vy) : NaN;
      return Number.isFinite(a) && Number.isFinite(b) ? { ...s, x: a, y: b } : s;
    });
  });
}

/**
 * The constant term of the weighted quadratic fit with moments m[e] = sum w t^e and v[e] = sum w
 * value t^e (Cramer's rule on the 3x3 normal equations); NaN when they are singular.
 */
function quadraticAt0(m: readonly number[], v: readonly number[]): number {
  const [m0, m1, m2, m3, m4] = m as [number, number, number, number, number];
  const det3 = (a: number, b: number, c: number, d: number, e: number, f: number, g: number, h: number, k: number) =>
    a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g);
  const det = det3(m0, m1, m2, m1, m2, m3, m2, m3, m4);
  if (!(Math.abs(det) > 1e-9 * Math.max(1, m0 * m2 * m4))) return NaN;
  return det3(v[0]!, m1, m2, v[1]!, m2, m3, v[2]!, m3, m4) / det;
}

/**
 * A series averaged at each frame with its values `seconds` before and after (NaN skipped; NaN
 * stays NaN): the counter's smoothing (counting.ts COUNT_SMOOTH_S) and push-up depth's. At 12 fps
 * with 1/12 s it is the three-frame average it always was; at 30 fps it averages the same moments,
 * not the frames 0.03 s away, and at 6 fps the moments between frames, not the frames a sixth of a
 * second away. Where no frame falls at a moment, the value there is read on the curve through the
 * frames around it (curvedShares), as the pose smoothing reads a pose (smoothPoses). `timesMs` are
 * the frames' times, snapped to the grid of `fps` (framePlaces).
 */
export function averageAround(xs: readonly number[], timesMs: readonly number[], fps: number, seconds: number): number[] {
  const place = framePlaces(timesMs, fps), reach = seconds * fps;
  const read = (j: number) => Number.isFinite(xs[j]!);
  return xs.map((x, i) => {
    if (!Number.isFinite(x)) return NaN;
    let s = x, n = 1;
    for (const m of momentsAround(place, i, reach)) {
      const shares = sharesOf(place, m, read);
      const v = shares.length ? shares.reduce((sum, { j, w }) => sum + w * xs[j]!, 0) : NaN;
      if (Number.isFinite(v)) { s += v; n++; }
    }
    return s / n;
  });
}

/** q-quantile of the finite values, NaN if none. */
export function quantile(xs: number[], q: number): number {
  const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  return v[Math.min(v.length - 1, Math.max(0, Math.round(q * (v.length - 1))))]!;
}

/**
 * A body-scale reference per frame: a high quantile of a length over a window around the frame.
 * Segments shorten when they point at the camera, the high quantile recovers their true length,
 * and the window follows a person who walks nearer or farther.
 */
export function windowedScale(lengths: number[], halfWindow: number, q = 0.85): number[] {
  const fallback = quantile(lengths, q);
  return lengths.map((_, i) => {
    const w = lengths.slice(Math.max(0, i - halfWindow), i + halfWindow + 1);
    const v = quantile(w, q);
    return Number.isFinite(v) ? v : fallback;
  });
}
