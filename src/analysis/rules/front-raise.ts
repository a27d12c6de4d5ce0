// Front raise: dumbbells, a plate or a cable rise straight in front of the body from hanging arms
// to shoulder height. Same signal as the lateral raise (arm-raise.ts); the faults differ: the
// classic one is leaning back to heave the weight up, seen from the side.
import type { ExerciseDef } from '../exercise.js';
import { round, rule } from './common.js';
import { maxOf } from './body.js';
import { flexionProgress, RAISE_LEAN, raiseCalibration, raiseGate, raiseProgress, topElevation } from './arm-raise.js';
import type { FrameCtx } from '../exercise.js';
import { elevation, joint, VISIBLE, type Side } from '../signals.js';
import { elbowsBentCheck, swayCheck } from './lateral-raise.js';

/**
 * Upright (raiseGate), read on one side's shoulder and hip where only one shoulder is seen: the
 * torso's midline from one shoulder to the middle of both hips leans by half the hips' width
 * (a phone 1.5 m away with a shoulder over the picture's side or top read 40 deg, and the set 0 of 6).
 */
export function frontRaiseGate(f: FrameCtx): boolean {
  const shoulder = (s: Side) => f.p[joint(s, 'shoulder')]!.score >= VISIBLE;
  if (shoulder('left') === shoulder('right')) return raiseGate(f);
  const s: Side = shoulder('left') ? 'left' : 'right', hip = f.p[joint(s, 'hip')]!;
  if (hip.score < VISIBLE) return raiseGate(f);
  return 90 - elevation(f.p[joint(s, 'shoulder')]!, hip) <= RAISE_LEAN;
}

export const frontRaise: ExerciseDef = {
  id: 'front-raise',
  name: 'Front raise',
  description: 'Dumbbell, plate or cable front raise: with nearly straight arms, raise the weight in front of the body to shoulder height and lower it under control.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at chest height: the arm travels across the picture, and the elbow bend and any lean back are clearest there. A diagonal view also works; from the front the height still counts.',
  filmingAdvice: 'Place the camera 2-3 m away at chest height, side-on, with the raised hands, the head and the hips in frame.',
  signal: 'elbow and wrist height toward the shoulder against the hanging position of the surrounding seconds (1 - cos of the arm elevation), or the upper arm\'s angle to the torso in 3D where that reads higher (20zh), on the arm that rises higher; 75 deg of elevation is a full rep',
  calibrate: raiseCalibration,
  // The higher of the picture's reading and the arm's angle to the torso in 3D (flexionProgress):
  // a phone above the person sees an arm raised toward it still hanging (the lateral raise keeps
  // the picture's reading alone: not looked at with issue 20zh).
  progress: (f, cal) => maxOf([raiseProgress(f, cal), flexionProgress(f)]),
  gate: frontRaiseGate,
  gateDescription: 'standing or seated upright, torso within 35 deg of vertical',
  rules: [
    rule({
      id: 'front-raise-height', category: 'range_of_motion', name: 'Arms below shoulder height',
      correction: 'Raise the weight until the arms are level with the floor, hands at shoulder height.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const { value, index } = topElevation(rep);
        if (!Number.isFinite(value)) return undefined;
        // As for the lateral raise, a raise to shoulder height reads 70-80 deg from the keypoints.
        return judge.fault(60 - value, 10, 20, { evidence: index, description: `The arms rose to about ${round(value)} deg; shoulder height is 90 deg.` });
      },
      strength: { category: 'range_of_motion', name: 'Shoulder-height raise', description: 'The arms reached shoulder height.' },
    }),
    rule({
      id: 'front-raise-swing', category: 'posture', name: 'Leaning back to lift',
      correction: 'Brace the core and keep the torso still; if you have to lean back, the weight is too heavy.',
      views: ['side', 'diagonal'],
      check: swayCheck('to heave the weight up'),
      strength: { category: 'posture', name: 'Still torso', description: 'The torso stayed still while the arms moved.' },
    }),
    rule({
      id: 'front-raise-elbows', category: 'technique', name: 'Elbows bending',
      correction: 'Keep the arms long with only a soft bend in the elbows; bending them shortens the lever and the work.',
      views: ['side', 'diagonal'],
      check: elbowsBentCheck(130),
      strength: { category: 'technique', name: 'Long arms', description: 'Arms stayed nearly straight.' },
    }),
    rule({
      id: 'front-raise-too-high', category: 'technique', name: 'Raising above eye level',
      correction: 'Stop with the hands at shoulder height; going higher takes the load off the front of the shoulder.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const { value, index } = topElevation(rep);
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 120, 15, 30, { evidence: index, description: `The arms rose to about ${round(value)} deg, above eye level.` });
      },
      // Also said of a rep short of shoulder height: it must not claim the height the range rule faults.
      strength: { category: 'technique', name: 'No overshoot', description: 'Did not raise the arms above eye level.' },
    }),
  ],
};
