// From a pose series to the result object: progress signal, repetitions, per-rep rules, feedback.
// Pure and synchronous, so it is tested on synthetic keypoints without a model or a video.
import type { AnalysisResult, Issue, RepStrength } from './result.js';
import { buildContext, type ExerciseDef, type Finding, type FormRule, type FrameCtx, type Picture, type RepView } from './exercise.js';
import { kpAt, KP, type AnyPose } from './pose.js';
import { MAX_BRIDGE_S, type Attempt } from './reps.js';
import { countSeries, mergeSides, relativeThresholds, shotRanges } from './counting.js';
import { findCuts } from './shots.js';
import { findPeriod, poseFeatures } from './periodicity.js';
import { clipView, estimateView, facingOver, judgedFrom, ruleViews, rulesView, type ViewAngle } from './view.js';
import { impactOf, overallFeedback, toRepetitions, type JudgedRep } from './feedback.js';
import { anyMovement } from './rules/any.js';
import { settleSetNoise } from './rules/set-relative.js';
import { markNearLimits } from './rules/near-limit.js';
import { marginOf, pastLimit } from './rules/common.js';

export interface PipelineOutput {
  result: AnalysisResult;
  attempts: Attempt[];
  view: ViewAngle | 'unknown';
  /** What each attempt was judged on (for the eval's and tests' measurements; not served). */
  reps: RepView[];
  /**
   * What the reps were counted on: the exercise's own signal, or the whole-body movement when the
   * view hides the joints that signal reads (see READABLE).
   */
  countedOn: 'exercise' | 'movement';
}

/**
 * @param endsSet the attempt was cut off by the end of the set (the clip ends, or the person leaves
 * the exercise's posture for good, mid-rep): an invalid attempt, but its being cut is not a fault of
 * form; the summary says the set ended mid-repetition. So is one the clip opens in. When its bottom
 * was seen (`bottomSeen`), it carries the faults that part showed (see judgeCut); else nothing
 * judges it.
 */
function judge(def: ExerciseDef, rep: RepView, attempt: Attempt, seenFrom: ViewAngle | 'unknown', endsSet = false): JudgedRep {
  const issues: JudgedRep['issues'] = [];
  const strengths: RepStrength[] = [];
  const checked: string[] = [];
  const at = (i: number) => Math.round(rep.frames[Math.max(0, Math.min(rep.frames.length - 1, i))]!.t);
  const ends = { startMs: rep.frames[0]!.t, endMs: rep.frames[rep.frames.length - 1]!.t };
  if (!attempt.valid && (endsSet || attempt.opensClip)) {
    const cut = endsSet ? { endsSet: true } : { startsSet: true };
    if (bottomSeen(rep, !!attempt.opensClip, endsSet)) return { ...ends, ...judgeCut(def, rep, seenFrom, at), durationS: rep.durationS, ...cut };
    // Nothing to judge: the rep was never finished (or its start never seen), no fault of the person.
    return { ...ends, valid: false, issues: [], strengths: [], durationS: rep.durationS, ...cut };
  }
  if (attempt.unseenTop) {
    // Counted from the set's rhythm with its top out of sight (counting.ts unseenReps): its depth,
    // its turn and whatever the rules read there went unseen, so no rule judges it (none checked).
    return { ...ends, valid: true, issues: [], strengths: [], durationS: rep.durationS, checked: [] };
  }
  if (!attempt.valid) {
    const pct = Math.round(Math.min(1, attempt.peakProgress) * 100);
    issues.push(attempt.returned
      ? { ruleId: 'partial-range', category: 'range_of_motion', name: 'Partial repetition', severity: 'major',
          description: `The movement reached about ${pct}% of the full range, so it does not count as a repetition.`,
          correction: `Complete the full range of motion on every ${def.name.toLowerCase()}.`,
          impact_on_score: impactOf.major, evidence_timestamp_ms: at(rep.peak) }
      : { ruleId: 'unfinished', category: 'range_of_motion', name: 'Unfinished repetition', severity: 'major',
          description: 'The attempt did not return to the start position before the video ended or the posture was lost.',
          correction: 'Finish each repetition back in the start position, and keep recording until the set is over.',
          impact_on_score: impactOf.major, evidence_timestamp_ms: at(rep.frames.length - 1) });
  } else {
    strengths.push({ category: 'range_of_motion', name: 'Full range of motion', description: `Completed the full ${def.name.toLowerCase()} movement.` });
  }
  for (const rule of def.rules) {
    if (!judgedFrom(rule, seenFrom)) continue;
    // A partial rep already carries its range issue; judging its depth again would count it twice.
    if (!attempt.valid && rule.category === 'range_of_motion') continue;
    // A rep that ends at its peak (a set done from the far end) shows no way back to rest.
    if (rep.endsAtFar && rule.readsReturn) continue;
    const finding = rule.check(rep);
    if (finding === undefined) continue;
    checked.push(rule.id);
    if (finding === null) {
      strengths.push(rule.strength);
      continue;
    }
    issues.push(issueOf(rule, finding, at));
  }
  return { ...ends, valid: attempt.valid, issues, strengths: consistentStrengths(issues, strengths), durationS: rep.durationS, checked };
}

