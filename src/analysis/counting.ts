// Counting that adapts to the clip instead of to tuned constants. The exercise's progress signal
// (0 rest, 1 full range, by the body's own proportions) is first re-expressed relative to the
// range this person actually moves through in each shot, so a seated press whose "rest" already
// reads 0.4, or a model that reads a push-up bottom 20 deg short, still crosses the hysteresis
// thresholds; the absolute signal still decides whether a rep reached enough range to be valid.
// Then attempts that hide two repetitions (the signal dipped but not to rest, as fast jumping jacks
// do) are split at deep valleys; with the clip's period known (periodicity.ts) long attempts split
// at shallower dips and reps read twice within half a period merge; and the repetitions of each
// side are merged for exercises done one arm at a time. Each shot (cuts: shots.ts) has its own
// range, and the count runs across shots. Pure: tested on synthetic series.
import { MAX_BRIDGE_S, segmentReps, type Attempt, type Thresholds } from './reps.js';
import { averageAround, POSE_SMOOTH_S, quantile } from './signals.js';

/**
 * Hysteresis thresholds in units of the shot's own range (0 = its rest, 1 = its typical peak). A
 * rep reaching 55% of the set's typical range counts: a shallower rep in a set is still a rep to
 * whoever counts it (its range rule flags it); 0.65 lost such reps when the same clip was filmed
 * closer (bench/augment.ts).
 */
export const relativeThresholds: Thresholds = { enter: 0.4, exit: 0.25, full: 0.55 };

/** A shot whose progress spans less than this (absolute) has no repetitions: it is noise. */
export const MIN_RANGE = 0.3;

/**
 * A valid repetition reaches at least this much of the absolute range (besides the relative one).
 * Low on purpose: people count a shallow rep in a set as a rep (the labels of quarter-depth squats
 * do), so a short one is counted and its range rule says what was missing; the floor only keeps
 * out movements that are not the exercise at all. (0.65 dropped shallow reps under a mirrored or
 * darker picture: bench/augment.ts.)
 */
export const ABS_FLOOR = 0.45;

/**
 * An attempt rises at least this much of the absolute range from where it began and to where it
 * ended (the higher of the two, riseBase). The signal's 0-1 is the person's own range, by the
 * body's own proportions; less is sway, breathing or keypoint noise, not an attempt at the
 * exercise, and is dropped from the repetitions. The relative thresholds see a body held still as
 * a shot whose range is MIN_RANGE's, so 0.12 over its rest reads as an attempt: main read 1-4 such
 * "attempts" on most takes of a person standing still (bench/still-sweep.ts), each a repetition in
 * the result with its own verdicts. Low because a real rep's reading is foreshortened square-on:
 * first-nine-faults' shallow lunge (the hips 27 of 72 down) reads 0.20-0.28 from behind, the
 * shallow side lunge (25 of 70) 0.16-0.24 from the front, and the same lunge by a body with a long
 * torso 0.14-0.15 (builds.unit), and each must stay a partial repetition. Repetitions whose top was
 * not measured (out of sight, guessed, or expected by the rhythm) are not judged by it.
 *
 * Tried, not kept (docs/engine.md, "Nothing counted when nothing is done"): 0.25, which dropped
 * those shallow lunges; 0.25 for a valid rep, under which a crunch set filmed from its feet and a
 * glute bridge from a rear diagonal 2 m up, continuous reps, went from 11 of 11 and 11 of 12 counted
 * to 0 and 2 (bench/camera-sweep.ts); 0.15, which dropped the long torso's.
 */
export const MIN_RISE = 0.1;

/**
 * An attempt the clip opens in counts only when its first reading is this close to rest (in the
 * shot's range): the clip caught the way in, as `endSlack` lets a clip end on the way back.
 */
export const START_SLACK = 0.5;

/**
 * Seconds the person must hold still at the far end of their range as the clip opens for that end
 * to be where the set starts (homeAtFull): a hold, not the turn at the end of a movement the clip
 * caught mid-set (the shared push-up opening at its bottom turns within 0.2 s; the seated press
 * that starts at the top holds it 0.8 s).
 */
