// Pull-up: hanging from a bar, the body rises until the chin clears the hands. The signal is how
// far the shoulders climb toward the hands, in arm lengths, blended with the elbow bend: both read
// from the front, the back and the side, and neither needs the bar itself to be seen. A set whose
// hands the picture cuts off (a phone close by, or high up, loses the bar's hands) is read on the
// elbows' height against the shoulders instead.
import type { Calibration, ExerciseDef, FrameCtx } from '../exercise.js';
import { KP } from '../pose.js';
import { joint, pairPoint, quantile, VISIBLE, type Side } from '../signals.js';
import { atEnds, elbowAngle, extreme, round, sustained, torsoLean, rule } from './common.js';
import { handsInPicture } from './in-picture.js';
import { dist3 } from './reach.js';

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

/** Hands this far under the shoulders, in arm lengths, are off the bar (the gate). */
const HANDS_BELOW = -0.3;

/** The sides whose shoulder and elbow are both seen. */
const armSides = (f: FrameCtx): Side[] => (['left', 'right'] as const).filter((s) => Math.min(f.p[joint(s, 'shoulder')]!.score, f.p[joint(s, 'elbow')]!.score) >= VISIBLE);

/** Shoulder to elbow with depth, pixels: the mean over the sides seen. */
export function upperArm(f: FrameCtx): number {
  const sides = armSides(f);
  return sides.length ? sides.reduce((a, s) => a + dist3(f.p[joint(s, 'shoulder')]!, f.p[joint(s, 'elbow')]!), 0) / sides.length : NaN;
}

/**
 * Elbows above the shoulders, pixels (the sides seen; negative below): the upper arm stands
 * straight up in a dead hang and is driven down to the ribs at the top, a vertical travel that
 * reads from every side, as the shoulders' climb to the hands does.
 */
export function elbowsAbovePx(f: FrameCtx): number {
  const sides = armSides(f);
  return sides.length ? sides.reduce((a, s) => a + f.p[joint(s, 'shoulder')]!.y - f.p[joint(s, 'elbow')]!.y, 0) / sides.length : NaN;
}

/**
 * Share of the frames with an elbow seen on which the hands must be seen for the set to be read on
 * them. A phone 1.5 m away or 2 m up cuts off the hands on the bar: they were seen on 0-30% of the
 * frames of the camera sweep's missed sets (bench/camera-sweep.ts --phone: 47 of 63 exact), the gate
 * (hands above the shoulders) held on as few, and those sets counted 0-6 of 3-12.
 */
const HANDS_SEEN = 0.8;

/**
 * The upper arm's height against the shoulder at the two ends of a pull, in its own lengths:
 * about straight up (0.95) hanging; at the top the elbows are by the ribs, 30-50 deg below the
 * shoulder line (-0.5 to -0.75). 0.95 to -0.5 is the pull from 0 to 1, as the climb's 0.95 to 0.25.
 */
const ELBOW_HANG = 0.95, ELBOW_TOP = -0.5;

/** The pull read on the elbows: 0 hanging, 1 with the elbows driven down by the ribs, `upper` the person's upper arm, pixels. */
export function elbowPull(f: FrameCtx, upper: number): number {
  return (ELBOW_HANG - elbowsAbovePx(f) / upper) / (ELBOW_HANG - ELBOW_TOP);
}

/**
 * The set is read on the elbows when the hands are seen on fewer than HANDS_SEEN of the frames
 * with an elbow seen; `upper` is then the person's upper arm, the 0.85 quantile of its length with
 * depth over those frames (the arm foreshortened toward the camera reads shorter, never longer).
 */
export function calibratePull(frames: FrameCtx[]): Calibration {
  const elbows = frames.filter((f) => armSides(f).length > 0);
  const hands = elbows.filter((f) => Number.isFinite(handsAbove(f))).length;
  if (elbows.length && hands < HANDS_SEEN * elbows.length) {
    const upper = quantile(elbows.map(upperArm), 0.85);
    if (upper > 0) return { byElbows: 1, upper };
  }
  return {};
}

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
  calibrate: calibratePull,
  progress: (f: FrameCtx, cal: Calibration) => {
    if (!cal.byElbows) return pullProgress(f);
    // Both readings are the same pull on one scale (0 hanging, 1 at the top): a frame whose elbows
    // are unseen but whose hands are (the elbow of the far arm hidden, the near one out of the
    // picture) keeps the hands' reading rather than leaving a gap in the middle of the rep.
    const e = elbowPull(f, cal.upper!);
    return Number.isFinite(e) ? e : pullProgress(f);
  },
  // With the hands out of the picture the elbows stand in for them (see HANDS_SEEN); standing still
  // under the bar is no movement to count. A pull taken to the chest brings the hands down to the
  // shoulders' height (0 to -0.1 arm lengths on the sweep's body) while the elbows are seen driven
  // down: gated out there, the top of every rep was a gap, and a set whose hangs were out of the
  // picture too read each rep as two (a landscape phone 1 m up and 1.5 m away: 10 of 6). Only hands
  // seen clearly under the shoulders (arms hanging, hands on the hips) say the person is not on the bar.
  gate: (f) => hanging(f) || (!(handsAbove(f) <= HANDS_BELOW) && armSides(f).length > 0),
  gateDescription: 'hanging: hands above the shoulders (or, with an elbow seen, the hands unseen or no lower than 0.3 arm lengths under the shoulders)',
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
