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
  return onBestSide(p, [a, b, c], (s) => dist(p[joint(s, a)]!, p[joint(s, b)]!) + dist(p[joint(s, b)]!, p[joint(s, c)]!));
}

/**
 * Confidence-aware smoothing of keypoints over time: a centred window weighted by score, so a
 * single-frame glitch or a briefly occluded joint does not create or break a repetition.
 * Scores are averaged too, so a joint that is mostly unseen stays unseen.
 */
export function smoothPoses(frames: readonly AnyPose[], radius = 1): Keypoint[][] {
  const out: Keypoint[][] = [];
  for (let i = 0; i < frames.length; i++) {
    const kps: Keypoint[] = [];
    for (let k = 0; k < KP_COUNT; k++) {
      let sx = 0, sy = 0, sz = 0, sw = 0, ss = 0, n = 0;
      for (let j = Math.max(0, i - radius); j <= Math.min(frames.length - 1, i + radius); j++) {
        const f = frames[j]!, score = kpAt(f, k, 2);
        const w = j === i ? 2 * score : score;
        sx += kpAt(f, k, 0) * w; sy += kpAt(f, k, 1) * w; sz += (kpZ(f, k) ?? 0) * w; sw += w; ss += score; n++;
      }
      const own = frames[i]!, ownScore = kpAt(own, k, 2);
      const hasZ = kpZ(own, k) !== undefined;
      const kp: Keypoint = sw > 0
        ? { x: sx / sw, y: sy / sw, score: Math.min(ownScore, ss / n) * 0.5 + (ss / n) * 0.5 }
        : { x: kpAt(own, k, 0), y: kpAt(own, k, 1), score: ownScore };
      if (hasZ) kp.z = sw > 0 ? sz / sw : kpZ(own, k)!;
      kps.push(kp);
    }
    out.push(kps);
  }
  return out;
}

/**
 * Keypoints from a local quadratic fit over `radius` frames on each side (Savitzky-Golay, each
 * frame weighted by its score), evaluated at the frame. A fit of a parabola keeps the height of a
 * turn that the 1-2-1 average of `smoothPoses` flattens: at 12 fps the bottom of a 0.8 s squat is
 * about one frame, and averaging it with the two frames either side (already on their way up) read
 * a squat to 0.79 of parallel as 0.66. A one-frame glitch moves the fit about as much as it moves
 * the average (17/35 of the jump at its own frame against a half), so it stays as much a glitch.
 * The score is `smoothPoses`'s, so what is seen is the same on both. Where fewer than three frames
 * of the window are seen, the smoothed keypoint.
 */
export function fitPoses(frames: readonly AnyPose[], smooth: readonly Keypoint[][], radius = 2): Keypoint[][] {
  return smooth.map((kps, i) => kps.map((s, k) => {
    // Weighted least squares of a + b t + c t^2 over t = j - i; the fit at the frame is a.
    const m = [0, 0, 0, 0, 0], vx = [0, 0, 0], vy = [0, 0, 0];
    let seen = 0;
    for (let j = Math.max(0, i - radius); j <= Math.min(frames.length - 1, i + radius); j++) {
      const f = frames[j]!, w = kpAt(f, k, 2);
      if (!(w > 0)) continue;
      seen++;
      const t = j - i, x = kpAt(f, k, 0), y = kpAt(f, k, 1);
      for (let e = 0; e < 5; e++) m[e]! += w * t ** e;
      for (let e = 0; e < 3; e++) { vx[e]! += w * x * t ** e; vy[e]! += w * y * t ** e; }
    }
    const a = seen >= 3 ? quadraticAt0(m, vx) : NaN, b = seen >= 3 ? quadraticAt0(m, vy) : NaN;
    return Number.isFinite(a) && Number.isFinite(b) ? { ...s, x: a, y: b } : s;
  }));
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

/** Centred moving average that skips NaN; NaN stays NaN where no neighbour is finite. */
export function smoothSeries(xs: number[], radius = 1): number[] {
  return xs.map((_, i) => {
    let s = 0, n = 0;
    for (let j = Math.max(0, i - radius); j <= Math.min(xs.length - 1, i + radius); j++) {
      const v = xs[j]!;
      if (Number.isFinite(v)) { s += v; n++; }
    }
    return n > 0 && Number.isFinite(xs[i]!) ? s / n : NaN;
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