export const HOME_HOLD_S = 0.5;

/**
 * Whether the set starts, and so ends, at the far end of the range. Most sets start at rest, the
 * signal's 0 (standing, arms down, the bar racked); a dumbbell press often starts with the arms up,
 * and each rep is then a trip from the top to the shoulders and back: the person is done when back
 * where they began. The counter's attempts run from 0 and back, so such a set shows a fragment at
 * its opening (the way down, not counted) and its last rep as an attempt that never returned to 0,
 * though the person is home (the shared seated press, label 4: three counted, the fourth press up
 * at the clip's end an unfinished attempt). It is read so only when the clip opens with the person
 * holding still there: the readings stay within the hysteresis band (enter - exit, what tells a
 * move from noise) of the opening's top for HOME_HOLD_S, and that top is at full range but not
 * above the set's highest rep by more than that band (a posture beyond the reps, such as standing
 * up from a push-up, is not the far end). A clip cut mid-set that opens on a rep's way back, as
 * people's labels say, is the tail of a rep before the recording: its last rep is not home.
 */
export function homeAtFull(rel: readonly number[], timesMs: readonly number[], repPeaks: readonly number[]): boolean {
  const { enter, exit, full } = relativeThresholds;
  const band = enter - exit;
  const first = rel.findIndex(Number.isFinite);
  if (first < 0 || !repPeaks.length) return false;
  // The opening: the readings past the entry threshold from the first one on, all seen (a hold
  // is what was seen held; the mirrored push-up opening at its bottom loses a frame at 0.17 s).
  let end = first, top = -Infinity;
  while (end < rel.length && rel[end]! > enter) top = Math.max(top, rel[end++]!);
  if (!(top >= full) || top > Math.max(...repPeaks) + band) return false;
  const held = [];
  for (let j = first; j < end; j++) if (rel[j]! >= top - band) held.push(j);
  return held.length > 0 && timesMs[held.at(-1)!]! - timesMs[held[0]!]! >= HOME_HOLD_S * 1000 - 1e-6;
}

/** Index ranges [start, end) of the shots: a new one starts at each hard cut. */
export function shotRanges(n: number, cuts: readonly number[]): [number, number][] {
  const starts = [0, ...[...new Set(cuts)].filter((c) => c > 0 && c < n).sort((a, b) => a - b)];
  return starts.map((s, i) => [s, i + 1 < starts.length ? starts[i + 1]! : n] as [number, number]);
}

/**
 * Rest and peak level of one shot's progress: robust low and high quantiles. Readings far past
 * the full range (over 1.6: someone standing up or kneeling while the gate still passes) are held
 * at 1.6 first, so a few seconds of them cannot push the reference peak above every real rep.
 */
export function shotRange(progress: readonly number[]): { low: number; high: number } {
  const v = progress.filter(Number.isFinite).map((x) => Math.min(x, 1.6));
  return { low: quantile(v, 0.05), high: quantile(v, 0.97) };
}

/**
 * Each shot's progress rescaled to its own range. A shot that barely moves keeps a range of at
 * least MIN_RANGE, so its noise stays below the entry threshold. The rest level is capped so a
 * clip that never shows the rest position (filmed mid-set) is not read as resting at the bottom.
 */
export function relativeSeries(progress: readonly number[], shots: readonly [number, number][]): number[] {
  const out = new Array<number>(progress.length).fill(NaN);
  for (const [a, b] of shots) {
    const part = progress.slice(a, b);
    const { low, high } = shotRange(part);
    if (!Number.isFinite(low) || !Number.isFinite(high)) continue;
    const rest = Math.min(low, 0.6);
    const span = Math.max(high - rest, MIN_RANGE);
    for (let i = a; i < b; i++) out[i] = (progress[i]! - rest) / span;
  }
  return out;
}

/**
 * Splits an attempt at an inner valley that falls well back toward rest between two peaks that
 * each reach full range: the person started the next repetition before the signal read "rest".
 */
