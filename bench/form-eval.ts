// `npm run eval -- --form`: does the engine's form verdict agree with the people who judged the
// clips? Runs the engine on ../shared/form-videos (labelled good or bad by their source
// repositories, a few naming the fault) and on the shared clips whose labels.json has `form`.
//
// A clip's verdict is "bad form" when some attempt carries an issue (any issue: that is how a
// partner reads the result); its bad-form score is 100 minus its lowest quality_score, so the AUC
// says how well the scores alone rank bad clips above good ones. A clip with no attempt is a clip
// where the engine found nothing to judge: it counts as not flagged, scores 0 and is reported as
// "attempts found" missing. `mixed` clips (good and bad reps in one set) count as bad: some rep is.
//
// bench/form-holdout.json is the never-tuned third (see pickFormHoldout for the rule that chose it);
// `--holdout` prints only the summary of those clips, never their rows, so tuning cannot peek.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExtractedPoses, PoseEngine } from '../src/analysis/index.js';
import type { PipelineOutput } from '../src/analysis/pipeline.js';
import { storyContradictions } from '../src/analysis/story.js';
import { marginOf } from '../src/analysis/rules/common.js';
import { COMFORT_BANDS, pointsFor } from '../src/analysis/rules/near-limit.js';
import { qualityScore } from '../src/analysis/feedback.js';
import type { ExerciseDef } from '../src/analysis/exercise.js';
import type { AnyPose } from '../src/analysis/pose.js';
import { formVideosDir, videosDir } from './shared-videos.js';
import { poseFilesExist, readPoseFiles, writePoseFiles } from './pose-files.js';
import type { Augmentation } from './augment.js';
import { NEAR_LIMIT_BANDS, repUncertainties } from './uncertainty.js';
import { examinedClips } from './holdout.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface FormClip {
  file: string;
  /** Absolute path of the video. */
  path: string;
  exercise: string;
  form: 'good' | 'bad';
  /** The fault the source names, when it names one ("knee over toes"). */
  fault: string | null;
  /** Where the label came from: the source repository, or "shared" for ../shared/videos. */
  repository: string;
  cameraAngle?: string;
}

interface FormLabelFile {
  clips: { file: string; exercise_id: string; form: 'good' | 'bad'; fault: string | null; source: { repository: string } }[];
}
interface SharedLabel { file: string; exercise: string; form?: 'good' | 'bad' | 'mixed'; camera_angle?: string; source?: string }

/** Every clip with a form label, form-videos first; [] when neither folder is there. */
export function loadFormClips(formDir = formVideosDir, sharedDir = videosDir): FormClip[] {
  const out: FormClip[] = [];
  const fl = join(formDir, 'labels.json');
  if (existsSync(fl)) {
    for (const c of (JSON.parse(readFileSync(fl, 'utf8')) as FormLabelFile).clips) {
      out.push({ file: c.file, path: join(formDir, c.file), exercise: c.exercise_id, form: c.form, fault: c.fault, repository: c.source.repository });
    }
  }
  const sl = join(sharedDir, 'labels.json');
  if (existsSync(sl)) {
    for (const c of JSON.parse(readFileSync(sl, 'utf8')) as SharedLabel[]) {
      if (!c.form) continue;
      out.push({
        file: c.file, path: join(sharedDir, c.file), exercise: c.exercise, form: c.form === 'mixed' ? 'bad' : c.form,
        fault: null, repository: 'shared', ...(c.camera_angle ? { cameraAngle: c.camera_angle } : {}),
      });
    }
  }
  return out;
}

/**
 * The never-tuned third, by a fixed rule anyone can re-run: clips are grouped by source repository,
 * exercise and label; within a group they are ordered by SHA-256 of `seed + file name`, and the
 * first floor((n + 1) / 3) are held out (a group of one is kept for tuning, of two gives one). The
 * shared clips (../shared/videos) keep the split bench/holdout.json already made for counting, so
 * no clip is tuned on for one purpose and held out for the other.
 */
