// The shape every exercise definition (rules/<exercise>.ts) fills in, and the per-frame context the
// definitions read. Keeping exercises as data + small pure functions is what lets one engine serve
// the whole catalog.
import type { AnyPose, Keypoint } from './pose.js';
import { dist, fitPoses, joint, limbLength, onBestSide, pairPoint, smoothPoses, windowedScale } from './signals.js';
import type { Thresholds } from './reps.js';

export type CameraAngle = 'front' | 'side' | 'diagonal';

/** One smoothed frame plus body-scale references that make ratios independent of distance. */
export interface FrameCtx {
  t: number;
  p: Keypoint[];
  /**
   * The same keypoints from a local quadratic fit (signals.ts fitPoses), which keeps the height of
   * a fast rep's turn that `p`'s smoothing flattens: what the rules read a rep's extreme on
   * (rules/common.ts heldFor). Counting and the view read `p`.
   */
  fitted: Keypoint[];
  /** Hip-knee-ankle length (thigh + shin) as the person's true leg length, pixels. */
  legLen: number;
  /** Shoulder-elbow-wrist length, pixels. */
  armLen: number;
  /** Shoulder-midpoint to hip-midpoint, pixels. */
  torsoLen: number;
  /** Hip-knee length on the best-seen side, pixels: a leg scale when the feet are out of frame. */
  thighLen: number;
}

export function buildContext(frames: readonly AnyPose[], fps: number): FrameCtx[] {
  const smooth = smoothPoses(frames, fps);
  const half = Math.round(5 * fps);
  const raw = (f: (p: Keypoint[]) => number) => smooth.map(f);
  const legLen = windowedScale(raw((p) => limbLength(p, 'hip', 'knee', 'ankle')), half);
  const armLen = windowedScale(raw((p) => limbLength(p, 'shoulder', 'elbow', 'wrist')), half);
  const torsoLen = windowedScale(raw((p) => {
    const s = pairPoint(p, 'shoulder'), h = pairPoint(p, 'hip');
    return s && h ? dist(s, h) : NaN;
  }), half);
  const thighLen = windowedScale(raw((p) => onBestSide(p, ['hip', 'knee'], (s) => dist(p[joint(s, 'hip')]!, p[joint(s, 'knee')]!))), half);
  const fitted = fitPoses(frames, smooth, fps);
  return smooth.map((p, i) => ({ t: frames[i]!.timeMs, p, fitted: fitted[i]!, legLen: legLen[i]!, armLen: armLen[i]!, torsoLen: torsoLen[i]!, thighLen: thighLen[i]! }));
}

export type Severity = 'minor' | 'moderate' | 'major';

export interface Finding {
  severity: Severity;
  /**
   * Score impact (negative) when the rule grades how far past its limit the rep went (see
   * rules/common.ts graded); without it the severity's fixed impact applies.
   */
  impact?: number;
  /** The sentence for this rep, with the measured value. */
  description: string;
  /** Index (into the rep's frames) of the frame that shows the fault. */
  evidence: number;
}

/** The frames of one attempt plus where its extremes are. */
export interface RepView {
  frames: FrameCtx[];
  /** Index in `frames` of the deepest / highest point. */
  peak: number;
  peakProgress: number;
  valid: boolean;
  durationS: number;
  /** Frames per second the clip was read at (the rep's frames are on its grid); from `durationS` when absent. */
  fps?: number;
  view: CameraAngle;
  /** The exercise's progress signal over the rep's frames (NaN where unseen), when known. */
  progress?: number[];
  /** Durations of the set's valid repetitions, seconds: tempo judged against the set's own. */
  setDurationsS?: number[];
  /** Peak progress of the set's valid repetitions: range judged against the set's best. */
  setPeaks?: number[];
  /**
   * The picture's size in pixels, when known: a joint the frame cuts off is placed where the pose
   * model guesses, often with a high score, so rules that read it check it is inside (rules/in-picture.ts).
   */
  picture?: Picture;
  /**
   * The rep ends at its peak, where a set done from the far end of the range is home (reps.ts
   * Attempt.endsAtFar): its frames hold no way back to rest, so rules that read it (`readsReturn`)
   * are not checked on it.
   */
  endsAtFar?: boolean;
}