/**
 * The bottom of an attempt cut by the clip was seen: the signal came to its peak and back from it by
 * the counter's own hysteresis (enter - exit of counting.ts relativeThresholds, the margin by which
 * it tells a move from keypoint noise, here in full ranges) on each side the clip cut: after the
 * peak for one cut by the end (`cutEnd`: the rise had begun), before it for one the clip opens in
 * (`opened`: it was seen going down to it, not only coming up from somewhere deeper). A single-rep
 * clip of 1.2 s (14 frames at 12 fps) cut while rising is such an attempt; one cut on its way down,
 * or still at its bottom, showed no bottom to judge.
 */
function bottomSeen(rep: RepView, opened: boolean, cutEnd: boolean): boolean {
  const p = rep.progress ?? [];
  const band = relativeThresholds.enter - relativeThresholds.exit;
  const away = (xs: number[]) => {
    const seen = xs.filter(Number.isFinite);
    return seen.length > 0 && Math.min(...seen) <= rep.peakProgress - band;
  };
  return (!cutEnd || away(p.slice(rep.peak + 1))) && (!opened || away(p.slice(0, rep.peak)));
}

/**
 * An attempt cut off by the end of the set (or opened by the clip's start) after its bottom was
 * seen: judged for the faults the part seen shows (its depth, knees, back), so that a single bad
 * repetition cut by the clip is not passed over. It stays invalid (the counting rules decide that) with no "Unfinished repetition":
 * being cut is no fault of the person. It is never praised: a rule it passed on may yet have failed
 * on the part not seen (knees caving in on the way up), so it earns no strength, and only the rules
 * that faulted it count as checked (a "Keep:" area or a near-limit score needs a pass on a whole
 * rep). Tempo rules read the rep's duration and its way back, which were cut: not run.
 */
function judgeCut(def: ExerciseDef, rep: RepView, seenFrom: ViewAngle | 'unknown', at: (i: number) => number): Pick<JudgedRep, 'valid' | 'issues' | 'strengths' | 'checked'> {
  const issues: JudgedRep['issues'] = [];
  // The rules read a copy, whose recorded margins (rules/common.ts pastLimit) are the rep's only
  // where it was faulted: a margin kept for a pass would be a pass for the scores and evals.
  const seen: RepView = { ...rep };
  for (const rule of def.rules) {
    if (!judgedFrom(rule, seenFrom) || rule.category === 'tempo') continue;
    const finding = rule.check(seen);
    if (!finding) continue;
    pastLimit(rep, rule.id, marginOf(seen, rule.id), 1);
    issues.push(issueOf(rule, finding, at));
  }
  return { valid: false, issues, strengths: [], checked: issues.map((i) => i.ruleId) };
}

/** A rule's finding on a rep as the result's issue, its evidence frame's time in ms. */
function issueOf(rule: FormRule, finding: Finding, at: (i: number) => number): Issue & { ruleId: string } {
  return {
    ruleId: rule.id, category: rule.category, name: rule.name, description: finding.description,
    correction: rule.correction, severity: finding.severity, impact_on_score: finding.impact ?? impactOf[finding.severity],
    evidence_timestamp_ms: at(finding.evidence),
  };
}

/**
 * One story per rep: a rep faulted in a category is praised for nothing in it (a shallow push-up
 * is not also "Full range of motion"), and no strength is listed twice.
 */