export function splitAtValleys(rel: readonly number[], attempts: Attempt[], depth = 0.45): Attempt[] {
  const full = relativeThresholds.full;
  const out: Attempt[] = [];
  for (const at of attempts) {
    const cuts: number[] = [];
    let peak = -Infinity, valley = Infinity, valleyAt = -1, armed = false;
    for (let j = at.start; j <= at.end; j++) {
      const v = rel[j]!;
      if (!Number.isFinite(v)) continue;
      if (!armed) {
        peak = Math.max(peak, v);
        if (peak >= full && peak - v >= depth) { armed = true; valley = v; valleyAt = j; }
      } else {
        if (v < valley) { valley = v; valleyAt = j; }
        if (v >= full && v - valley >= depth) { cuts.push(valleyAt); armed = false; peak = v; }
      }
    }
    const bounds = [at.start, ...cuts, at.end];
    for (let k = 0; k + 1 < bounds.length; k++) {
      const s = bounds[k]!, e = bounds[k + 1]!;
      let pk = s;
      for (let j = s; j <= e; j++) if (Number.isFinite(rel[j]!) && !(rel[j]! <= (rel[pk] ?? -Infinity))) pk = j;
      const last = k + 2 === bounds.length;
      const { opensClip: _o, ...rest } = at;
      out.push({ ...(k === 0 ? at : rest), start: s, peak: pk, end: e, returned: last ? at.returned : true });
    }
  }
  return out;
}

/**
 * Splits an attempt at a gap (frames unseen) with a full peak on each side of it: the rest
 * between two repetitions went unseen (the hands out of the picture at the bottom of a swing), so
 * the gap was looked through as mid-rep and two reps read as one, with no dip read to split at
 * (splitAtValleys). A rep whose top went unseen also reads full on both sides of its gap, so this
 * is only for attempts the clip's period says are too long for one rep (see countSeries).
 */
export function splitAtGaps(rel: readonly number[], attempts: Attempt[]): Attempt[] {
  const full = relativeThresholds.full;
  const out: Attempt[] = [];
  for (const at of attempts) {
    let from = at.start, peakBefore = -Infinity;
    const parts: [number, number][] = [];
    for (let j = at.start; j <= at.end; j++) {
      const v = rel[j]!;
      if (Number.isFinite(v)) { peakBefore = Math.max(peakBefore, v); continue; }
      let k = j;
      while (k <= at.end && !Number.isFinite(rel[k]!)) k++;
      let after = -Infinity;
      for (let m = k; m <= at.end && Number.isFinite(rel[m]!); m++) after = Math.max(after, rel[m]!);
      if (peakBefore >= full && after >= full && j - 1 > from) {
        parts.push([from, j - 1]);
        from = k;
        peakBefore = -Infinity;
      }
      j = k - 1;
    }
    if (!parts.length) { out.push(at); continue; }
    parts.push([from, at.end]);
    const { opensClip: _o, ...rest } = at;
    parts.forEach(([s, e], n) => {
      let pk = s;
      for (let j = s; j <= e; j++) if (Number.isFinite(rel[j]!) && !(rel[j]! <= (rel[pk] ?? -Infinity))) pk = j;
      out.push({ ...(n === 0 ? at : rest), start: s, peak: pk, end: e, returned: n + 1 === parts.length ? at.returned : true });
    });
  }
  return out;
}

/**
 * Repetitions whose top went unseen in a gap of the signal (the legs or hands out of the picture
 * for a second), found from the set's rhythm. Such a rep shows only its edges: the way down read
 * from rest into the gap, or the way back out of it to rest, under the entry threshold (a squat's
 * descent seen to a third of its depth, the legs then out of view, and back at rest when they
 * return), so the hysteresis finds no attempt, or a short one. It is counted when both hold:
 * - the signal is moving at an edge of the gap (past the exit threshold, not at rest): something
 *   began or ended in it; a dropout at rest adds nothing;
 * - the rhythm has room for one rep there and expects one: between two counted reps whose peaks
 *   are about two periods apart (1.5-2.6) with the gap between them, or, at either end of the set,
 *   the gap about a period (0.6-1.5) from the nearest counted rep. The rhythm's reps are those
 *   `counts` says the caller counts: a rep whose own top went out of sight is one (hiddenTop), though
 *   the hysteresis left it unjudged (at 6 fps two such reps of the rear-diagonal row in a row).
 * A gap that hides a whole cycle with rest on both edges (the hands out of view through a jumping
 * jack) is not counted: nothing read says a rep happened there but the rhythm itself.
 */
