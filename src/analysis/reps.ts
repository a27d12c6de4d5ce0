// Repetition segmentation: hysteresis on a normalised progress signal (0 = rest, 1 = full range),
// with frames that fail the exercise's posture gate treated as "not doing the exercise". Pure.

export interface Thresholds {
  /** Progress above which an attempt begins. */
  enter: number;
  /** Progress below which the attempt has returned to rest. */
  exit: number;
  /** Progress an attempt must reach to count as a full repetition. */
  full: number;
}

export const defaultThresholds: Thresholds = { enter: 0.35, exit: 0.2, full: 0.75 };

/** Longest gap looked through as the person lost from view mid-rep (see maxBridgeS), seconds. */
export const MAX_BRIDGE_S = 2.5;

export interface Attempt {
  /** Frame indices into the series. */
  start: number;
  peak: number;
  end: number;
  peakProgress: number;
  /** Came back to rest before the clip ended or the posture was lost. */
  returned: boolean;
  /** Reached full range and returned: counts as a repetition. */
  valid: boolean;
  /** The series opened inside this attempt: its start (the way from rest) was never seen. */
  opensClip?: boolean;
  /**
   * Its top fell in a gap of the signal and the set's rhythm says a rep was there (counting.ts
   * unseenReps): counted, its height not measured.
   */
  unseenTop?: boolean;
  /**
   * Counted as back home at the far end of the range (counting.ts homeAtFull: a set done from
   * there, its last rep ending at its peak as the clip ends): the way back to rest is not in it.
   */
  endsAtFar?: boolean;
  /**
   * Rose less than counting.ts MIN_RISE from its ends: sway or keypoint
   * noise, not an attempt. Not valid; dropped once the set is counted (pipeline.ts).
   */
  tooSmall?: boolean;
}

export interface SegmentOptions {
  thresholds?: Thresholds;
  /** Frames per second of the series; gap and duration limits are in seconds. */
  fps: number;
  /** An attempt interrupted by this long a gap (gate failing, person unseen) is closed. */
  maxGapS?: number;
  /**
   * A longer gap, up to this, is looked through when the signal reads mid-repetition before it:
   * the person was lost from view (a burpee's plank from the front hides the feet, the legs
   * leave the picture) in the middle of a rep, not doing something else; the rep goes on after
   * it, or, having reached full range before it, is over if the signal is back at rest. And a rest
   * reading this far back, across such a gap, is where a rep first seen mid-way began.
   */
  maxBridgeS?: number;
  /** Shorter excursions are noise, not attempts. */
  minDurationS?: number;
  /** At the clip's end, an attempt this close to rest counts as returned. */
  endSlack?: number;
  /**
   * An excursion the series opens in (nothing read before it but more of it) is an attempt,
   * started at its first reading: the clip began mid-repetition. Off by default, since in a set
   * such a fragment is the tail of a rep done before the recording (see `countSeries`).
   */
  openStart?: boolean;
  /**
   * An excursion whose whole upper part went unseen is an attempt too, though no reading seen
   * crossed `enter`: the series went out of sight past `exit` and came back past it after at least
   * this many frames (up to `maxBridgeS`). A row filmed from behind hides the hands behind the torso
   * as soon as they are pulled in, at a third of the pull or less. Off by default; whether such an
   * attempt counts is for the caller (counting.ts hiddenTop).
   */
  hiddenTopFrames?: number;
}

/**
 * `progress[i]` is NaN where the posture gate fails or the body is unseen. An attempt that the gate
 * interrupts before it reached full range is dropped: it was something else (standing up, picking
 * up a weight), not an attempt at the exercise.
 */