export function consistentStrengths(issues: readonly { category: string }[], strengths: readonly RepStrength[]): RepStrength[] {
  const faulted = new Set(issues.map((i) => i.category));
  return strengths.filter((s, i) => !faulted.has(s.category) && strengths.findIndex((t) => t.name === s.name) === i);
}

/** Same test as the tracker's: a shoulder and a hip seen. */
function torsoSeen(f: AnyPose): boolean {
  const s = (k: number) => kpAt(f, k, 2) > 0.2;
  return (s(KP.leftHip) || s(KP.rightHip)) && (s(KP.leftShoulder) || s(KP.rightShoulder));
}

/** Gated progress (and per-side progress) over all shots, each shot calibrated on its own frames. */
function progressByShot(def: ExerciseDef, ctx: FrameCtx[], shots: [number, number][]) {
  const n = ctx.length;
  const progress = new Array<number>(n).fill(NaN);
  const left = new Array<number>(n).fill(NaN), right = new Array<number>(n).fill(NaN);
  // The exercise's least rise (ExerciseDef.minRise); one read from a shot's calibration is the
  // most lenient shot's, so a still shot beside the set cannot raise the set's floor.
  let minRise = typeof def.minRise === 'number' ? def.minRise : undefined;
  for (const [a, b] of shots) {
    const frames = ctx.slice(a, b);
    const cal = def.calibrate?.(frames) ?? {};
    if (typeof def.minRise === 'function') {
      const m = def.minRise(cal);
      if (Number.isFinite(m)) minRise = Math.min(minRise ?? Infinity, m);
    }
    for (let i = a; i < b; i++) {
      const f = ctx[i]!;
      if (!def.gate(f)) continue;
      progress[i] = def.progress(f, cal);
      if (def.progressSides) [left[i], right[i]] = def.progressSides(f, cal);
    }
  }
  return { progress, left, right, minRise };
}

/**
 * Share of the frames in the exercise's posture on which its own signal must be readable for the
 * count to use it. Below it the view hides the joints the signal reads: a seated row filmed from
 * behind has its hands in front of the body, read on 2 of its 304 frames, and counted 0 of 7. Then
 * the reps are counted on the whole-body movement (the `any` counter's signal, which counts that
 * clip 7 of 7) within the exercise's own posture gate; its rules still judge what they can read
 * and report the rest as not checked. On the other shared clips the signal reads on at least 66%.
 */
const READABLE = 0.5;

/** The exercise's progress, or the whole-body movement's when the view hides what it reads. */
function countingSignal(def: ExerciseDef, ctx: FrameCtx[], shots: [number, number][], fps: number) {
  const own = progressByShot(def, ctx, shots);
  const gated = ctx.filter((f) => def.gate(f)).length;
  const read = own.progress.filter(Number.isFinite).length;
  if (def.id === anyMovement.id || gated < fps) return { ...own, countedOn: 'exercise' as const };
  if (read >= READABLE * gated) return { ...own, progress: bridgedByMovement(def, ctx, shots, own.progress, fps), countedOn: 'exercise' as const };
  const moved = progressByShot(anyMovement, ctx, shots);
  const none = new Array<number>(ctx.length).fill(NaN);
  const progress = moved.progress.map((v, i) => (def.gate(ctx[i]!) ? v : NaN));
  // Not `any`'s least rise (MIN_MOVE): an exercise whose own joints are out of the picture moves
  // little else (a calf raise with the feet cut off lifts the hips 0.11 torso lengths).
  return { progress, left: none, right: none, minRise: undefined, countedOn: 'movement' as const };
}

/** Pearson correlation the whole-body movement must have with the exercise's signal to bridge it. */
const BRIDGE_R = 0.8;

/**
 * The exercise's progress with its short gaps (frames in the exercise's posture whose joints went
 * out of the picture, up to MAX_BRIDGE_S) read on the whole-body movement, mapped onto the
 * exercise's scale by a straight-line fit over the frames where both are read, when the two move
 * together (correlation BRIDGE_R or more).
 */