export function pickFormHoldout(clips: readonly FormClip[], countHoldout: ReadonlySet<string>, seed: string): string[] {
  const groups = new Map<string, FormClip[]>();
  for (const c of clips) {
    if (c.repository === 'shared') continue;
    const k = `${c.repository}|${c.exercise}|${c.form}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const h = (s: string) => createHash('sha256').update(seed + s).digest('hex');
  const picked: string[] = [];
  for (const g of groups.values()) {
    const sorted = [...g].sort((a, b) => h(a.file).localeCompare(h(b.file)));
    picked.push(...sorted.slice(0, Math.floor((g.length + 1) / 3)).map((c) => c.file));
  }
  picked.push(...clips.filter((c) => c.repository === 'shared' && countHoldout.has(c.file)).map((c) => c.file));
  return picked.sort();
}

export interface FormHoldout { seed: string; clips: string[] }
export const formHoldout: FormHoldout = JSON.parse(readFileSync(join(here, 'form-holdout.json'), 'utf8')) as FormHoldout;

/** What the eval keeps of one clip's result. */
export interface FormRow {
  file: string;
  exercise: string;
  form: 'good' | 'bad';
  fault: string | null;
  /** Where the label came from (FormClip.repository): figures per source show how rules carry over. */
  repository?: string;
  view: string;
  attempts: number;
  valid: number;
  /** Some attempt carries an issue: the engine's bad-form verdict. */
  flagged: boolean;
  /** Lowest quality_score over the attempts (100 with none). */
  minQuality: number;
  /** Issue names over all attempts, with how many attempts carry each. */
  issues: Record<string, number>;
  /** Places where the result contradicts itself (src/analysis/story.ts; must be 0). */
  contradictions: number;
  /** Per attempt, what the rules measured (for the leave-one-source-out figure). */
  reps?: RepMargins[];
}

/**
 * One attempt's measurements: each rule's margin past its limit in its moderate bands (recorded by
 * the rule, passes too: rules/common.ts pastLimit), the rules that faulted it, and whether it
 * carries an issue no margin describes (a partial repetition, a rule that records none).
 */
export interface RepMargins {
  margins: Record<string, number>;
  faulted: string[];
  other: boolean;
  /** The sum of the rep's issue impacts (its score before near-limit points); absent in old rows. */
  impacts?: number;
  /**
   * Each rule's standard error of its margin from the clip's own pose jitter (moderate bands,
   * bench/uncertainty.ts), for the rules read within NEAR_LIMIT_BANDS of their limit or past it.
   */
  uncertain?: Record<string, number>;
}

/** A clip's row; with the `poses` it was judged on, each near-limit reading's standard error too. */
export function formRow(c: FormClip, out: PipelineOutput, def?: ExerciseDef, poses?: readonly AnyPose[]): FormRow {
  const reps = out.result.repetitions;
  const issues: Record<string, number> = {};
  for (const r of reps) for (const n of new Set(r.issues.map((i) => i.name))) issues[n] = (issues[n] ?? 0) + 1;
  const contradictions = storyContradictions(out.result).length;
  const us = def && poses ? repUncertainties(def, out.reps, poses) : [];
  const measured = def && out.reps.length === reps.length ? reps.map((r, i): RepMargins => {
    const margins: Record<string, number> = {};
    for (const rule of def.rules) {
      const m = marginOf(out.reps[i]!, rule.id);
      if (Number.isFinite(m)) margins[rule.id] = m;
    }
    const uncertain = us[i] ?? {};
    const ids = r.issues.map((x) => def.rules.find((rule) => rule.name === x.name)?.id);
    return {
      margins, faulted: ids.filter((id): id is string => !!id && id in margins), other: ids.some((id) => !id || !(id in margins)),
      impacts: r.issues.reduce((a, x) => a + x.impact_on_score, 0),
      ...(Object.keys(uncertain).length ? { uncertain } : {}),
    };
  }) : undefined;
  return {
    file: c.file, exercise: c.exercise, form: c.form, fault: c.fault, repository: c.repository, view: out.view, attempts: reps.length,
    valid: reps.filter((r) => r.is_valid_rep).length, flagged: reps.some((r) => r.issues.length > 0),
    minQuality: reps.length ? Math.min(...reps.map((r) => r.quality_score)) : 100, issues, contradictions, ...(measured ? { reps: measured } : {}),
  };
}

/**
 * The clip's verdict with every measured limit moved by `shift` moderate bands (positive: looser,
 * a fault must go that much further past the limit; negative: stricter, reps that passed within
 * that much of the limit are faulted too). At 0 it is the engine's own verdict.
 */
export function flaggedAt(row: FormRow, shift: number): boolean {
  if (!row.reps || shift === 0) return row.flagged;
  return row.reps.some((r) => r.other || Object.entries(r.margins).some(([id, m]) => m > shift && (shift < 0 || r.faulted.includes(id))));
}

/** Shifts of every measured limit tried by the leave-one-source-out fit, in moderate bands. */
export const SHIFTS = [-1, -0.5, -0.25, 0, 0.25, 0.5, 1, 1.5, 2];

/**
 * Leave one source out: for each source with bad and good clips, the one strictness of the limits
 * (a shift of all of them, SHIFTS) that does best on the other sources of the same exercise (mean
 * balanced accuracy, each source once; ties to the smaller shift) judges the held-out source; with
 * no other source of its exercise, the limits as they are. Squat limits fitted on push-up sources
 * said nothing about squats: the one push-up source with bad clips outnumbers the squat sources,
 * so a squat's depth reading moving made the push-up fold's shift move (and the reverse). Had the limits been
 * set looser or stricter for the sources they were looked at on, the held-out figure falls below
 * the figure at the limits as they are (shift 0), and the fitted shifts disagree between folds.
 * Only the strictness is refitted, not each rule's limit: the limits are coaching norms.
 */
export function leaveOneSourceOut(rows: readonly FormRow[]): { source: string; shift: number; ba: number; baAsIs: number }[] {
  const { judged } = sourceSpread(rows);
  const bySource = (source: string) => rows.filter((r) => `${r.repository ?? '?'} ${r.exercise}` === source);
  const baAt = (rs: readonly FormRow[], shift: number) => formFigures(rs.map((r) => ({ ...r, flagged: flaggedAt(r, shift) }))).balancedAccuracy;
  return judged.map(({ source, figures }) => {
    const exercise = bySource(source)[0]?.exercise;
    const others = judged.filter((j) => j.source !== source).map((j) => bySource(j.source)).filter((rs) => rs[0]?.exercise === exercise);
    const score = (shift: number) => (others.length ? others.reduce((a, rs) => a + baAt(rs, shift), 0) / others.length : 0);
    const shift = [...SHIFTS].sort((a, b) => Math.abs(a) - Math.abs(b) || a - b).reduce((best, x) => (score(x) > score(best) + 1e-9 ? x : best), 0);
    return { source, shift, ba: baAt(bySource(source), shift), baAsIs: figures.balancedAccuracy };
  });
}

export function formatLoso(l: ReturnType<typeof leaveOneSourceOut>): string {
  const pct = (x: number) => (Number.isNaN(x) ? '-' : `${Math.round(100 * x)}%`);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return ['leave one source out (the strictness of all measured limits fitted on the other sources of the exercise, in moderate bands):',
    ...l.map((x) => `  ${x.source.padEnd(48)} shift ${x.shift >= 0 ? '+' : ''}${x.shift}  BA ${pct(x.ba).padStart(4)}  (limits as they are: ${pct(x.baAsIs)})`),
    `  BA mean ${pct(mean(l.map((x) => x.ba)))}, lowest ${pct(Math.min(...l.map((x) => x.ba)))}`].join('\n');
}

/** Comfort zones (rules/near-limit.ts COMFORT_BANDS) tried by the leave-one-source-out AUC, in moderate bands. */
export const COMFORT_GRID = [0.5, 1, 1.5, 2, 3, 4, 6];

/**
 * The clip's lowest quality_score with the near-limit points fading over `comfortBands` inside
 * each limit: the engine's own score at COMFORT_BANDS (the same functions, rules/near-limit.ts
 * pointsFor and feedback.ts qualityScore), re-scored from the margins each rep recorded.
 */
export function minQualityAt(row: FormRow, comfortBands: number): number {
  if (!row.reps || row.reps.some((r) => r.impacts === undefined) || !row.reps.length) return row.minQuality;
  return Math.min(...row.reps.map((r) => {
    const passed = Object.entries(r.margins).filter(([id]) => !r.faulted.includes(id)).map(([, m]) => m);
    return qualityScore([{ impact_on_score: r.impacts! }], pointsFor(passed, comfortBands));
  }));
}

/** AUC of the clips' lowest scores, each clip re-scored with its own comfort zone. */
function aucAt(rows: readonly FormRow[], bandsOf: (r: FormRow) => number): number {
  const score = (r: FormRow) => (r.attempts ? 100 - minQualityAt(r, bandsOf(r)) : 0);
  return auc(rows.filter((r) => r.form === 'bad').map(score), rows.filter((r) => r.form === 'good').map(score));
}

export interface LosoAuc {
  folds: { source: string; bands: number; auc: number; aucAsIs: number }[];
  /** All judged sources' clips pooled, each source scored with the comfort zone its fold chose. */
  pooled: number;
  pooledAsIs: number;
}

/**
 * Leave one source out, for the ranking: for each source with bad and good clips, the comfort zone
 * of the near-limit points (COMFORT_GRID; the one free constant of the score once the verdicts are
 * fixed) that ranks best on the other sources (mean AUC, each source once; ties to the engine's
 * own) scores the held-out source. `pooled` ranks all those clips together, as a new set mixing
 * people and cameras would be ranked: a score that fits each source but not across them falls there.
 */
export function leaveOneSourceOutAuc(rows: readonly FormRow[]): LosoAuc {
  const { judged } = sourceSpread(rows);
  const key = (r: FormRow) => `${r.repository ?? '?'} ${r.exercise}`;
  const bySource = (source: string) => rows.filter((r) => key(r) === source);
  const folds = judged.map(({ source }) => {
    const others = judged.filter((j) => j.source !== source).map((j) => bySource(j.source));
    const fit = (b: number) => (others.length ? others.reduce((a, rs) => a + aucAt(rs, () => b), 0) / others.length : 0);
    const bands = [...COMFORT_GRID].sort((a, b) => Math.abs(a - COMFORT_BANDS) - Math.abs(b - COMFORT_BANDS) || a - b)
      .reduce((best, b) => (fit(b) > fit(best) + 1e-9 ? b : best), COMFORT_BANDS);
    return { source, bands, auc: aucAt(bySource(source), () => bands), aucAsIs: aucAt(bySource(source), () => COMFORT_BANDS) };
  });
  const all = rows.filter((r) => folds.some((f) => f.source === key(r)));
  return {
    folds,
    pooled: aucAt(all, (r) => folds.find((f) => f.source === key(r))!.bands),
    pooledAsIs: aucAt(all, () => COMFORT_BANDS),
  };
}

export function formatLosoAuc(l: LosoAuc): string {
  const num = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(2));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return [`leave one source out, AUC of the lowest score (near-limit comfort zone fitted on the other sources, in moderate bands; engine's ${COMFORT_BANDS}):`,
    ...l.folds.map((x) => `  ${x.source.padEnd(48)} comfort ${x.bands}  AUC ${num(x.auc)}  (as it is: ${num(x.aucAsIs)})`),
    `  AUC mean ${num(mean(l.folds.map((x) => x.auc)))}, lowest ${num(Math.min(...l.folds.map((x) => x.auc)))}; ` +
    `these sources pooled ${num(l.pooled)} (as it is: ${num(l.pooledAsIs)})`].join('\n');
}

/** Area under the ROC curve of `score` (higher = more likely bad); ties count half. */
export function auc(bad: readonly number[], good: readonly number[]): number {
  if (!bad.length || !good.length) return NaN;
  let s = 0;
  for (const b of bad) for (const g of good) s += b > g ? 1 : b === g ? 0.5 : 0;
  return s / (bad.length * good.length);
}

export interface FormFigures {
  clips: number;
  bad: number;
  badFlagged: number;
  good: number;
  goodFlagged: number;
  /** Mean of the hit rate on bad clips and the pass rate on good ones (NaN without both). */
  balancedAccuracy: number;
  auc: number;
  /** Clips in which the engine found at least one attempt. */
  withAttempts: number;
  contradictions: number;
}

export function formFigures(rows: readonly FormRow[]): FormFigures {
  const bad = rows.filter((r) => r.form === 'bad'), good = rows.filter((r) => r.form === 'good');
  const badFlagged = bad.filter((r) => r.flagged).length, goodFlagged = good.filter((r) => r.flagged).length;
  const ba = bad.length && good.length ? (badFlagged / bad.length + (good.length - goodFlagged) / good.length) / 2 : NaN;
  const score = (r: FormRow) => (r.attempts ? 100 - r.minQuality : 0);
  return {
    clips: rows.length, bad: bad.length, badFlagged, good: good.length, goodFlagged, balancedAccuracy: ba,
    auc: auc(bad.map(score), good.map(score)), withAttempts: rows.filter((r) => r.attempts > 0).length,
    contradictions: rows.reduce((a, r) => a + r.contradictions, 0),
  };
}

export function formatFigures(f: FormFigures): string {
  const pct = (a: number, b: number) => (b ? `${a}/${b} (${Math.round((100 * a) / b)}%)` : '-');
  const num = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(2));
  return `clips ${String(f.clips).padStart(3)}  bad flagged ${pct(f.badFlagged, f.bad)}  good flagged ${pct(f.goodFlagged, f.good)}` +
    `  balanced accuracy ${Number.isNaN(f.balancedAccuracy) ? '-' : `${Math.round(100 * f.balancedAccuracy)}%`}  AUC ${num(f.auc)}` +
    `  attempts found ${pct(f.withAttempts, f.clips)}  contradictions ${f.contradictions}`;
}

