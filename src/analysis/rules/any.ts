// `any`: a repeated movement the catalog has no definition for. The same pipeline as every exercise
// (gate, progress, counting with the clip's own range and period, per-rep judging, feedback), with
// the progress signal found from the pose itself: the whole-body movement along which the pose
// varies most (movement.ts), scaled to the set's own range. Nothing about the exercise is assumed,
// so the only judgments are the ones that need no knowledge of it: range of motion and tempo
// against the set's own best repetitions. Form faults are reported as not checked.
import type { Calibration, ExerciseDef, FrameCtx } from '../exercise.js';
import { bodyFeatures, principalAxis, restLevel, sidesInPhase, typicalSpan } from '../movement.js';
import { pairPoint, quantile } from '../signals.js';
import { graded, round, rule } from './common.js';
import { halfWindow, perFrame, storePerFrame } from './body.js';

/**
 * Smallest span of the principal movement (torso lengths over all joints) read as a movement at
 * all: a person standing still moves less than this, and their noise must not count as reps.
 */
const MIN_SPAN = 0.15;

/**
 * Least rise of a repetition of the principal movement, torso lengths (the joints that move most,
 * together): a body waiting moves less. The signal is scaled to the set's own range, so a person
 * holding still, swaying, breathing, drifting a little, stepping aside, has noise read as whole
 * repetitions: 39 of 63 takes of the start position held and 43 of 63 of a rest position counted
 * 1-15 (bench/still-sweep.ts; 36 and 34 with this), their "reps" rising 0.15 torso lengths at the
 * median (0.08 at the lower quartile). The real reps of the tuning clips counted as `any` rise
 * 0.16 or more (a push-up seen from the side, whose joints move with the hips); a calf raise with
 * the feet in the picture about 0.19 (the hips and both ankles 5.5 cm), so the floor is under both.
 * What it cannot tell from a rep: a look at the phone (the upper body leaning 15 deg, 0.3-0.5),
 * and a slow drift 8% of the way into the movement (0.24 for the sweep's arms-and-knees movement).
 */
const MIN_MOVE = 0.12;

/** A joint unseen this long (seconds) is out of the picture, not flickering (movement.ts principalAxis). */
const LOST_S = 0.25;

/** A valid repetition reaching less than this share of the set's best reps' peak is flagged. */
const RANGE_SHARE = 0.75;

/** Below this, the sides move in opposition (sidesInPhase): each half of the cycle is a repetition. */
const ALTERNATING = -0.3;

export function anyCalibration(frames: FrameCtx[]): Calibration {
  // Baseline over 3 s either side: longer than a slow repetition's half, shorter than a setup.
  const { series: s, axis } = principalAxis(bodyFeatures(frames), halfWindow(frames, 3), halfWindow(frames, LOST_S));
  const lo = quantile(s, 0.05), hi = quantile(s, 0.95);
  // A repetition's span, from windows of about two repetitions (2 s either side). Three quarters
  // of it is 1, so a typical repetition reads about 1.3: the counter holds readings past 1.6 (a
  // walk into the frame, a weight lifted into place) at 1.6, and reps must still clear its 55%.
  const span = Math.max(0.75 * typicalSpan(s, halfWindow(frames, 2)), MIN_SPAN);
  // Rest is where the person dwells: a brief dip below it (putting a weight down after the set)
  // must not become the rest every repetition is measured from.
  const rest = restLevel(s, lo, hi);
  const cal = storePerFrame({ span }, 'movement', frames, s.map((x) => Math.max(x, rest) - rest).map((x) => x / span));
  // Sides in opposition: one end of the movement is the left side's repetition, the other end the
  // right side's, so each direction is counted as its own side.
  const alternating = sidesInPhase(axis) < ALTERNATING;
  storePerFrame(cal, 'left', frames, s.map((x) => (alternating ? (x - lo) / span : NaN)));
  storePerFrame(cal, 'right', frames, s.map((x) => (alternating ? (hi - x) / span : NaN)));
  return cal;
}

