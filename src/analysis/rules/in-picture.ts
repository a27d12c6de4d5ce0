// Joints inside the picture. The pose model places a joint the frame cuts off where it guesses it,
// and often with a high score: a barbell press filmed from the chest up (ourhealth) had its hips
// 60-230 px below a 540 px picture at scores 0.8-1.0, and the torso's "lean" read off them faulted
// every clean rep; the wrists of its lock-out, above the top edge, read the elbows bent to 137 deg.
// A rule that reads such a joint cannot see what it judges there, so it is "Not checked".
import type { FrameCtx, RepView } from '../exercise.js';
import type { Keypoint } from '../pose.js';
import { joint, type Joint, type Side } from '../signals.js';
import { torsoLean } from './common.js';

/**
 * The keypoint lies inside the picture, at least `margin` px from its edges (always, on a rep whose
 * picture size is unknown). The margin is for what the joint carries beyond it: a wrist 20 px
 * under the top edge has the hand and the bar above it cut off, and its own place is a guess.
 */
export function inPicture(rep: RepView, k: Keypoint, margin = 0): boolean {
  const pic = rep.picture;
  return !pic || (k.x >= margin && k.y >= margin && k.x <= pic.width - margin && k.y <= pic.height - margin);
}

/** These joints (on both sides, or on `side`) lie inside the picture in this frame, whatever their score. */
export function jointsInPicture(rep: RepView, f: FrameCtx, joints: readonly Joint[], side?: Side, margin = 0): boolean {
  const sides: readonly Side[] = side ? [side] : ['left', 'right'];
  return joints.every((j) => sides.every((s) => inPicture(rep, f.p[joint(s, j)]!, margin)));
}

/** These joints stay inside the picture on every frame of the rep; `margin` px per frame, as above. */
export function repInPicture(rep: RepView, joints: readonly Joint[], side?: Side, margin: (f: FrameCtx) => number = () => 0): boolean {
  return rep.frames.every((f) => jointsInPicture(rep, f, joints, side, margin(f)));
}

/**
 * The hands, and what they hold, stay inside the picture over the rep: each wrist at least 0.15 arm
 * lengths (about half a hand, where the grip holds a bar or a dumbbell) from the picture's edges.
 * Hands at the edge (a close framing's lock-out, a pull-up bar at the top) are the model's guess.
 */
export const handsInPicture = (rep: RepView): boolean => repInPicture(rep, ['wrist'], undefined, (f) => 0.15 * f.armLen);

/** The feet's joints (ankles) stay inside the picture over the rep: a framing that cuts them off guesses them. */
export const feetInPicture = (rep: RepView): boolean => repInPicture(rep, ['ankle']);

/**
 * The torso's lean from vertical (common.ts torsoLean) on a frame whose shoulders and hips are
 * inside the picture, NaN elsewhere: an upper-body exercise filmed from the chest up has its hips
 * guessed below the picture, and a lean or a swing read off them is the guess's.
 */
export const leanInPicture = (rep: RepView) => (f: FrameCtx): number =>
  jointsInPicture(rep, f, ['shoulder', 'hip']) ? torsoLean(f) : NaN;