export function unseenReps(rel: readonly number[], attempts: Attempt[], period: number, maxGap: number, counts: (a: Attempt) => boolean = (a) => a.valid): Attempt[] {
  const exit = relativeThresholds.exit;
  const counted = attempts.filter((a) => a.valid), beats = attempts.filter(counts);
  const added: Attempt[] = [];
  for (let g0 = 1; g0 < rel.length; g0++) {
    if (Number.isFinite(rel[g0]!) || !Number.isFinite(rel[g0 - 1]!)) continue;
    let g1 = g0;
    while (g1 + 1 < rel.length && !Number.isFinite(rel[g1 + 1]!)) g1++;
    const before = g0 - 1, after = g1 + 1, len = g1 - g0 + 1;
    g0 = g1;
    if (after >= rel.length || len < Math.max(2, 0.3 * period) || len > maxGap) continue;
    if (!(rel[before]! >= exit || rel[after]! >= exit)) continue;
    // The rep's edges: the rest the way down began from and the rest the way back reached, within a period.
    let start = before, end = after;
    while (start > 0 && before - start < period && !(rel[start]! <= exit)) start--;
    while (end + 1 < rel.length && end - after < period && !(rel[end]! <= exit)) end++;
    if (!(rel[start]! <= exit) || !(rel[end]! <= exit)) continue;
    if (counted.some((a) => a.start <= end && a.end >= start)) continue;
    const centre = (g0 - len + 1 + g1) / 2;
    const prev = beats.filter((a) => a.peak < start).at(-1)?.peak, next = beats.find((a) => a.peak > end)?.peak;
    const fits = prev !== undefined && next !== undefined
      ? next - prev >= 1.5 * period && next - prev <= 2.6 * period && centre - prev >= 0.5 * period && next - centre >= 0.5 * period
      : [prev, next].some((p) => p !== undefined && Math.abs(centre - p) >= 0.6 * period && Math.abs(centre - p) <= 1.5 * period);
    if (!fits) continue;
    const peak = rel[before]! >= rel[after]! ? before : after;
    added.push({ start, peak, end, peakProgress: rel[peak]!, returned: true, valid: true, unseenTop: true });
  }
  if (!added.length) return attempts;
  // A short attempt read at the gap's edge (the way down, seen past the entry threshold) is that rep.
  const kept = attempts.filter((a) => a.valid || !added.some((u) => a.start <= u.end && a.end >= u.start));
  return [...kept, ...added].sort((a, b) => a.start - b.start);
}

export interface CountOptions {
  fps: number;
  /** Frame indices where a new shot starts (hard cuts). */
  cuts?: readonly number[];
  /**
   * The clip's repetition period in frames, when its poses are clearly periodic: an attempt
   * spanning well over one period is split at a shallower valley, and two reps much closer than
   * a period are one rep read twice.
   */
  period?: number;
  /** Frames whose progress is read on joints the model only guessed (ExerciseDef.guessed). */
  guessed?: readonly boolean[];
  /** The frames' times (ms), where frames were lost; evenly at `fps` when absent. */
  timesMs?: readonly number[];
  /** The exercise's own least rise (ExerciseDef.minRise), when above MIN_RISE. */
  minRise?: number;
}

/** `kept` standing for two attempts joined into one: too small (MIN_RISE) only when both were. */
function joined(kept: Attempt, a: Attempt, b: Attempt): Attempt {
  const { tooSmall: _t, ...rest } = kept;
  return a.tooSmall && b.tooSmall ? { ...rest, tooSmall: true } : rest;
}

