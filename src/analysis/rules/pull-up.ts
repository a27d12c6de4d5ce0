// Pull-up: hanging from a bar, the body rises until the chin clears the hands. The signal is how
// far the shoulders climb toward the hands, in arm lengths, blended with the elbow bend: both read
// from the front, the back and the side, and neither needs the bar itself to be seen.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { KP } from '../pose.js';
import { pairPoint, VISIBLE } from '../signals.js';
import { atEnds, elbowAngle, extreme, round, sustained, torsoLean, rule } from './common.js';
import { handsInPicture } from './in-picture.js';

/** Hands above the shoulders, in arm lengths: about 0.95 in a dead hang, 0.2 with the chin over. */
export function handsAbove(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), wr = pairPoint(f.p, 'wrist');
  return sh && wr && f.armLen > 0 ? (sh.y - wr.y) / f.armLen : NaN;
}

/**
 * The climb (vertical, so it reads from every side) and the elbow bend averaged, except that a
 * bend reading straighter than the climb does not pull the climb down: a projected angle can hide
 * a bend but never invent straightness where the arm is straight, and a wide grip seen side-on
 * moves the upper arms toward and away from the camera, so the elbow reads straight (180 deg) all
 * the way up; the mean then stayed under a valid rep's range on every pull.
 */
export function pullProgress(f: FrameCtx): number {
  const climb = (0.95 - handsAbove(f)) / 0.7;
  const bend = (165 - elbowAngle(f)) / 100;
  if (!Number.isFinite(climb)) return bend;
  return Number.isFinite(bend) && bend > climb ? (climb + bend) / 2 : climb;
}

/** Hanging: both hands well above the shoulders (standing under the bar does not count). */
export const hanging = (f: FrameCtx) => handsAbove(f) > 0.1;

/** Chin height over the hands, in arm lengths (positive = chin above the hands). */
export function chinOverHands(f: FrameCtx): number {
  const n = f.p[KP.nose]!, wr = pairPoint(f.p, 'wrist');
  if (!wr || n.score < VISIBLE || !(f.armLen > 0)) return NaN;
  return (wr.y - n.y) / f.armLen;
}

export const pullUp: ExerciseDef = {
  id: 'pull-up',
  name: 'Pull-up',
  description: 'Pull-up or chin-up on a bar: from a dead hang with straight arms, pull until the chin clears the bar, then lower all the way.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side so the chin, the bar and any swing of the legs are visible; from the front or the back the count and the arm extension still read.',
  filmingAdvice: 'Place the camera 2-4 m away at chest height, angled up slightly, with the hands on the bar and the feet in frame.',
  signal: 'shoulders climbing toward the hands (0.95 arm lengths below them in a dead hang, 0.25 at the top) blended with the elbow bend (165 to 65 deg)',
  progress: (f) => pullProgress(f),
  gate: hanging,
  gateDescription: 'hanging: hands above the shoulders',
  rules: [
    rule({
      id: 'pull-up-chin', category: 'range_of_motion', name: 'Chin below the bar',
      correction: 'Pull until the chin clears the bar, driving the elbows down toward the ribs.',
      views: ['side', 'diagonal', 'front'],
      // The chin (the nose keypoint) is hidden from behind: a back view cannot show it over the bar.
      readsFace: true,
      check(rep, judge) {
        // Hands on a bar at the picture's edge are placed by the model's guess: so would the chin's margin be.
        if (!handsInPicture(rep)) return undefined;
        const { value, index } = extreme(rep, chinOverHands, 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(-0.05 - value, 0.1, 0.25, { evidence: index, description: `At the top the chin stayed ${round(-value * 100)}% of an arm length below the hands.` });
      },
      strength: { category: 'range_of_motion', name: 'Chin over the bar', description: 'Pulled the chin over the bar.' },
    }),
    rule({
      id: 'pull-up-hang', category: 'range_of_motion', name: 'No full hang',
      correction: 'Lower until the arms are straight before the next pull.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const v = atEnds(rep, elbowAngle);
        if (!Number.isFinite(v)) return undefined;
        return judge.fault(145 - v, 15, 30, { evidence: 0, description: `Between reps the elbows only opened to about ${round(v)} deg.` });
      },
      strength: { category: 'range_of_motion', name: 'Dead hang', description: 'Arms straightened between reps.' },
    }),
    rule({
      id: 'pull-up-kip', category: 'technique', name: 'Swinging (kipping)',
      correction: 'Brace the core and keep the legs still under the bar; pull with the back, not momentum.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // The lean held for more than one frame at each end of the swing: one frame's hip or
        // shoulder keypoint jumping is not the body swinging (common.ts sustained).
        const max = sustained(rep, torsoLean, 'max'), min = sustained(rep, torsoLean, 'min');
        if (!Number.isFinite(max.value) || !Number.isFinite(min.value)) return undefined;
        const swing = max.value - min.value;
        return judge.fault(swing - 20, 10, 20, { evidence: max.index, description: `The body swung through about ${round(swing)} deg during the pull.` });
      },
      strength: { category: 'technique', name: 'Strict pull', description: 'No swing from the legs.' },
    }),
  ],
};