/** Figures of each source (repository and exercise), and how far apart they are. */
export interface SourceSpread {
  /** Sources with bad and good clips, so with a balanced accuracy and an AUC. */
  judged: { source: string; figures: FormFigures }[];
  /** Good clips flagged, pooled over the sources that have good clips only. */
  goodOnly: { sources: number; good: number; goodFlagged: number };
  /** Mean, lowest and highest balanced accuracy and AUC over `judged` (NaN with none). */
  ba: { mean: number; min: number; max: number };
  auc: { mean: number; min: number; max: number };
}

/**
 * The in-house estimate of how the verdicts carry over to other people: each source repository is
 * other people, rooms and cameras, and its clips are judged by limits that were not set on it
 * alone, so the spread between sources, not the pooled figure that the largest source dominates,
 * says what a new source will see. The mean over sources weights each source once, and the lowest
 * is the figure to watch when deciding a change: a rule that lifts the pooled figure while
 * lowering the worst source was fitted to the others.
 */
export function sourceSpread(rows: readonly FormRow[]): SourceSpread {
  const by = new Map<string, FormRow[]>();
  for (const r of rows) {
    const k = `${r.repository ?? '?'} ${r.exercise}`;
    by.set(k, [...(by.get(k) ?? []), r]);
  }
  const judged: SourceSpread['judged'] = [];
  const goodOnly = { sources: 0, good: 0, goodFlagged: 0 };
  for (const [source, rs] of [...by].sort(([a], [b]) => a.localeCompare(b))) {
    const f = formFigures(rs);
    if (f.bad && f.good) judged.push({ source, figures: f });
    else if (f.good) { goodOnly.sources++; goodOnly.good += f.good; goodOnly.goodFlagged += f.goodFlagged; }
  }
  const stats = (xs: number[]) => (xs.length
    ? { mean: xs.reduce((a, b) => a + b, 0) / xs.length, min: Math.min(...xs), max: Math.max(...xs) }
    : { mean: NaN, min: NaN, max: NaN });
  return {
    judged, goodOnly,
    ba: stats(judged.map((j) => j.figures.balancedAccuracy)),
    auc: stats(judged.map((j) => j.figures.auc).filter(Number.isFinite)),
  };
}