export function segmentReps(progress: number[], opts: SegmentOptions): Attempt[] {
  const th = opts.thresholds ?? defaultThresholds;
  const maxGap = Math.max(1, Math.round((opts.maxGapS ?? 0.6) * opts.fps));
  const maxBridge = Math.max(maxGap, Math.round((opts.maxBridgeS ?? MAX_BRIDGE_S) * opts.fps));
  const minDur = Math.max(1, Math.round((opts.minDurationS ?? 0.3) * opts.fps));
  const attempts: Attempt[] = [];
  let active = false;
  let start = 0, peak = 0, gap = 0, lastFinite = 0;
  let restFrom = 0; // first frame after the previous attempt, where the next start is searched
  let restBefore = false; // the frame before restFrom is rest: the previous attempt returned there
  let opened = false; // the active attempt is one the series opened in (openStart)

  const close = (end: number, returned: boolean) => {
    active = false;
    const peakProgress = progress[peak]!;
    const reachedFull = peakProgress >= th.full;
    if (end - start >= minDur && (returned || reachedFull)) {
      attempts.push({ start, peak, end, peakProgress, returned, valid: reachedFull && returned, ...(opened ? { opensClip: true } : {}) });
    }
    opened = false;
    restFrom = end + 1;
    restBefore = returned;
  };

  const closeAtGap = () => close(lastFinite, progress[lastFinite]! <= (opts.endSlack ?? 0.25));

  // Frame i comes back past `exit` from a gap it went into past `exit` (see hiddenTopFrames).
  const backFromUnseenTop = (i: number) => {
    if (!opts.hiddenTopFrames || !(progress[i]! >= th.exit)) return false;
    let j = i - 1;
    while (j >= restFrom && !Number.isFinite(progress[j]!)) j--;
    const unseen = i - 1 - j;
    return j >= restFrom && unseen >= opts.hiddenTopFrames && unseen <= maxBridge && progress[j]! >= th.exit;
  };

  for (let i = 0; i < progress.length; i++) {
    const v = progress[i]!;
    if (!active) {
      if (Number.isFinite(v) && (v > th.enter || backFromUnseenTop(i))) {
        // The attempt started at the lowest point since the last one (where the movement began).
        // Short unseen gaps are looked through; if no rest position is found before the crossing,
        // the movement began before the person came into view (a title card, the clip's start)
        // and it is not an attempt we can judge. A gap up to `maxBridge` is looked through, as
        // during a rep: the start of a rep went unseen (the legs out of the picture for a second).
        start = i;
        let sawRest = false;
        let j = i - 1;
        for (let holes = 0; j >= restFrom && holes <= maxBridge; j--) {
          const pj = progress[j]!;
          if (!Number.isFinite(pj)) { holes++; continue; }
          holes = 0;
          if (pj <= th.enter) sawRest = true;
          if (pj <= progress[start]!) start = j;
          if (pj <= 0.05) break;
        }
        // Back to the previous attempt across nothing but a gap: it ended at rest, so this one
        // began there, unseen (the person out of view between two reps).
        if (!sawRest && restBefore && j < restFrom && i - restFrom <= maxBridge) {
          sawRest = true;
          start = restFrom;
        }
        if (!sawRest && opts.openStart && restFrom === 0 && progress.slice(0, i).every((p) => !Number.isFinite(p) || p > th.enter)) {
          // The clip opens in this excursion: it starts at the first reading.
          start = progress.findIndex(Number.isFinite);
          sawRest = opened = true;
        }
        if (!sawRest) {
          // Wait for this excursion to end before looking for the next attempt.
          while (i + 1 < progress.length && !(progress[i + 1]! < th.exit)) i++;
          restFrom = i + 1;
          continue;
        }
        active = true;
        peak = i; gap = 0; lastFinite = i;
      }
      continue;
    }
    if (!Number.isFinite(v)) {
      gap++;
      continue;
    }
    // A gap begun mid-rep is looked through when the rep goes on after it, or when the rep had
    // reached full range before it and the signal is back at rest after it: its return went
    // unseen (the legs out of the picture for a second). Short of full range, it was something else.
    const bridged = gap <= maxBridge && progress[lastFinite]! > th.exit && (v > th.exit || progress[peak]! >= th.full);
    if (gap > maxGap && !bridged) {
      // Too long a gap, or one that began at rest, or one after which an attempt short of full range
      // is over: the attempt ended where the person was last seen, and this frame is looked at
      // afresh. Like a clip's end, a gap that starts when the rep is nearly back at rest (within
      // `endSlack`) ends a rep done.
      closeAtGap();
      gap = 0;
      i--;
      continue;
    }
    gap = 0; lastFinite = i;
    if (v > progress[peak]!) peak = i;
    if (v < th.exit) {
      // Follow the descent to its lowest point so the rep ends where the rest begins.
      let end = i;
      while (end + 1 < progress.length && Number.isFinite(progress[end + 1]!) && progress[end + 1]! < progress[end]! && progress[end + 1]! < th.exit) end++;
      close(end, true);
      i = end;
    }
  }
  // The clip ended mid-attempt, or the person left the view before it ended. Nearly back at rest
  // (within `endSlack`) still counts as returned: the last frames of a clip often fall just short
  // of the full lock-out.
  if (active) closeAtGap();
  return attempts;
}
