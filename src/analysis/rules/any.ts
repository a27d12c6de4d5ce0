// `any`: a repeated movement the catalog has no definition for. The same pipeline as every exercise
// (gate, progress, counting with the clip's own range and period, per-rep judging, feedback), with
// the progress signal found from the pose itself: the whole-body movement along which the pose
// varies most (movement.ts), scaled to the set's own range. Nothing about the exercise is assumed,
// so the only judgments are the ones that need no knowledge of it: range of motion and tempo
// against the set's own best repetitions. Form faults are reported as not checked.
import type { Calibration, ExerciseDef, FrameCtx } from '../exercise.js';
import { bodyFeatures, principalMovement, typicalSpan } from '../movement.js';
import { pairPoint, quantile } from '../signals.js';
import { grade, round } from './common.js';
import { halfWindow, perFrame, storePerFrame } from './body.js';

/**
 * Smallest span of the principal movement (torso lengths over all joints) read as a movement at
 * all: a person standing still moves less than this, and their noise must not count as reps.
 */
const MIN_SPAN = 0.15;

/** A valid repetition shorter than this share of the set's best range is flagged (0.8 = 80%). */
const RANGE_SHARE = 0.75;

export function anyCalibration(frames: FrameCtx[]): Calibration {
  // Baseline over 3 s either side: longer than a slow repetition's half, shorter than a setup.
  const s = principalMovement(bodyFeatures(frames), halfWindow(frames, 3));
  const lo = quantile(s, 0.05);
  // A repetition's span, from windows of about two repetitions (2 s either side).
  const span = Math.max(typicalSpan(s, halfWindow(frames, 2)), MIN_SPAN);
  return storePerFrame({}, 'movement', frames, s.map((x) => (x - lo) / span));
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
  progress: (f, cal) => perFrame(cal, 'movement', f),
  gate: (f) => !!pairPoint(f.p, 'shoulder') && !!pairPoint(f.p, 'hip'),
  gateDescription: 'a person in view (shoulders and hips seen)',
  formNotChecked: 'Form faults are not checked for a movement the catalog does not name: only the range of motion and the tempo against the set\'s own best repetitions are judged. Pick the exercise from the catalog, when it is there, to have its form judged.',
  rules: [
    {
      id: 'any-range', category: 'range_of_motion', name: 'Shorter than the best repetitions',
      correction: 'Move through the same full range on every repetition as on your best ones.',
      views: ['side', 'diagonal', 'front'],
      check(rep) {
        // Progress is scaled to the set's own range (its 95th percentile: its best repetitions).
        if (!rep.valid || rep.peakProgress >= RANGE_SHARE) return null;
        return { severity: grade(RANGE_SHARE - rep.peakProgress, 0.15, 0.3), evidence: rep.peak, description: `This repetition covered about ${round(rep.peakProgress * 100)}% of the range of the set's best repetitions.` };
      },
      strength: { category: 'range_of_motion', name: 'Consistent range', description: 'Moved through the same range as the set\'s best repetitions.' },
    },
    {
      id: 'any-tempo', category: 'tempo', name: 'Tempo off the set\'s rhythm',
      correction: 'Keep every repetition at the same steady tempo as the rest of the set.',
      views: ['side', 'diagonal', 'front'],
      check(rep) {
        const typical = median(rep.setDurationsS ?? []);
        if (!rep.valid || !((rep.setDurationsS?.length ?? 0) >= 3) || !(typical > 0)) return undefined;
        const ratio = rep.durationS / typical;
        if (ratio >= 0.6 && ratio <= 1.6) return null;
        const faster = ratio < 0.6;
        return { severity: grade(faster ? 0.6 - ratio : ratio - 1.6, 0.2, 0.6), evidence: rep.peak,
          description: `This repetition took ${rep.durationS.toFixed(1)} s against ${typical.toFixed(1)} s typical for the set: ${faster ? 'rushed' : 'much slower'}.` };
      },
      strength: { category: 'tempo', name: 'Steady tempo', description: 'Kept the set\'s rhythm.' },
    },
  ],
};