export function formatSpread(s: SourceSpread): string {
  const pct = (x: number) => (Number.isNaN(x) ? '-' : `${Math.round(100 * x)}%`);
  const num = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(2));
  return [`by source (${s.judged.length} sources with bad and good clips, each counted once):`,
    ...s.judged.map((j) => `  ${j.source.padEnd(48)} BA ${pct(j.figures.balancedAccuracy).padStart(4)}  AUC ${num(j.figures.auc)}  (${j.figures.bad} bad, ${j.figures.good} good)`),
    `  spread: BA mean ${pct(s.ba.mean)}, lowest ${pct(s.ba.min)}, highest ${pct(s.ba.max)}; AUC mean ${num(s.auc.mean)}, lowest ${num(s.auc.min)}, highest ${num(s.auc.max)}`,
    `  sources with good clips only: ${s.goodOnly.sources}, good flagged ${s.goodOnly.goodFlagged}/${s.goodOnly.good}`].join('\n');
}

/** The rules that recorded a margin on some attempt of `rows`, sorted. */
const measuredRules = (rows: readonly FormRow[]) => [...new Set(rows.flatMap((r) => (r.reps ?? []).flatMap((p) => Object.keys(p.margins))))].sort();

/** A clip's largest margin of `rule` over its attempts (-Infinity where the rule measured none). */
const largest = (r: FormRow, rule: string) => Math.max(-Infinity, ...(r.reps ?? []).map((p) => p.margins[rule] ?? -Infinity));

