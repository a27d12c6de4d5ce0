// Measurements the pulling, pressing and fly exercises added with issue 20 share: how far a hand is
// from its shoulder and how far the hands are from each other, in the person's arm lengths. Both
// use the pose model's depth (z, on the scale of x) when it is there, so an arm reaching toward or
// away from the camera (a row or face pull filmed from behind, a fly from the front) still reads
// its true length instead of a foreshortened one.
import type { FrameCtx } from '../exercise.js';
import { Z_SCALE, type Keypoint } from '../pose.js';
import { joint, VISIBLE, type Joint, type Side } from '../signals.js';

/**
 * Distance between two keypoints, with depth when both carry it. The model's z runs Z_SCALE times
 * the true depth in x's scale (pose.ts), so it is read at that scale: read at face value, a hand
 * pulled back 30 cm toward a camera behind or in front read 1 m away, and a row filmed from a
 * diagonal never came in to half an arm's length (the pinhole sweep, bench/camera-sweep.ts).
 */
export function dist3(a: Keypoint, b: Keypoint): number {
  const dz = a.z !== undefined && b.z !== undefined ? (a.z - b.z) / Z_SCALE : 0;
  return Math.hypot(a.x - b.x, a.y - b.y, dz);
}

/** Wrist to its shoulder in arm lengths: about 1 with the arm straight, 0.3-0.5 pulled in. */
export function handReach(f: FrameCtx, s: Side): number {
  const sh = f.p[joint(s, 'shoulder')]!, wr = f.p[joint(s, 'wrist')]!;
  if (Math.min(sh.score, wr.score) < VISIBLE || !(f.armLen > 0)) return NaN;
  return dist3(sh, wr) / f.armLen;
}

/**
 * The angle at the middle joint of a-b-c (degrees) in 3D, the model's depth at its own scale (pose.ts
 * Z_SCALE); NaN when a joint is unseen. Without depth on all three: NaN, or with `pictureWithoutDepth`
 * the picture's angle. Shared by the elbow below and the hip and knee read end-on (end-on.ts).
 */
export function angle3d(f: FrameCtx, s: Side, a: Joint, b: Joint, c: Joint, pictureWithoutDepth = false): number {
  const pa = f.p[joint(s, a)]!, pb = f.p[joint(s, b)]!, pc = f.p[joint(s, c)]!;
  if (Math.min(pa.score, pb.score, pc.score) < VISIBLE) return NaN;
  const depth = pa.z !== undefined && pb.z !== undefined && pc.z !== undefined;
  if (!depth && !pictureWithoutDepth) return NaN;
  const v = (k: Keypoint) => [k.x - pb.x, k.y - pb.y, depth ? (k.z! - pb.z!) / Z_SCALE : 0];
  const u = v(pa), w = v(pc), n = Math.hypot(...u) * Math.hypot(...w);
  if (!(n > 0)) return NaN;
  return (Math.acos(Math.max(-1, Math.min(1, (u[0]! * w[0]! + u[1]! * w[1]! + u[2]! * w[2]!) / n))) * 180) / Math.PI;
}

/**
 * The elbow's angle (shoulder-elbow-wrist) in 3D, with the model's depth at its own scale when all
 * three carry it (else in the picture). Filmed square-on, a row's upper arm swings back along the
 * line of sight and the picture's angle stays near straight through the pull: the row read half a
 * pull from the front (the pinhole sweep, bench/camera-sweep.ts).
 */
export const elbowAngle3d = (f: FrameCtx, s: Side): number => angle3d(f, s, 'shoulder', 'elbow', 'wrist', true);

/** Wrist to wrist in arm lengths: near 0 with the hands together, 2 or more with the arms spread. */
export function handGap(f: FrameCtx): number {
  const l = f.p[joint('left', 'wrist')]!, r = f.p[joint('right', 'wrist')]!;
  if (Math.min(l.score, r.score) < VISIBLE || !(f.armLen > 0)) return NaN;
  return dist3(l, r) / f.armLen;
}

/** Elbow to elbow over shoulder to shoulder: about 1 with the elbows in front, more flared out. */
export function elbowFlare(f: FrameCtx): number {
  const ls = f.p[joint('left', 'shoulder')]!, rs = f.p[joint('right', 'shoulder')]!;
  const le = f.p[joint('left', 'elbow')]!, re = f.p[joint('right', 'elbow')]!;
  if (Math.min(ls.score, rs.score, le.score, re.score) < VISIBLE) return NaN;
  const span = Math.abs(ls.x - rs.x);
  return span > 0.1 * f.armLen ? Math.abs(le.x - re.x) / span : NaN;
}

/** Mean of the finite values, NaN when none. */
export function meanFinite(v: number[]): number {
  const f = v.filter(Number.isFinite);
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
}
