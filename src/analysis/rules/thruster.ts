// Thruster: a front squat that drives straight into an overhead press, the weight returning to
// the shoulders between reps. One press per rep, so the count follows the press signal (wrists and
// elbows from the rack to overhead, as for the shoulder press); the squat half is judged by the
// rules: a rep whose thighs never came down is a push press, not a thruster.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { elbowAngle, extreme, kneeAngle, onRepSide, repSide, round, torsoLean, rule } from './common.js';
import { armPressProgress, pressProgress, PRESS_MIN_RISE, wristRise } from './shoulder-press.js';
import { thighProgress } from './squat.js';

/** Upright enough to be squatting or standing (not bending over to pick up the weight). */
function notFolded(f: FrameCtx): boolean {
  return !(kneeAngle(f) > 150 && wristRise(f) < -0.6);
}

export const thruster: ExerciseDef = {
  id: 'thruster',
  name: 'Thruster',
  description: 'Thruster with a barbell, dumbbells or a kettlebell: squat from the front rack, then drive up and press the weight overhead in one movement; return it to the shoulders.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side with the whole body and the weight overhead in frame: squat depth and the lock-out both show there; a front view also counts.',
  filmingAdvice: 'Place the camera 3-4 m away at hip height with room above the head for the lock-out and the feet in frame.',
  signal: 'wrist and elbow height above the shoulders, in arm lengths, from the rack (0) to lock-out (1), as for the shoulder press',
  progress: (f) => pressProgress(f),
  // The press's floor (shoulder-press.ts PRESS_MIN_RISE): the same signal, the same rack read
  // half-way from the side (issue 20zc: the start held counted on 21 of 63 cameras, 10 with it).
  minRise: PRESS_MIN_RISE,
  progressSides: (f) => [armPressProgress(f, 'left'), armPressProgress(f, 'right')],
  gate: notFolded,
  gateDescription: 'squatting or standing with the weight at the shoulders or overhead',
  rules: [
    rule({
      id: 'thruster-depth', category: 'range_of_motion', name: 'Shallow squat',
      correction: 'Squat until the thighs are parallel before driving up into the press.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const side = repSide(rep);
        const { value, index } = extreme(rep, (f) => thighProgress(f, side), 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(0.75 - value, 0.15, 0.35, { evidence: index, description: `The thighs came down to only about ${round(value * 100)}% of parallel before the press.` });
      },
      strength: { category: 'range_of_motion', name: 'Deep squat', description: 'Reached parallel before pressing.' },
    }),
    rule({
      id: 'thruster-lockout', category: 'range_of_motion', name: 'Incomplete lock-out',
      correction: 'Finish every rep with straight arms and the weight over the middle of the head.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const { value, index } = extreme(rep, onRepSide(rep, elbowAngle), 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(155 - value, 10, 25, { evidence: index, description: `The elbows straightened only to about ${round(value)} deg overhead.` });
      },
      strength: { category: 'range_of_motion', name: 'Full lock-out', description: 'Arms straight overhead.' },
    }),
    rule({
      id: 'thruster-chest', category: 'posture', name: 'Chest dropping in the squat',
      correction: 'Keep the elbows high and the chest up in the squat so the weight stays over the mid-foot.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = extreme(rep, torsoLean, 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 45, 8, 15, { evidence: index, description: `The torso tipped about ${round(value)} deg forward in the squat.` });
      },
      strength: { category: 'posture', name: 'Upright front rack', description: 'Chest stayed up in the squat.' },
    }),
  ],
};