const median = (xs: number[]) => quantile(xs, 0.5);

export const anyMovement: ExerciseDef = {
  id: 'any',
  name: 'Any repeated movement',
  description: 'Counts the repetitions of any movement the catalog does not name, from the whole-body pose over time (the joints that move most, and the rhythm they repeat). Each attempt comes with its times and whether it was a complete cycle; quality is judged only on range of motion and tempo against the set\'s own best repetitions, and exercise-specific form is not checked. Film square to the plane of the movement (from the side for a forward-and-back movement, from the front for a sideways one), 2-4 m away, with the whole body in frame for the whole set.',
  recommendedAngle: 'side',
  angleAdvice: 'Film with the whole body in frame, square to the plane the movement happens in: from the side for movements forward and back (hinges, swings, rows), from the front for movements out to the sides (jacks, raises). A movement toward or away from the camera is the hardest to count.',
  filmingAdvice: 'Place the camera 2-4 m away at hip height with the whole body in frame for the whole set, one person in view, and start recording before the first repetition.',
  signal: 'the first principal component of the joints\' positions (relative to the hips, in torso lengths, plus the hips\' height), scaled to the set\'s own 5%-95% range',
  calibrate: anyCalibration,
  minRise: (cal) => MIN_MOVE / cal.span!,
  progress: (f, cal) => perFrame(cal, 'movement', f),
  // Read only when the sides move in opposition (NaN otherwise, so the whole movement counts).
  progressSides: (f, cal) => [perFrame(cal, 'left', f), perFrame(cal, 'right', f)],
  alternatingSides: true,
  gate: (f) => !!pairPoint(f.p, 'shoulder') && !!pairPoint(f.p, 'hip'),
  gateDescription: 'a person in view (shoulders and hips seen)',
  formNotChecked: 'Form faults are not checked for a movement the catalog does not name: only the range of motion and the tempo against the set\'s own best repetitions are judged. Pick the exercise from the catalog, when it is there, to have its form judged.',
  rules: [
    rule({
      id: 'any-range', category: 'range_of_motion', name: 'Shorter than the best repetitions',
      correction: 'Move through the same full range on every repetition as on your best ones.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        // The set's best repetitions: the upper quartile of its valid reps' peaks.
        const best = quantile(rep.setPeaks ?? [], 0.75);
        if (!rep.valid || !((rep.setPeaks?.length ?? 0) >= 3) || !(best > 0)) return undefined;
        const share = rep.peakProgress / best;
        return judge.fault(RANGE_SHARE - share, 0.15, 0.3, { evidence: rep.peak, description: `This repetition covered about ${round(share * 100)}% of the range of the set's best repetitions.` });
      },
      strength: { category: 'range_of_motion', name: 'Consistent range', description: 'Moved through the same range as the set\'s best repetitions.' },
    }),
    rule({
      id: 'any-tempo', category: 'tempo', name: 'Tempo off the set\'s rhythm',
      correction: 'Keep every repetition at the same steady tempo as the rest of the set.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const typical = median(rep.setDurationsS ?? []);
        if (!rep.valid || !((rep.setDurationsS?.length ?? 0) >= 3) || !(typical > 0)) return undefined;
        const ratio = rep.durationS / typical;
        // The margin is past the nearer end of the 0.6-1.6 band.
        if (judge.pastLimit(Math.max(0.6 - ratio, ratio - 1.6), 0.2) <= 0) return null;
        const faster = ratio < 0.6;
        return { ...graded(faster ? 0.6 - ratio : ratio - 1.6, 0.2, 0.6), evidence: rep.peak,
          description: `This repetition took ${rep.durationS.toFixed(1)} s against ${typical.toFixed(1)} s typical for the set: ${faster ? 'rushed' : 'much slower'}.` };
      },
      strength: { category: 'tempo', name: 'Steady tempo', description: 'Kept the set\'s rhythm.' },
    }),
  ],
};