/** One rule's ranking of bad above good clips on each source (ruleSeparation). */
export interface RuleSeparation { rule: string; bySource: { source: string; auc: number }[]; min: number; mean: number }

/**
 * How well each rule's own measurement ranks bad clips above good ones, source by source: per rule
 * and source with bad and good clips, the AUC of the clip's largest recorded margin of that rule
 * (rules/common.ts pastLimit; a clip the rule never measured ranks lowest). A measurement that
 * ranks well on every source carries over to people it was not looked at on; one that ranks well
 * on one source and at chance or below on another separates that source's clips, not good form
 * from bad, and is the first to doubt when a never-tuned figure falls short. Rules that measured
 * no clip of a source are left out for that source.
 */
export function ruleSeparation(rows: readonly FormRow[]): RuleSeparation[] {
  const { judged } = sourceSpread(rows);
  const bySource = (source: string) => rows.filter((r) => `${r.repository ?? '?'} ${r.exercise}` === source);
  const rules = measuredRules(rows);
  const out: RuleSeparation[] = [];
  for (const rule of rules) {
    const per = judged.map(({ source }) => {
      const rs = bySource(source);
      if (rs.every((r) => largest(r, rule) === -Infinity)) return null;
      return { source, auc: auc(rs.filter((r) => r.form === 'bad').map((r) => largest(r, rule)), rs.filter((r) => r.form === 'good').map((r) => largest(r, rule))) };
    }).filter((x): x is { source: string; auc: number } => !!x && Number.isFinite(x.auc));
    if (per.length) out.push({ rule, bySource: per, min: Math.min(...per.map((p) => p.auc)), mean: per.reduce((a, p) => a + p.auc, 0) / per.length });
  }
  return out;
}

export function formatSeparation(s: readonly RuleSeparation[]): string {
  return ['each rule\'s measurement alone, AUC of bad above good per source (largest margin of the clip; lowest, mean):',
    ...s.map((r) => `  ${r.rule.padEnd(22)} lowest ${r.min.toFixed(2)}  mean ${r.mean.toFixed(2)}  ${r.bySource.map((b) => `${b.source.split('/')[0]} ${b.auc.toFixed(2)}`).join(', ')}`)].join('\n');
}

/** How close one rule came to faulting the good clips of each source (goodHeadroom). */
export interface GoodHeadroom { rule: string; bySource: { source: string; closest: number; clips: number }[] }

/**
 * How close each rule came to faulting good clips, source by source (every source with good clips
 * the rule measured, those without bad clips too): the largest margin of any good clip, in the
 * rule's moderate bands (0 at the limit, positive a good clip faulted). A limit that good clips of
 * one source brush while those of another stay bands inside is read off one way of squatting or
 * filming; the separation above cannot show it where a source's bad clips carry another fault.
 */
export function goodHeadroom(rows: readonly FormRow[]): GoodHeadroom[] {
  const good = rows.filter((r) => r.form === 'good');
  const sources = [...new Set(good.map((r) => `${r.repository ?? '?'} ${r.exercise}`))].sort();
  return measuredRules(good).map((rule) => ({
    rule,
    bySource: sources.map((source) => {
      const ms = good.filter((r) => `${r.repository ?? '?'} ${r.exercise}` === source).map((r) => largest(r, rule)).filter((m) => m > -Infinity);
      return { source, closest: Math.max(-Infinity, ...ms), clips: ms.length };
    }).filter((b) => b.clips > 0),
  }));
}

export function formatHeadroom(h: readonly GoodHeadroom[]): string {
  return ['each rule\'s closest good clip per source (largest margin of a good clip, moderate bands; 0 is the limit; clips measured):',
    ...h.map((r) => `  ${r.rule.padEnd(22)} ${r.bySource.map((b) => `${b.source.split('/')[0]} ${b.closest.toFixed(2)} (${b.clips})`).join(', ')}`)].join('\n');
}

/** One rule's readings near its limit, in the units of their own standard error (nearLimitInSe). */
export interface SeReadings {
  rule: string;
  /** Reps past the limit, and how many of them by at most one standard error; passes within one of it. */
  good: { past: number; withinOne: number; passWithinOne: number };
  bad: { past: number; withinOne: number; passWithinOne: number };
  /** Median standard error, moderate bands. */
  medianSe: number;
}

