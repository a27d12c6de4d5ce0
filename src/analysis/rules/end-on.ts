// Angles of a body lying or in a plank filmed end-on, from its head or its feet (issue 20u). There
// the body's sagittal plane, in which the hip bends, is seen edge-on and the picture's angle is the
// projection's; the model's depth (BlazePose's z, at its own scale: pose.ts Z_SCALE) gives it back.
import type { FrameCtx } from '../exercise.js';
import { Z_SCALE, type Keypoint } from '../pose.js';
import { joint, VISIBLE, type Joint, type Side } from '../signals.js';
import { yawOf } from '../view.js';
import { hipAngle, kneeAngle, SIDE_ON_YAW } from './common.js';

/**
 * The angle at the middle joint of a-b-c (degrees) in 3D, the model's depth at its own scale
 * (pose.ts Z_SCALE, as reach.ts elbowAngle3d); NaN when a joint or its depth is unseen.
 */
export function angle3d(f: FrameCtx, s: Side, a: Joint, b: Joint, c: Joint): number {
  const pa = f.p[joint(s, a)]!, pb = f.p[joint(s, b)]!, pc = f.p[joint(s, c)]!;
  if (Math.min(pa.score, pb.score, pc.score) < VISIBLE || pa.z === undefined || pb.z === undefined || pc.z === undefined) return NaN;
  const v = (k: Keypoint) => [k.x - pb.x, k.y - pb.y, (k.z! - pb.z!) / Z_SCALE];
  const u = v(pa), w = v(pc), n = Math.hypot(...u) * Math.hypot(...w);
  if (!(n > 0)) return NaN;
  return (Math.acos(Math.max(-1, Math.min(1, (u[0]! * w[0]! + u[1]! * w[1]! + u[2]! * w[2]!) / n))) * 180) / Math.PI;
}

/**
 * A body lying or in a plank seen end-on (from the head or the feet: its shoulder line across the
 * picture, yaw under SIDE_ON_YAW): the sagittal plane is seen edge-on, and an angle in it read in
 * the picture is the projection's, not the joint's (issue 20u: a mountain climber's hip read 134
 * deg at rest from the head end and 160 from the feet, and did not move with the drive). There the
 * angle is read in 3D; side-on and at a diagonal the picture's angle, as before, whose depth
 * carries no noise into it.
 */
export const endOn = (f: FrameCtx) => yawOf(f) < SIDE_ON_YAW;

/**
 * The hip's angle (shoulder-hip-knee): in 3D end-on (endOn), the picture's otherwise. Without a
 * side, the mean of the sides read in 3D end-on (both are in sight there), or the picture's best
 * side (common.ts hipAngle).
 */
export function hipAngleSeen(f: FrameCtx, s?: Side): number {
  if (endOn(f)) {
    const read = (s ? [s] : (['left', 'right'] as const)).map((x) => angle3d(f, x, 'shoulder', 'hip', 'knee')).filter(Number.isFinite);
    if (read.length) return read.reduce((a, b) => a + b, 0) / read.length;
  }
  return hipAngle(f, s);
}

/**
 * The knee's angle (hip-knee-ankle), as hipAngleSeen: end-on a bent knee whose thigh and shin both
 * point along the line of sight is drawn near straight (a glute bridge from its feet, 2 m up and
 * 1.5 m away, read 142-166 deg; 90-100 in 3D).
 */
export function kneeAngleSeen(f: FrameCtx, s?: Side): number {
  if (endOn(f)) {
    const read = (s ? [s] : (['left', 'right'] as const)).map((x) => angle3d(f, x, 'hip', 'knee', 'ankle')).filter(Number.isFinite);
    if (read.length) return read.reduce((a, b) => a + b, 0) / read.length;
  }
  return kneeAngle(f, s);
}