function bridgedByMovement(def: ExerciseDef, ctx: FrameCtx[], shots: [number, number][], progress: number[], fps: number): number[] {
  const gaps: [number, number][] = [];
  for (let i = 0; i < progress.length; i++) {
    if (Number.isFinite(progress[i]!) || !def.gate(ctx[i]!)) continue;
    let j = i;
    while (j < progress.length && !Number.isFinite(progress[j]!) && def.gate(ctx[j]!)) j++;
    if (i > 0 && j < progress.length && Number.isFinite(progress[i - 1]!) && Number.isFinite(progress[j]!) && j - i <= MAX_BRIDGE_S * fps) gaps.push([i, j]);
    i = j;
  }
  if (!gaps.length) return progress;
  const moved = progressByShot(anyMovement, ctx, shots).progress;
  let n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  moved.forEach((x, i) => {
    const y = progress[i]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    n++; sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y;
  });
  const cxx = sxx - (sx * sx) / n, cyy = syy - (sy * sy) / n, cxy = sxy - (sx * sy) / n;
  if (n < 2 * fps || !(cxx > 0 && cyy > 0) || Math.abs(cxy) / Math.sqrt(cxx * cyy) < BRIDGE_R) return progress;
  const b = cxy / cxx, a = (sy - b * sx) / n;
  const out = progress.slice();
  const at = (k: number) => a + b * moved[k]!;
  for (const [i, j] of gaps) {
    // Pinned to the exercise's own reading at both edges (the fit's offset there, blended across):
    // the movement says how the rep went on in the gap, the exercise's signal where it stood.
    const d0 = progress[i - 1]! - at(i - 1), d1 = progress[j]! - at(j);
    if (!Number.isFinite(d0) || !Number.isFinite(d1)) continue;
    for (let k = i; k < j; k++) if (Number.isFinite(moved[k]!)) out[k] = at(k) + d0 + ((d1 - d0) * (k - i + 1)) / (j - i + 1);
  }
  return out;
}

/** The repetition period in frames over the attempts' span, when the poses are clearly periodic. */
function setPeriod(ctx: FrameCtx[], attempts: Attempt[], fps: number): number | undefined {
  if (attempts.length < 3) return undefined;
  const p = findPeriod(poseFeatures(ctx), attempts[0]!.start, attempts[attempts.length - 1]!.end + 1, Math.round(0.4 * fps));
  return p && p.strength >= 0.5 ? p.frames : undefined;
}