/**
 * Per rule, over the reps of good and of bad clips: readings past the limit, those past it by at
 * most one standard error of the reading (bench/uncertainty.ts), and passes within one standard
 * error of it. A limit whose good clips' faults sit within the jitter would be helped by requiring
 * a margin of a standard error; issue 16o found the faults within it on bad clips only.
 */
export function nearLimitInSe(rows: readonly FormRow[]): SeReadings[] {
  const out = new Map<string, SeReadings>();
  const us = new Map<string, number[]>();
  for (const row of rows) {
    if (row.form !== 'good' && row.form !== 'bad') continue;
    for (const r of row.reps ?? []) {
      for (const [rule, u] of Object.entries(r.uncertain ?? {})) {
        const d = out.get(rule) ?? { rule, good: { past: 0, withinOne: 0, passWithinOne: 0 }, bad: { past: 0, withinOne: 0, passWithinOne: 0 }, medianSe: NaN };
        const m = r.margins[rule]!, side = d[row.form];
        if (m > 0) side.past++;
        if (m > 0 && m <= u) side.withinOne++;
        if (m <= 0 && m > -u) side.passWithinOne++;
        out.set(rule, d);
        us.set(rule, [...(us.get(rule) ?? []), u]);
      }
    }
  }
  return [...out.values()].sort((a, b) => a.rule.localeCompare(b.rule)).map((d) => {
    const u = us.get(d.rule)!.sort((a, b) => a - b);
    return { ...d, medianSe: u[Math.floor(u.length / 2)]! };
  });
}

export function formatSe(n: readonly SeReadings[]): string {
  const side = (x: SeReadings['good']) => `past ${x.past} (within 1 SE ${x.withinOne}), passed within 1 SE ${x.passWithinOne}`;
  return [`readings within ${NEAR_LIMIT_BANDS} band of each limit against their standard error from the clip's pose jitter (bench/uncertainty.ts; reps; SE in moderate bands):`,
    ...n.map((d) => `  ${d.rule.padEnd(22)} good: ${side(d.good)}; bad: ${side(d.bad)}; median SE ${d.medianSe.toFixed(2)}`),
    ...(n.length ? [] : ['  (none)'])].join('\n');
}

/** How one variant of the clips (bench/augment.ts, a `pose:` one) moved their verdicts (verdictFlips). */
export interface VerdictFlips {
  variant: string;
  /** The variant's own figures against the labels. */
  figures: FormFigures;
  /** Clips judged both as filmed and as the variant. */
  clips: number;
  /** Clips whose verdict (flagged or not) differs from the clip as filmed. */
  flagChanged: number;
  /** Clips whose set of issues fired differs (a changed verdict is one too). */
  rulesChanged: number;
  /** Attempts gained or lost per issue, summed over the clips: finer than the clips' verdicts. */
  repIssuesChanged: number;
  /** Mean absolute change of the clip's lowest quality_score (what the AUC ranks by). */
  minQualityChange: number;
  /** Per issue ("exercise: issue"), the clips it newly fired on and the clips it stopped firing on. */
  byRule: { rule: string; gained: number; lost: number }[];
  /** The clips whose issues fired changed, with what changed. */
  moved: { file: string; gained: string[]; lost: string[] }[];
}

/**
 * What a variant of the clips did to the verdicts, against the clips as filmed: a clip mirrored,
 * read at half its frame rate, or with noisier keypoints is the same performance, so a verdict or
 * a rule that changes under it leans on how the clip was filmed, and will not carry over to other
 * people's phones and rooms. No label is needed for this: it is judged on the tuning clips without
 * looking at the never-tuned ones, and a rule that flips often is the one to make robust first.
 */
export function verdictFlips(variant: string, rows: readonly FormRow[], base: ReadonlyMap<string, FormRow>): VerdictFlips {
  const seen = rows.filter((r) => base.has(r.file));
  const byRule = new Map<string, { gained: number; lost: number }>();
  const moved: VerdictFlips['moved'] = [];
  let flagChanged = 0, repIssuesChanged = 0, qualityChange = 0;
  for (const r of seen) {
    const b = base.get(r.file)!;
    if (r.flagged !== b.flagged) flagChanged++;
    qualityChange += Math.abs(r.minQuality - b.minQuality);
    const names = new Set([...Object.keys(r.issues), ...Object.keys(b.issues)]);
    const gained: string[] = [], lost: string[] = [];
    for (const n of [...names].sort()) {
      repIssuesChanged += Math.abs((r.issues[n] ?? 0) - (b.issues[n] ?? 0));
      const now = n in r.issues, before = n in b.issues;
      if (now === before) continue;
      (now ? gained : lost).push(n);
      const k = `${r.exercise}: ${n}`;
      const e = byRule.get(k) ?? { gained: 0, lost: 0 };
      if (now) e.gained++; else e.lost++;
      byRule.set(k, e);
    }
    if (gained.length || lost.length) moved.push({ file: r.file, gained, lost });
  }
  return {
    variant, figures: formFigures(seen), clips: seen.length, flagChanged, rulesChanged: moved.length, repIssuesChanged,
    minQualityChange: seen.length ? qualityChange / seen.length : 0,
    byRule: [...byRule].map(([rule, e]) => ({ rule, ...e })).sort((a, b) => b.gained + b.lost - (a.gained + a.lost) || a.rule.localeCompare(b.rule)),
    moved,
  };
}

