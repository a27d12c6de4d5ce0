// Bench press: lying on a bench, the bar comes down from straight arms to the chest and is
// pressed back up. The rest position is the lock-out, so the signal measures the descent: how far
// the hands come down toward the shoulders, in arm lengths, blended with the elbow bend.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { pairPoint } from '../signals.js';
import { atEnds, bodyLying, bounceRule, elbowAngle, extreme, round, rule } from './common.js';
import { wristImbalance } from './shoulder-press.js';

/** Hands above the shoulders in arm lengths (lying, so "above" is up in the image): ~0.9 locked out. */
export function handsOverShoulders(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), wr = pairPoint(f.p, 'wrist');
  return sh && wr && f.armLen > 0 ? (sh.y - wr.y) / f.armLen : NaN;
}

/**
 * The descent and the elbow bend averaged, except that a bend reading straighter than the descent
 * does not pull it down: with a wide grip seen side-on the upper arms swing toward and away from
 * the camera and the projected elbow reads nearly straight at the chest (as for pull-ups:
 * pull-up.ts), while the hands' height reads from every side.
 */
export function benchProgress(f: FrameCtx): number {
  const descent = (0.95 - handsOverShoulders(f)) / 0.5, bend = (165 - elbowAngle(f)) / 85;
  if (!Number.isFinite(descent)) return bend;
  return Number.isFinite(bend) && bend > descent ? (descent + bend) / 2 : descent;
}

export const benchPress: ExerciseDef = {
  id: 'bench-press',
  name: 'Bench press',
  description: 'Barbell or dumbbell bench press: lying on a bench, lower the weight from straight arms to the chest, then press it back up.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at bench height: the bar path, the touch on the chest and the lock-out are clearest there; from the head end both arms can be compared.',
  filmingAdvice: 'Place the camera 2-3 m away at bench height, side-on, with the head, the hands at lock-out and the hips in frame.',
  signal: 'hands coming down toward the shoulders (0.95 arm lengths above them locked out, about 0.45 with the bar on the chest) blended with the elbow bend (165 to 80 deg)',
  progress: (f) => benchProgress(f),
  // Lying on the bench: the torso within 35 deg of horizontal, or pointing at the camera.
  gate: (f) => bodyLying(f, 35),
  gateDescription: 'lying: torso within 35 deg of horizontal',
  rules: [
    rule({
      id: 'bench-depth', category: 'range_of_motion', name: 'Bar not reaching the chest',
      correction: 'Lower the bar under control until it touches the lower chest before pressing.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = extreme(rep, handsOverShoulders, 'min');
        if (!Number.isFinite(value)) return undefined;
        // With the bar on the chest the forearms stand vertical over elbows just below the
        // shoulders: the hands sit about 0.4-0.5 arm lengths above the shoulder joints.
        return judge.fault(value - 0.55, 0.1, 0.2, { evidence: index, description: `The hands stopped ${round(value * 100)}% of an arm length above the shoulders.` });
      },
      strength: { category: 'range_of_motion', name: 'Full range', description: 'Bar touched the chest.' },
    }),
    rule({
      id: 'bench-lockout', category: 'range_of_motion', name: 'Incomplete lock-out',
      correction: 'Press until the elbows are straight over the shoulders.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const v = atEnds(rep, elbowAngle);
        if (!Number.isFinite(v)) return undefined;
        return judge.fault(150 - v, 10, 25, { evidence: 0, description: `At the top the elbows opened only to about ${round(v)} deg.` });
      },
      strength: { category: 'range_of_motion', name: 'Locked out', description: 'Arms straight at the top.' },
    }),
    rule({
      id: 'bench-uneven', category: 'symmetry', name: 'Uneven arms',
      correction: 'Press both hands at the same speed so the bar stays level.',
      views: ['front'],
      check(rep, judge) {
        const { value, index } = extreme(rep, wristImbalance, 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 0.15, 0.1, 0.2, { evidence: index, description: `One hand ran ${round(value * 100)}% of an arm length behind the other.` });
      },
      strength: { category: 'symmetry', name: 'Level bar', description: 'Both arms pressed together.' },
    }),
    bounceRule('bench-press'),
  ],
};