/** Consecutive attempts whose peaks are closer than `minGap` frames become one. */
export function mergeClose(attempts: Attempt[], minGap: number): Attempt[] {
  const out: Attempt[] = [];
  for (const a of attempts) {
    const prev = out[out.length - 1];
    if (prev && a.peak - prev.peak < minGap) {
      const top = a.peakProgress > prev.peakProgress ? a : prev;
      out[out.length - 1] = { ...joined(top, prev, a), start: prev.start, end: a.end, returned: a.returned, valid: prev.valid || a.valid };
      continue;
    }
    out.push(a);
  }
  return out;
}

/**
 * Seconds the joints of a repetition's far end are hidden for, at least, to read as its top unseen:
 * two frames at the engine's 12 fps (a single lost frame there is noise, and smoothing already
 * bridges it). In frames, the same second of a row read at 6 fps hid its top for one frame, not
 * two, and the rep was lost (the shared rear-diagonal row 11 -> 9 at half the rate).
 */
export const HIDDEN_TOP_S = 2 / 12;

/** HIDDEN_TOP_S in frames at `fps`, at least one: two at 12 fps, one at 6, five at 30. */
export const hiddenTopFrames = (fps: number) => Math.max(1, Math.ceil(HIDDEN_TOP_S * fps - 1e-9));

/**
 * Whether the attempt's top was out of sight: the joints the signal reads went unseen for a while
 * in the middle of the rep, going out of sight and coming back still past the level below which
 * the counter takes a rep as over (the hysteresis's exit). A row filmed from behind or a rear diagonal hides the hands behind the torso exactly
 * when they are pulled in, so every rep's top is missing and its highest visible reading is only
 * the way up: the 12 reps of the shared barbell row read 0.1-0.36 of a pull, none valid (10 now). Its
 * height is not measured, so it is not judged short by it: a rep that went out of sight high
 * on the way up and came back high on the way down went through the top in between. Such a rep
 * whose seen readings never cross the entry threshold is an attempt too (reps.ts hiddenTopFrames).
 */
export function hiddenTop(rel: readonly number[], a: Pick<Attempt, 'start' | 'end' | 'returned'>, fps: number, moved: (j: number) => boolean = () => true): boolean {
  if (!a.returned) return false;
  const inRep = relativeThresholds.exit;
  for (let j = a.start + 1; j < a.end; j++) {
    if (Number.isFinite(rel[j]!) || !Number.isFinite(rel[j - 1]!)) continue;
    let k = j;
    while (k < a.end && !Number.isFinite(rel[k]!)) k++;
    if (k - j >= hiddenTopFrames(fps) && rel[j - 1]! >= inRep && Number.isFinite(rel[k]!) && rel[k]! >= inRep && moved(j - 1) && moved(k)) return true;
    j = k;
  }
  return false;
}

/**
 * Whether the attempt's top was read on guessed joints: a frame of it at full relative range whose
 * joints the model placed without seeing them. Its height is then not measured, as with a hidden
 * top (hiddenTop), so the absolute floor does not judge it. This is what makes the count the same
 * whichever way the person faces: a rear-diagonal row's pulled-in hands read unseen one way and
 * guessed (at the wrong place, 0.24-0.41 of a pull) the other way; both tops are out of sight.
 */
export function guessedTop(rel: readonly number[], a: Pick<Attempt, 'start' | 'end'>, guessed: readonly boolean[] | undefined): boolean {
  if (!guessed) return false;
  for (let j = a.start; j <= a.end; j++) if (guessed[j] && rel[j]! >= relativeThresholds.full) return true;
  return false;
}

/**
 * The progress is averaged with its values this long before and after each frame, seconds
 * (signals.ts averageAround, the reading the pose smoothing makes of poses): a one-frame glitch
 * cannot make or break a rep. At the engine's 12 fps that is one frame each side, the three-frame
 * average it always was. It was set in frames, with a cut-off (issue 20f): at 6 fps a neighbour is
 * a sixth of a second away, and averaging it in flattened quick tops and lifted a clip's opening
 * reading past the entry threshold (the shared preacher curl and bent-over row lost 1 and 2 reps
 * read at 6 fps), so under 10 fps nothing was smoothed, and at 30 fps the frames 0.03 s away were.
 * In seconds, one movement filmed at any rate is averaged over the same moments, read between the
 * frames where none falls there; a lost frame leaves a gap in time, not a nearer neighbour.
 */
