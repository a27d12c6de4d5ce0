// Crunch: lying on the back (or a decline bench), the shoulders curl off the floor toward the
// knees while the lower back stays down; a short movement, unlike the sit-up. The signal is how far
// the shoulders come toward the knees, in leg lengths, against the lying position of the
// surrounding seconds, blended with the shoulder rise over the hips in torso lengths. Both are
// relative to the person and the clip, so a bench tilted head-down reads like the floor.
import type { Calibration, ExerciseDef, FrameCtx } from '../exercise.js';
import type { Keypoint } from '../pose.js';
import { joint, pairPoint, VISIBLE, type Joint } from '../signals.js';
import { extreme, round, rule } from './common.js';
import { perFrame, rollingLevel, storePerFrame } from './body.js';
import { shoulderRise } from './sit-up.js';
import { dist3, meanFinite } from './reach.js';
import { awayFromCamera, bodyLine3d } from '../view.js';

/** The pair's midpoint (pairPoint's) with the model's depth kept, when both sides carry it. */
function pairPoint3(f: FrameCtx, j: Joint): Keypoint | null {
  const m = pairPoint(f.p, j);
  if (!m) return null;
  const l = f.p[joint('left', j)]!, r = f.p[joint('right', j)]!;
  const z = l.score >= VISIBLE && r.score >= VISIBLE ? (l.z !== undefined && r.z !== undefined ? (l.z + r.z) / 2 : undefined) : (l.score >= VISIBLE ? l : r).z;
  return z === undefined ? m : { ...m, z };
}

/**
 * Shoulder-midpoint to knee-midpoint in leg lengths, in 3D (reach.ts dist3: the model's depth at
 * its own scale): shorter as the torso curls. In the picture alone, a phone at the feet and above
 * them draws the shoulders coming up toward it and away from the knees (0.18 -> 0.46 leg lengths
 * from the feet, 2 m up and 3 m away), and the crunch read as its opposite.
 */
export function shoulderToKnee(f: FrameCtx): number {
  const sh = pairPoint3(f, 'shoulder'), kn = pairPoint3(f, 'knee');
  return sh && kn && f.legLen > 0 ? dist3(sh, kn) / f.legLen : NaN;
}

/**
 * tan 25 deg (view.ts END_ON's): how far out of the picture, away from the camera, the line from the
 * feet to the hips must point for a body filmed from its feet to read lying. A standing body's legs
 * point toward a camera above the hips and at most 19 deg away from one on the floor.
 */
const LEGS_AWAY = Math.tan((25 * Math.PI) / 180);

/**
 * Lying down or reclined: the hips are not high over the ankles in the picture (nobody standing),
 * or the legs point away from the camera (view.ts bodyLine3d, the model's depth): filmed from the
 * feet by a phone above them, 2 m up and 1.5 m away, the hips beyond the feet are drawn a whole
 * leg above them, and the gate read no frame of the crunch's top.
 */
function onBack(f: FrameCtx): boolean {
  const hip = pairPoint(f.p, 'hip'), ankle = pairPoint(f.p, 'ankle'), sh = pairPoint(f.p, 'shoulder');
  if (!hip || !sh) return false;
  if (!ankle || !(f.legLen > 0) || (ankle.y - hip.y) / f.legLen < 0.6) return true;
  const line = bodyLine3d(f);
  return !!line && awayFromCamera(line.foot, line.hip) > LEGS_AWAY;
}

export const crunch: ExerciseDef = {
  id: 'crunch',
  name: 'Crunch',
  description: 'Abdominal crunch on the floor or a decline bench: knees bent, lift the shoulders off the floor by curling the upper back toward the knees, lower back down, lower back stays on the floor. Film from the side at floor height, 2-3 m away, with the head, hips and knees in frame.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at floor level: how high the shoulders lift and whether the neck is pulled are clearest there; a diagonal view also counts.',
  filmingAdvice: 'Put the camera on the floor side-on, 2-3 m away, with the head, hips and knees in frame.',
  signal: 'mean of the shoulders approaching the knees (0.25 leg lengths closer than the lying position of the surrounding seconds) and the shoulders rising over the hips (0.3 torso lengths above lying)',
  calibrate(frames) {
    const cal: Calibration = {};
    storePerFrame(cal, 'far', frames, rollingLevel(frames, shoulderToKnee, 0.9, 0.3, 2, 1));
    storePerFrame(cal, 'flat', frames, rollingLevel(frames, shoulderRise, 0.1, -1, 1, 0));
    return cal;
  },
  progress: (f, cal) => meanFinite([
    (perFrame(cal, 'far', f) - shoulderToKnee(f)) / 0.25,
    (shoulderRise(f) - perFrame(cal, 'flat', f)) / 0.3,
  ]),
  gate: onBack,
  gateDescription: 'lying or reclined, hips not high over the ankles',
  rules: [
    rule({
      id: 'crunch-range', category: 'range_of_motion', name: 'Shoulders barely leaving the floor',
      correction: 'Curl until the shoulder blades are off the floor, bringing the ribs toward the hips.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        return judge.fault(0.8 - rep.peakProgress, 0.15, 0.3, { evidence: rep.peak, description: `The shoulders came up about ${round(rep.peakProgress * 100)}% of a full crunch.` });
      },
      strength: { category: 'range_of_motion', name: 'Full crunch', description: 'Curled the shoulders well off the floor.' },
    }),
    rule({
      id: 'crunch-descent', category: 'tempo', name: 'Dropping back down',
      correction: 'Lower the shoulders slowly, taking at least as long as on the way up.',
      views: ['side', 'diagonal', 'front'],
      readsReturn: true,
      check(rep) {
        const up = rep.frames[rep.peak]!.t - rep.frames[0]!.t;
        const down = rep.frames[rep.frames.length - 1]!.t - rep.frames[rep.peak]!.t;
        if (up <= 0 || down >= 0.5 * up) return null;
        return { severity: 'minor', evidence: rep.peak, description: `The way down took ${(down / 1000).toFixed(1)} s against ${(up / 1000).toFixed(1)} s up.` };
      },
      strength: { category: 'tempo', name: 'Controlled descent', description: 'Lowered under control.' },
    }),
    rule({
      id: 'crunch-sit-up', category: 'technique', name: 'Sitting all the way up',
      correction: 'Stop when the shoulder blades leave the floor; sitting up turns the crunch into a hip-flexor sit-up.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = extreme(rep, shoulderRise, 'max');
        if (!Number.isFinite(value)) return undefined;
        // Shoulders more than 0.8 torso lengths over the hips: the torso is past about 55 deg.
        return judge.fault(value - 0.8, 0.1, 0.2, { evidence: index, description: `The torso came up to about ${round((Math.asin(Math.min(1, value)) * 180) / Math.PI)} deg from the floor.` });
      },
      // Not "controlled": the same rep may drop back down (tempo), which is what control means there.
      strength: { category: 'technique', name: 'Stopped short of sitting up', description: 'Curled without sitting all the way up.' },
    }),
  ],
};