export function formatFlips(f: VerdictFlips, showMoved: boolean): string {
  const pct = (x: number) => (Number.isNaN(x) ? '-' : `${Math.round(100 * x)}%`);
  const num = (x: number) => (Number.isNaN(x) ? '-' : x.toFixed(2));
  const g = f.figures;
  return [`  ${f.variant.padEnd(16)} verdict changed ${f.flagChanged}/${f.clips}, issues fired changed ${f.rulesChanged}/${f.clips}, ` +
    `attempt-issues changed ${f.repIssuesChanged}, lowest score moved ${f.minQualityChange.toFixed(1)} on average; ` +
    `labels: bad flagged ${g.badFlagged}/${g.bad}, good flagged ${g.goodFlagged}/${g.good}, BA ${pct(g.balancedAccuracy)}, AUC ${num(g.auc)}`,
  ...(f.byRule.length ? [`  ${''.padEnd(16)} flips by issue (clips gained/lost): ${f.byRule.map((r) => `${r.rule} +${r.gained}/-${r.lost}`).join(', ')}`] : []),
  ...(showMoved ? f.moved.map((m) => `  ${''.padEnd(16)}   ${m.file}: ${[...m.gained.map((n) => `+${n}`), ...m.lost.map((n) => `-${n}`)].join(', ')}`) : [])].join('\n');
}

/** Verdict stability summed over variants: the one figure to compare two versions of the rules by. */
export function flipTotals(fs: readonly VerdictFlips[]): string {
  const sum = (k: (f: VerdictFlips) => number) => fs.reduce((a, f) => a + k(f), 0);
  return `  all variants: verdict changed ${sum((f) => f.flagChanged)}/${sum((f) => f.clips)}, issues fired changed ${sum((f) => f.rulesChanged)}/${sum((f) => f.clips)}, attempt-issues changed ${sum((f) => f.repIssuesChanged)}`;
}

/**
 * Poses of one clip from an opt-in cache outside the repository, keyed by the file's SHA-256 and
 * the pose stack's settings (the form eval's key: engine version, model, frame rate): rules and
 * counting re-run in seconds.
 */
export async function cachedPoses(dir: string, key: string, path: string, extract: () => Promise<ExtractedPoses>): Promise<ExtractedPoses> {
  const base = poseCacheBase(dir, key, path);
  const hit = readPoseFiles(base);
  if (hit) return hit;
  const x = await extract();
  writePoseFiles(base, x);
  return x;
}

/** Where cachedPoses keeps a clip's poses: keyed by the file's SHA-256 and `key`. */
function poseCacheBase(dir: string, key: string, path: string): string {
  const sha = createHash('sha256').update(readFileSync(path)).digest('hex');
  return join(dir, `${sha}-${key.replace(/[^\w.-]+/g, '_')}`);
}

/** Whether cachedPoses would read the clip's poses rather than extract them. */
export function hasCachedPoses(dir: string, key: string, path: string): boolean {
  return poseFilesExist(poseCacheBase(dir, key, path));
}

export interface FormEvalOptions {
  set: 'all' | 'holdout' | 'tuning';
  only?: string[];
  /** Folder of the opt-in pose cache (see cachedPoses); without it the engine runs end to end. */
  poseCache?: string;
  json?: string;
  /** Print per-clip rows even for the holdout (only once tuning is over). */
  rows?: boolean;
  /** With poseCache: skip the clips whose poses are not cached yet (a quick look while it fills). */
  cachedOnly?: boolean;
  /**
   * Pose variants (bench/augment.ts `pose:`) to judge each clip as too: per variant, how many
   * verdicts and issues differ from the clip as filmed (verdictFlips). Tuning clips only.
   */
  augment?: Augmentation[];
}