export const COUNT_SMOOTH_S = POSE_SMOOTH_S;

/**
 * The level an attempt's rise is read from (absolute, smoothed): the higher of where it began and
 * where it ended, so both the way up and the way back are a real movement; for one the clip opened
 * in, where it ended (its start was not seen), and for one that did not come back, where it began.
 * An end that is not at rest (relative to the shot, under the entry threshold) is where an attempt
 * was split from the next (at a valley, or at a gap hiding the rest between two reps): the lower
 * end is then read, as it is of a rep whose both ends are such.
 */
function riseBase(smooth: readonly number[], rel: readonly number[], a: Pick<Attempt, 'start' | 'end' | 'opensClip'>, returned: boolean): number {
  const ends = (a.opensClip ? [a.end] : !returned ? [a.start] : [a.start, a.end]).filter((i) => Number.isFinite(smooth[i]!));
  if (!ends.length) return -Infinity;
  const atRest = ends.filter((i) => rel[i]! <= relativeThresholds.enter);
  return atRest.length ? Math.max(...atRest.map((i) => smooth[i]!)) : Math.min(...ends.map((i) => smooth[i]!));
}

/**
 * Attempts on one progress series: relative hysteresis per shot, valley splitting, then validity
 * from both the relative peak and the absolute one. `peakProgress` stays absolute (rules read it).
 */
