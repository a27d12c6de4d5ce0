// Angles of a body lying or in a plank filmed end-on, from its head or its feet (issue 20u). There
// the body's sagittal plane, in which the hip bends, is seen edge-on and the picture's angle is the
// projection's; the model's depth (BlazePose's z, at its own scale: pose.ts Z_SCALE) gives it back
// (reach.ts angle3d).
import type { FrameCtx } from '../exercise.js';
import type { Side } from '../signals.js';
import { yawOf } from '../view.js';
import { hipAngle, kneeAngle, SIDE_ON_YAW } from './common.js';
import { angle3d } from './reach.js';

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