export async function runFormEval(opts: FormEvalOptions): Promise<FormRow[]> {
  const { createPoseEngine, ENGINE_VERSION } = await import('../src/analysis/index.js');
  const { analyzePoses } = await import('../src/analysis/pipeline.js');
  const { exerciseDef } = await import('../src/analysis/rules/index.js');
  const { modelName } = await import('../src/analysis/pose/models.js');
  // A held-out clip examined since (holdout.json `examined`) is a tuning clip here as for counting.
  const held = new Set(formHoldout.clips.filter((c) => !examinedClips.has(c)));
  const all = loadFormClips();
  if (!all.length) {
    console.error(`no form labels at ${join(formVideosDir, 'labels.json')} or ${join(videosDir, 'labels.json')}`);
    process.exitCode = 1;
    return [];
  }
  const chosen = all.filter((c) => (opts.only ? opts.only.includes(c.file) : true) &&
    (opts.set === 'holdout' ? held.has(c.file) : opts.set === 'tuning' ? !held.has(c.file) : true));
  const engine: PoseEngine = createPoseEngine();
  const showRows = opts.set !== 'holdout' || opts.rows === true;
  console.log(`engine ${engine.version}; form clips: ${opts.set}${opts.only ? ` (${opts.only.length} named)` : ''}` +
    `${opts.poseCache ? `; poses cached in ${opts.poseCache}` : ''}${showRows ? '' : '; per-clip rows hidden (never-tuned set)'}`);
  const augment = opts.augment ?? [];
  if (augment.some((a) => !a.poses)) throw new Error(`the form eval takes pose variants only (pose:...), not ${augment.filter((a) => !a.poses).map((a) => a.name).join(', ')}: a picture variant needs the pose model on every clip`);
  // Variants name which rules flip on which clips: not for the never-tuned set.
  if (augment.length && opts.set !== 'tuning') throw new Error('--augment is for the tuning clips (--tuning): the never-tuned holdout is not looked at clip by clip');
  const rows: FormRow[] = [];
  const skipped: string[] = [];
  // The poses as filmed, kept for the variants (each a function of them).
  const judged: { c: FormClip; def: ExerciseDef; x: ExtractedPoses }[] = [];
  for (const c of chosen) {
    const def = exerciseDef(c.exercise);
    if (!def) { skipped.push(`${c.file} (${c.exercise})`); continue; }
    const input = { videoPath: c.path, exerciseId: c.exercise };
    let out: PipelineOutput;
    // The raw poses, for the readings' standard errors (not on the never-tuned set: nothing there is read rule by rule).
    let judgedPoses: ExtractedPoses['poses'] | undefined;
    if (opts.poseCache || augment.length) {
      // The engine version names the pose stage (tracker, decoder): poses of two stages share a folder.
      const key = `${ENGINE_VERSION} ${modelName} ${def.sampleFps ?? 12}fps`;
      const missing = new Error('not cached');
      const x = opts.poseCache
        ? await cachedPoses(opts.poseCache, key, c.path, () => (opts.cachedOnly ? Promise.reject(missing) : engine.extractPoses(input)))
          .catch((e: unknown) => { if (e === missing) return null; throw e; })
        : await engine.extractPoses(input);
      if (!x) continue;
      out = analyzePoses(def, x.poses, x.fps, { width: x.width, height: x.height });
      if (opts.set !== 'holdout') judgedPoses = x.poses;
      if (augment.length) judged.push({ c, def, x });
    } else {
      out = await engine.analyzeDetailed(input);
    }
    const r = formRow(c, out, def, judgedPoses);
    rows.push(r);
    if (showRows) {
      const issues = Object.entries(r.issues).map(([n, k]) => `${n} x${k}`).join('; ');
      console.log([r.file, r.exercise, `${r.form}${r.fault ? ` (${r.fault})` : ''}`, r.view, `${r.valid}/${r.attempts}`,
        r.flagged ? 'FLAGGED' : 'clean', `min q ${r.minQuality}`, issues].join('  '));
    }
  }
  if (skipped.length) console.log(`\nnot in the catalog, skipped: ${skipped.join(', ')}`);
  const byEx = new Map<string, FormRow[]>();
  for (const r of rows) byEx.set(r.exercise, [...(byEx.get(r.exercise) ?? []), r]);
  console.log('\nper exercise');
  for (const [k, rs] of [...byEx].sort(([a], [b]) => a.localeCompare(b))) console.log(`  ${k.padEnd(16)} ${formatFigures(formFigures(rs))}`);
  // Per source (each a different group of people, rooms and cameras) and exercise: a rule that
  // holds on one source and not another was fitted to the first, whatever the totals say.
  const bySource = new Map<string, FormRow[]>();
  for (const r of rows) {
    const k = `${r.repository ?? '?'} ${r.exercise}`;
    bySource.set(k, [...(bySource.get(k) ?? []), r]);
  }
  console.log('per source');
  for (const [k, rs] of [...bySource].sort(([a], [b]) => a.localeCompare(b))) {
    if (rs.length > 1 && new Set(rs.map((r) => r.exercise)).size === 1 && ['push-up', 'squat'].includes(rs[0]!.exercise)) console.log(`  ${k.padEnd(48)} ${formatFigures(formFigures(rs))}`);
  }
  console.log(formatSpread(sourceSpread(rows)));
  // The fit is for the clips one may tune on; on the never-tuned set it would be fitted there.
  if (opts.set !== 'holdout') console.log(`${formatLoso(leaveOneSourceOut(rows))}
${formatLosoAuc(leaveOneSourceOutAuc(rows))}
${formatSeparation(ruleSeparation(rows))}
${formatHeadroom(goodHeadroom(rows))}
${formatSe(nearLimitInSe(rows))}`);
  console.log(`\nform, ${opts.set}: ${formatFigures(formFigures(rows))}`);
  if (augment.length) {
    const base = new Map(rows.map((r) => [r.file, r]));
    const flips = augment.map((a) => verdictFlips(a.name, judged.map(({ c, def, x }) => {
      const v = a.poses!(x);
      return formRow(c, analyzePoses(def, v.poses, v.fps, { width: v.width, height: v.height }), def);
    }), base));
    console.log(`\nthe same clips filmed differently (bench/augment.ts; changes against the clips as filmed):\n${flips.map((f) => formatFlips(f, showRows)).join('\n')}\n${flipTotals(flips)}`);
  }
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ engine: engine.version, set: opts.set, rows: showRows ? rows : [], figures: formFigures(rows) }, null, 1));
  return rows;
}