export function countSeries(progress: readonly number[], opts: CountOptions): Attempt[] {
  const shots = shotRanges(progress.length, opts.cuts ?? []);
  const times = opts.timesMs ?? progress.map((_, i) => (i * 1000) / opts.fps);
  const smooth = averageAround(progress, times, opts.fps, COUNT_SMOOTH_S);
  const minRise = Math.max(MIN_RISE, opts.minRise ?? 0);
  const rel = relativeSeries(smooth, shots);
  // A clip that ends while the person is more than halfway back from the peak ends after the
  // rep's work is done (the camera stopped on the way down): that rep counts.
  const segment = { fps: opts.fps, thresholds: relativeThresholds, endSlack: 0.5, hiddenTopFrames: hiddenTopFrames(opts.fps) };
  let found = segmentReps(rel, segment);
  // A clip of a single rep that starts mid-rep never shows the rest before it, so nothing above
  // found an attempt. Then the one excursion the clip opens in is an attempt: it counts when the
  // clip caught it on its way in (START_SLACK), as one ending on the way back does; opened deeper
  // it is an attempt whose start was not seen, not counted and not judged. Only when nothing else
  // was found: in a set, a fragment the clip opens in is the tail of a rep done before the
  // recording, and people do not count it (the shared labels' preacher curl, face pull, pec deck).
  if (!found.length) found = segmentReps(rel, { ...segment, openStart: true });
  let attempts = splitAtValleys(rel, found);
  const period = opts.period;
  if (period) {
    const long = (a: Attempt) => a.end - a.start > 1.7 * period;
    attempts = attempts.flatMap((a) => (long(a) ? splitAtValleys(rel, [a], 0.25) : [a]));
    attempts = attempts.flatMap((a) => (long(a) ? splitAtGaps(rel, [a]) : [a]));
    // A rep whose top went out of sight counts (judged below): the rhythm expects it as a rep.
    attempts = unseenReps(rel, attempts, period, Math.round(MAX_BRIDGE_S * opts.fps), (a) => a.valid || hiddenTop(rel, a, opts.fps));
  }
  // The last attempt of a set done from the far end ends at home (homeAtFull) when the clip ends
  // with it: no reading after it, and it went through full range.
  let lastRead = rel.length - 1;
  while (lastRead >= 0 && !Number.isFinite(rel[lastRead]!)) lastRead--;
  const repPeaks = attempts.filter((a) => a.valid).map((a) => rel[a.peak]!).filter(Number.isFinite);
  const fromFarEnd = homeAtFull(rel, times, repPeaks);
  const judged = attempts.map((a) => {
    let peak = a.peak;
    for (let j = a.start; j <= a.end; j++) if (Number.isFinite(smooth[j]!) && smooth[j]! > (smooth[peak] ?? -Infinity)) peak = j;
    const relPeak = rel[peak]!;
    const endsAtFar = !a.returned && fromFarEnd && !a.opensClip && a.end === lastRead && relPeak >= relativeThresholds.full;
    // The clip's last frame is averaged with the moments before it only: on the way up to the far
    // end it reads low by half the last step, so a rep ending there has its height read on the
    // frame itself (a shallow squat set's last rep read 0.443 so, under ABS_FLOOR, its others 0.47:
    // catalog-far-start.unit).
    const peakProgress = endsAtFar && peak === lastRead ? Math.max(smooth[peak]!, progress[peak]!) : smooth[peak]!;
    const measured = peakProgress >= ABS_FLOOR || guessedTop(rel, a, opts.guessed);
    const returned = a.returned || endsAtFar;
    const base = riseBase(smooth, rel, a, a.returned);
    // An exercise's own least rise holds for the edges of a hidden top too: its noise unseen for a
    // frame or two (a far limb the model lost for a frame, which the pose smoothing widens to
    // three) is no top out of sight. Held still, a pushdown's far arm and a climber's far leg read
    // so 1-8 "reps" whose tops went unseen on 0.1-0.2 of wander (bench/still-sweep.ts). MIN_RISE
    // for every exercise did the same for curls, chest flies and rows (takes of nothing counting
    // 314 -> 272 of 1953), but a glute bridge filmed from the front 2 m up then read 7 of 11, not 10
    // (bench/camera-sweep.ts): only where an exercise sets its own.
    const hidden = hiddenTop(rel, a, opts.fps, opts.minRise !== undefined ? (j) => smooth[j]! - base >= minRise : undefined);
    const unmeasured = hidden || !!a.unseenTop || guessedTop(rel, a, opts.guessed);
    const rise = unmeasured ? Infinity : peakProgress - base;
    const valid = returned && ((relPeak >= relativeThresholds.full && measured) || hidden || !!a.unseenTop) &&
      !(a.opensClip && rel[a.start]! > START_SLACK);
    return { ...a, peak, peakProgress, returned, valid, rise, ...(endsAtFar ? { endsAtFar } : {}) };
  });
  // A movement of less than MIN_RISE of the range is no attempt: not valid, and marked
  // so the pipeline drops it once the set is counted. It is kept until then so that what it took
  // part in stays as it was (the clip's period found over the attempts' span, one side's attempts
  // merged with the other's): the idle arm of a one-arm curl, dropped here, left the working arm's
  // attempts unmerged, and a last curl short of the set's range then counted (concentration-curl_chauhan08 5 of 4).
  const marked = judged.map(({ rise, ...a }): Attempt => (rise >= minRise ? a : { ...a, valid: false, tooSmall: true }));
  return period ? mergeClose(marked, 0.45 * period) : marked;
}

/** Overlap of two attempts as a fraction of the shorter one. */
function overlap(a: Attempt, b: Attempt): number {
  const inter = Math.min(a.end, b.end) - Math.max(a.start, b.start);
  return inter <= 0 ? 0 : inter / Math.max(1, Math.min(a.end - a.start, b.end - b.start));
}

/**
 * Attempts of the left and right sides merged: overlapping ones are one repetition done with both
 * sides (the better of the two is kept), the rest are one-sided repetitions (alternating curls).
 */
export function mergeSides(left: Attempt[], right: Attempt[]): Attempt[] {
  const all = [...left, ...right].sort((a, b) => a.peak - b.peak);
  const out: Attempt[] = [];
  for (const a of all) {
    const prev = out[out.length - 1];
    if (prev && overlap(prev, a) > 0.3) {
      const keep = Number(a.valid) - Number(prev.valid) || a.peakProgress - prev.peakProgress;
      out[out.length - 1] = { ...joined(keep > 0 ? a : prev, prev, a), start: Math.min(a.start, prev.start), end: Math.max(a.end, prev.end) };
      continue;
    }
    out.push(a);
  }
  return out;
}