/** Width and height of the video's picture, pixels (the keypoints' coordinate space). */
export interface Picture {
  width: number;
  height: number;
}

export interface FormRule {
  id: string;
  category: string;
  name: string;
  correction: string;
  /**
   * Views from which this fault can be judged; elsewhere the rule is skipped, not passed. A rule
   * judged from the front is judged from the back too (the frontal plane shows the same, mirrored),
   * with the front's variant, unless it reads the face (`readsFace`). See view.ts `judgedFrom`.
   */
  views: CameraAngle[];
  /** The rule reads the face (nose, eyes, chin), which a back view does not show. */
  readsFace?: boolean;
  /**
   * The rule reads the way back from the peak to rest (its tempo, the lockout it ends in): a rep
   * that ends at its peak (RepView.endsAtFar) does not show it, and the rule is not checked there.
   */
  readsReturn?: boolean;
  /** A finding when the fault is present, null when the rep is fine, undefined when unmeasurable. */
  check(rep: RepView): Finding | null | undefined;
  /** Reported as a strength when the rule was checked and passed. */
  strength: { category: string; name: string; description: string };
}

export interface ExerciseDef {
  id: string;
  name: string;
  description: string;
  recommendedAngle: CameraAngle;
  /** Why that angle, said to the partner. */
  angleAdvice: string;
  /** How to film so the person can be judged, when they could not be. */
  filmingAdvice: string;
  /** What the rep signal measures, for the docs. */
  signal: string;
  /**
   * Per-clip references (e.g. the standing hip height) measured from the whole series, so the
   * signal adapts to camera distance and perspective instead of to tuned constants.
   */
  calibrate?(frames: FrameCtx[]): Calibration;
  /** 0 at rest, 1 at the full range of motion, NaN when the body parts are unseen. */
  progress(f: FrameCtx, cal: Calibration): number;
  /**
   * The same progress for the left and the right side alone, for exercises that may be done one
   * side at a time (alternating curls, raises, presses): each side is counted on its own and the
   * repetitions merged, so alternating reps are not read as one long rep.
   */
  progressSides?(f: FrameCtx, cal: Calibration): [number, number];
  /**
   * Each side's repetitions are repetitions of their own even when they overlap in time (the
   * left knee drives while the right one returns in mountain climbers): never merged into one.
   */
  alternatingSides?: boolean;
  /**
   * The joints the progress reads are only guessed on this frame: seen, but not surely (the model
   * places a hand hidden behind the torso somewhere instead of calling it unseen, and which of the
   * two it does depends on which way the person faces). A rep whose top is read on guessed frames
   * has no measured height: its validity rests on the set's own range (counting.ts).
   */
  guessed?(f: FrameCtx): boolean;
  /**
   * The least rise of a repetition on this exercise's own signal, from where it began and to where
   * it ended (counting.ts MIN_RISE, which is the floor for all): a movement of less is the body
   * waiting, not this exercise (bench/still-sweep.ts). Only where the signal's noise on a body
   * held still is larger than the generic floor, and every real repetition's rise clears it. A
   * function reads it from a shot's calibration (`any`, whose signal is scaled to the set's range).
   */
  minRise?: number | ((cal: Calibration) => number);
  thresholds?: Thresholds;
  /** Frames per second to analyse when the default is too few for the movement's speed. */
  sampleFps?: number;
  /** Posture that must hold while a rep is done (e.g. body horizontal for push-ups). */
  gate(f: FrameCtx): boolean;
  gateDescription: string;
  rules: FormRule[];
  /** Said instead of form verdicts when the definition has no exercise-specific rules (`any`). */
  formNotChecked?: string;
}

export type Calibration = Record<string, number>;

/** The gated progress series the segmenter reads. */
export function progressSeries(def: ExerciseDef, frames: FrameCtx[], cal: Calibration = def.calibrate?.(frames) ?? {}): number[] {
  return frames.map((f) => (def.gate(f) ? def.progress(f, cal) : NaN));
}