/** `picture`: the video's size, so rules can tell a joint inside the picture from one guessed beyond its edge. */
export function analyzePoses(def: ExerciseDef, poses: readonly AnyPose[], fps: number, picture?: Picture): PipelineOutput {
  // Each shot gets its own body-scale references: after a cut the person may be twice as large.
  const cuts = findCuts(poses, fps);
  const shots = shotRanges(poses.length, cuts);
  const ctx = shots.flatMap(([a, b]) => buildContext(poses.slice(a, b), fps));
  const { progress, left, right, countedOn, minRise: least } = countingSignal(def, ctx, shots, fps);
  // Guessed joints say nothing of the whole-body movement's height: only the exercise's own signal.
  const guessed = def.guessed && countedOn === 'exercise' ? ctx.map((f) => def.guessed!(f)) : undefined;
  const timesMs = ctx.map((f) => f.t);
  // The least rise of a rep on the signal counted (the exercise's own, or the whole-body movement's).
  const minRise = least !== undefined ? { minRise: least } : {};
  let attempts = countSeries(progress, { fps, cuts, timesMs, ...minRise, ...(guessed ? { guessed } : {}) });
  // Cross-check with the clip's own rhythm over the span of the set: a clearly periodic pose
  // sequence tells merged and double-read reps apart (see periodicity.ts).
  const period = setPeriod(ctx, attempts, fps);
  if (period) attempts = countSeries(progress, { fps, cuts, timesMs, period, ...minRise, ...(guessed ? { guessed } : {}) });
  if (def.progressSides) {
    // One side at a time shows as more valid repetitions than both sides read together.
    const opts = { fps, cuts, timesMs, ...minRise, ...(period ? { period } : {}), ...(guessed ? { guessed } : {}) };
    const [l, r] = [countSeries(left, opts), countSeries(right, opts)];
    const sides = def.alternatingSides ? [...l, ...r].sort((a, b) => a.peak - b.peak) : mergeSides(l, r);
    const validOf = (xs: Attempt[]) => xs.filter((x) => x.valid).length;
    if (validOf(sides) > validOf(attempts)) attempts = sides;
  }
  // Movements too small to be attempts (counting.ts MIN_RISE) took part in the count as they did
  // before; they are not repetitions.
  attempts = attempts.filter((a) => !a.tooSmall);
  const inReps: FrameCtx[] = attempts.flatMap((a) => ctx.slice(a.start, a.end + 1));
  const gated = ctx.filter((_, i) => Number.isFinite(progress[i]!));
  // Each rep is judged from the angle it was filmed at: a clip that moves from the front to the
  // side (or a hand-held camera that drifts) must not judge side-on reps by front rules.
  // Which way the person faces is read once, over every frame of the clip, whatever was counted
  // (view.ts facingOver).
  const facing = facingOver(ctx, picture);
  const repViews = attempts.map((a) => estimateView(ctx.slice(a.start, a.end + 1), facing, picture));
  const view = clipView(estimateView(inReps.length ? inReps : gated.length ? gated : ctx, facing, picture), repViews);
  const setDurationsS = attempts.filter((a) => a.valid).map((a) => (ctx[a.end]!.t - ctx[a.start]!.t) / 1000);
  const setPeaks = attempts.filter((a) => a.valid).map((a) => a.peakProgress);
  const judgedOn: RepView[] = [];
  const eachOnItsOwn = attempts.map((a, k) => {
    const frames = ctx.slice(a.start, a.end + 1);
    const own = repViews[k]!;
    const repAngle = own === 'unknown' ? view : own;
    const rep: RepView = {
      frames, peak: a.peak - a.start, peakProgress: a.peakProgress, valid: a.valid,
      durationS: (frames[frames.length - 1]!.t - frames[0]!.t) / 1000, fps, view: repAngle === 'unknown' ? 'side' : rulesView(repAngle),
      // Rules read the signal the rep was counted on (for one-sided reps, both sides' combined).
      progress: progress.slice(a.start, a.end + 1),
      setDurationsS, setPeaks, ...(picture ? { picture } : {}), ...(a.endsAtFar ? { endsAtFar: true } : {}),
    };
    judgedOn.push(rep);
    const last = k === attempts.length - 1;
    const endsSet = last && !a.returned && !progress.slice(a.end + 1).some((v) => Number.isFinite(v));
    return judge(def, rep, a, repAngle, endsSet);
  });
  // A fault within the set's own rep-to-rep noise of the limit is no fault (rules/set-relative.ts);
  // a pass close to a limit costs a few points of the score (rules/near-limit.ts).
  const reps = markNearLimits(settleSetNoise(eachOnItsOwn, judgedOn), judgedOn);
  const seenFrames = poses.filter(torsoSeen).length;
  // Not checked: the rules this view cannot show, then those it could but that no judged rep gave a
  // verdict (each rule checks on the rep itself that it sees what it reads: yaw, joints seen). A
  // rep filmed from another angle than the clip's (a person turning mid-set) may have been judged
  // by a rule the clip's view cannot show: that rule was checked, so it is not "Not checked".
  const judgedReps = reps.filter((r) => !r.endsSet && !r.startsSet);
  // An attempt cut off by the clip checked the rules that faulted it (judgeCut).
  const judgedBy = (r: { id: string }) => reps.some((j) => j.checked?.includes(r.id));
  const unjudgedRules = view === 'unknown' ? [] : [
    ...def.rules.filter((r) => !judgedFrom(r, view) && !judgedBy(r)).map((r) => ({ name: r.name, views: ruleViews(r), reason: 'view' as const })),
    ...(judgedReps.length ? def.rules.filter((r) => judgedFrom(r, view) && !judgedBy(r)
      && !(r.category === 'range_of_motion' && judgedReps.every((j) => !j.valid)))
      .map((r) => ({ name: r.name, views: ruleViews(r), reason: 'unseen' as const })) : []),
  ];
  const result: AnalysisResult = {
    repetitions: toRepetitions(reps),
    overall_feedback: overallFeedback(reps, { def, view, unjudgedRules, personSeen: seenFrames >= Math.max(1, poses.length * 0.2) }),
  };
  return { result, attempts, view, reps: judgedOn, countedOn };
}
