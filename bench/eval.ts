// `npm run eval`: the engine on every labelled clip in ../shared/videos, against the labels.
//   --holdout        only the clips on bench/holdout.json (never tuned on)
//   --rows           also print the held-out clips' own rows (hidden by default, here and under
//                    --augment, so that a look at the figures never shows one held-out clip's result)
//   --tuning         only the clips not on it
//   --only a.mp4,b   only these clips
//   --any            run every clip as `any` (the counter for any repeated movement), whatever its
//                    exercise, in or outside the catalog; figures per labelled exercise as usual
//   --json FILE      also write the per-clip rows as JSON (for diffs between engine versions)
//   --cache DIR      keep each clip's poses in DIR (keyed by engine version) and reuse them, so a
//                    change to counting, view or rules re-runs in seconds without the model
//   --augment A,B    also run each clip as filmed differently (bench/augment.ts: mirror, far,
//                    close, tilt, handheld, dim, fast, slow, rough, or all) and report how often
//                    each clip keeps its count and angle; `pose` (or pose:mirror, pose:half-fps,
//                    pose:lose-5, pose:slow, pose:fast, pose:far, pose:crop-legs, pose:crop-hands)
//                    changes the poses as filmed instead: no model run, seconds with --cache
//   --form           the form evaluation instead (bench/form-eval.ts): bad clips flagged, good
//                    clips flagged, balanced accuracy and AUC per exercise, on ../shared/form-videos
//                    and the shared clips labelled with form; with --holdout / --tuning the split of
//                    bench/form-holdout.json (--holdout prints no per-clip rows unless --rows);
//                    --pose-cache DIR reuses poses keyed by the file's SHA-256 (opt-in, for tuning;
//                    --cached-only skips clips not cached yet); with --augment (pose variants only,
//                    with --tuning only) each variant's figures and how many clips' verdicts and
//                    issues fired differ from the clips as filmed, by issue
// Prints one row per clip, then figures overall, per exercise and per camera angle: exact count
// (over clips whose count is labelled "sure"), within one (over all), mean absolute error, camera
// angle right, and how often reps carry a form issue on clips labelled good or bad form.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPoseEngine, ENGINE_FPS, type ExtractedPoses, type PoseEngine } from '../src/analysis/index.js';
import { analyzePoses } from '../src/analysis/pipeline.js';
import { exerciseDef } from '../src/analysis/rules/index.js';
import { readPoseFiles, writePoseFiles } from './pose-files.js';
import { pickAugmentations, type Augmentation } from './augment.js';
import { videosDir } from './shared-videos.js';
import { holdout } from './holdout.js';

export interface Label {
  file: string;
  exercise: string;
  reps: number;
  camera_angle?: string;
  /** "sure" or "±1": a ±1 count is not used for the exact-count figure. */
  confidence?: string;
  form?: 'good' | 'bad' | 'mixed';
}

export { videosDir };

/**
 * Labels that name a variant the catalog files under a broader exercise, as a user picking from the
 * catalog would: a pec-deck and a cable crossover are both the catalog's chest fly (same movement,
 * same signal and rules); a barbell, concentration or preacher curl is a biceps curl (the elbow
 * flexes, whatever holds the weight or the arm); a close-grip bench press is a bench press; a
 * standing barbell overhead press is a shoulder press; a split squat is a lunge (the shared
 * `nowva_lunge` clip is split squats labelled lunge). Chosen by name before these clips were run as
 * the named exercise.
 */
export const catalogIdOf: Readonly<Record<string, string>> = {
  'pec-deck-fly': 'chest-fly', 'cable-fly': 'chest-fly',
  'barbell-curl': 'bicep-curl', 'concentration-curl': 'bicep-curl', 'preacher-curl': 'bicep-curl',
  'close-grip-bench-press': 'bench-press', 'overhead-press': 'shoulder-press', 'split-squat': 'lunge',
};

/** The catalog in the parts it grew by: the first nine, the nine added next, issue 20's twelve. */
const FIRST_NINE = ['squat', 'push-up', 'lunge', 'bicep-curl', 'shoulder-press', 'jumping-jack', 'glute-bridge', 'sit-up', 'side-lunge'];
const ADDED_NINE = ['bench-press', 'burpee', 'calf-raise', 'deadlift', 'front-raise', 'lateral-raise', 'pull-up', 'thruster', 'tricep-pushdown'];
export function catalogPart(exercise: string): string {
  return FIRST_NINE.includes(exercise) ? 'first nine' : ADDED_NINE.includes(exercise) ? 'added nine' : exercise === 'any' ? 'any' : 'issue 20 twelve';
}

export function loadLabels(dir = videosDir): Label[] | null {
  const p = join(dir, 'labels.json');
  if (!existsSync(p)) return null;
  return (JSON.parse(readFileSync(p, 'utf8')) as Label[]).map((l) => ({ ...l, exercise: catalogIdOf[l.exercise] ?? l.exercise }));
}

/** Clips never tuned on: bench/holdout.ts. */
export { holdout };

export interface ClipRow {
  file: string;
  exercise: string;
  labeled: number;
  sure: boolean;
  valid: number;
  attempts: number;
  view: string;
  labeledView: string;
  form?: string;
  /** Valid reps carrying at least one form issue. */
  flagged: number;
  rtf: number;
  msPerFrame: number;
}

export interface Figures {
  clips: number;
  exact: number;
  exactOf: number;
  within1: number;
  mae: number;
  viewRight: number;
  viewOf: number;
  cleanFlagged: number;
  cleanReps: number;
  badFlagged: number;
  badReps: number;
}

export function figures(rows: readonly ClipRow[]): Figures {
  const err = (r: ClipRow) => Math.abs(r.valid - r.labeled);
  const sure = rows.filter((r) => r.sure);
  const viewed = rows.filter((r) => r.labeledView !== '?');
  const sum = (rs: ClipRow[], f: (r: ClipRow) => number) => rs.reduce((a, r) => a + f(r), 0);
  const good = rows.filter((r) => r.form === 'good');
  const bad = rows.filter((r) => r.form === 'bad');
  return {
    clips: rows.length,
    exact: sure.filter((r) => err(r) === 0).length,
    exactOf: sure.length,
    within1: rows.filter((r) => err(r) <= 1).length,
    mae: rows.length ? sum([...rows], err) / rows.length : 0,
    viewRight: viewed.filter((r) => r.view === r.labeledView).length,
    viewOf: viewed.length,
    cleanFlagged: sum(good, (r) => r.flagged),
    cleanReps: sum(good, (r) => r.valid),
    badFlagged: sum(bad, (r) => r.flagged),
    badReps: sum(bad, (r) => r.valid),
  };
}

function fmt(f: Figures): string {
  const pct = (a: number, b: number) => (b ? `${a}/${b} (${Math.round((100 * a) / b)}%)` : '-');
  return `clips ${f.clips}  exact ${pct(f.exact, f.exactOf)}  within one ${pct(f.within1, f.clips)}  MAE ${f.mae.toFixed(2)}` +
    `  angle ${pct(f.viewRight, f.viewOf)}  clean reps flagged ${pct(f.cleanFlagged, f.cleanReps)}  bad reps flagged ${pct(f.badFlagged, f.badReps)}`;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((v, c) => (c >= 2 ? v.padStart(widths[c]!) : v.padEnd(widths[c]!))).join('  ')).join('\n');
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const cacheBase = (dir: string, version: string, file: string) => join(dir, `${version.replace(/[^\w.-]+/g, '_')}--${file}`);

/** Poses of one clip from the cache, or null when they are not there. */
export const readCachedPoses = (dir: string, version: string, file: string): ExtractedPoses | null => readPoseFiles(cacheBase(dir, version, file));

/** Poses of one clip from the cache, or extracted (by `extract`) and stored there under `key`. */
export async function cachedPoses(dir: string, key: string, file: string, extract: () => Promise<ExtractedPoses>): Promise<ExtractedPoses> {
  const hit = readCachedPoses(dir, key, file);
  if (hit) return hit;
  const x = await extract();
  writePoseFiles(cacheBase(dir, key, file), x);
  return x;
}

/**
 * The poses of a clip as filmed differently: pictures changed before the pose model, and a speed
 * change made by sampling at `fps / speed` and presenting the frames `1 / fps` apart.
 */
function augmentedPoses(a: Augmentation) {
  const engines = new Map<number, PoseEngine>();
  return async (l: Label): Promise<ExtractedPoses> => {
    const fps = exerciseDef(l.exercise)?.sampleFps ?? ENGINE_FPS;
    const speed = a.speed ?? 1;
    const decodeFps = Math.round(fps / speed);
    let engine = engines.get(decodeFps);
    if (!engine) engines.set(decodeFps, (engine = createPoseEngine({ decode: { fps: decodeFps }, ...(a.frame ? { frameTransform: a.frame } : {}) })));
    const x = await engine.extractPoses({ videoPath: join(videosDir, l.file), exerciseId: l.exercise });
    if (speed === 1) return x;
    const step = 1000 / fps;
    return { ...x, fps, videoMs: x.poses.length * step, poses: x.poses.map((p, i) => ({ ...p, timeMs: Math.round(i * step) })) };
  };
}

/**
 * A held-out clip's own row is not shown unless asked for (--rows): the figures count it, but a
 * tuning session that reads its row has tuned on it (stop 30's brief named four such clips). That
 * holds for the line printed as each clip is done too: it gives the clip's count and flagged reps.
 */
const shownRow = (file: string) => process.argv.includes('--rows') || !holdout.has(file);

/** One row per clip of `chosen` (printed as it goes, held-out clips' only with --rows); `augment` films them differently. */
async function evaluate(chosen: Label[], skipped: string[], augment?: Augmentation): Promise<ClipRow[]> {
  // With --any every clip is analysed as `any`; rows keep the labelled exercise for the figures.
  const asAny = process.argv.includes('--any');
  const idOf = (l: Label) => (asAny ? 'any' : l.exercise);
  const engine = createPoseEngine();
  const cache = arg('--cache');
  const filmed = (l: Label) => engine.extractPoses({ videoPath: join(videosDir, l.file), exerciseId: idOf(l) });
  // A pose variant changes the poses as filmed, so it reads (and fills) the cache under theirs.
  const onPoses = augment?.poses;
  const poses = augment && !onPoses ? augmentedPoses(augment) : filmed;
  const key = augment && !onPoses ? `${engine.version} ${augment.name}` : engine.version;
  const rows: ClipRow[] = [];
  for (const l of chosen) {
    if (!exerciseDef(idOf(l))) {
      if (!augment) skipped.push(`${l.file} (${l.exercise})`);
      continue;
    }
    const out = cache || augment
      ? await (async () => {
        const found = cache ? await cachedPoses(cache, key, l.file, () => poses(l)) : await poses(l);
        const x = onPoses ? onPoses(found) : found;
        return { ...analyzePoses(exerciseDef(idOf(l))!, x.poses, x.fps, { width: x.width, height: x.height }), stats: { frames: x.poses.length, videoMs: x.videoMs, wallMs: x.wallMs } };
      })()
      : await engine.analyzeDetailed({ videoPath: join(videosDir, l.file), exerciseId: idOf(l) });
    const valid = out.result.repetitions.filter((r) => r.is_valid_rep);
    rows.push({
      file: l.file, exercise: l.exercise, labeled: l.reps, sure: l.confidence !== '±1', valid: valid.length,
      attempts: out.result.repetitions.length, view: out.view, labeledView: l.camera_angle ?? '?',
      ...(l.form ? { form: l.form } : {}),
      flagged: valid.filter((r) => r.issues.length > 0).length,
      rtf: out.stats.videoMs / out.stats.wallMs, msPerFrame: out.stats.wallMs / Math.max(1, out.stats.frames),
    });
    const r = rows[rows.length - 1]!;
    if (shownRow(r.file)) console.log([augment ? `[${augment.name}] ${r.file}` : r.file, r.exercise, `${r.valid}/${r.labeled}${r.sure ? '' : '±1'}`, `${r.view}/${r.labeledView}`,
      `flagged ${r.flagged}`, `RTF ${r.rtf.toFixed(2)}`].join('  '));
  }
  return rows;
}

/**
 * One variant's figures: against the labels (as `fmt`), and against the clips as filmed: same
 * count, count within one, same camera angle; then the same per part of the catalog, and the clips
 * that moved.
 */
export function augmentLines(name: string, rows: readonly ClipRow[], base: ReadonlyMap<string, ClipRow>, shown: (file: string) => boolean = () => true): string[] {
  const agree = (rs: readonly ClipRow[]) => {
    const of = (ok: (r: ClipRow, b: ClipRow) => boolean) => `${rs.filter((r) => ok(r, base.get(r.file)!)).length}/${rs.length}`;
    return `as filmed: same count ${of((r, b) => r.valid === b.valid)}, within one ${of((r, b) => Math.abs(r.valid - b.valid) <= 1)}, same angle ${of((r, b) => r.view === b.view)}`;
  };
  const seen = rows.filter((r) => base.has(r.file));
  const parts = new Map<string, ClipRow[]>();
  for (const r of seen) parts.set(catalogPart(r.exercise), [...(parts.get(catalogPart(r.exercise)) ?? []), r]);
  const moved = seen.filter((r) => base.get(r.file)!.valid !== r.valid || base.get(r.file)!.view !== r.view);
  const hiddenMoved = moved.filter((r) => !shown(r.file)).length;
  return [
    `  ${name.padEnd(15)} ${agree(seen)}`,
    `  ${''.padEnd(15)} labels: ${fmt(figures(seen))}`,
    ...[...parts].sort(([a], [b]) => a.localeCompare(b)).map(([k, rs]) => `  ${''.padEnd(15)} ${k}: ${agree(rs)}; labels: exact ${figures(rs).exact}/${figures(rs).exactOf}, within one ${figures(rs).within1}/${rs.length}`),
    ...(moved.length ? [`  ${''.padEnd(15)} moved: ${[...moved.filter((r) => shown(r.file)).map((r) => { const b = base.get(r.file)!; return `${r.file} ${b.valid}->${r.valid} (${r.labeled})${b.view !== r.view ? ` ${b.view}->${r.view}` : ''}`; }),
      ...(hiddenMoved ? [`${hiddenMoved} held-out clip${hiddenMoved > 1 ? 's' : ''}`] : [])].join(', ')}`] : []),
  ];
}

async function main() {
  if (process.argv.includes('--form')) {
    const { runFormEval } = await import('./form-eval.js');
    const set = process.argv.includes('--holdout') ? 'holdout' : process.argv.includes('--tuning') ? 'tuning' : 'all';
    const only = arg('--only')?.split(',');
    const poseCache = arg('--pose-cache'), json = arg('--json');
    const augment = arg('--augment') ? pickAugmentations(arg('--augment')!) : undefined;
    await runFormEval({
      set, rows: process.argv.includes('--rows'), cachedOnly: process.argv.includes('--cached-only'),
      ...(only ? { only } : {}), ...(poseCache ? { poseCache } : {}), ...(json ? { json } : {}), ...(augment ? { augment } : {}),
    });
    return;
  }
  const labels = loadLabels();
  if (!labels) {
    console.error(`no labels at ${join(videosDir, 'labels.json')}`);
    process.exitCode = 1;
    return;
  }
  const only = arg('--only')?.split(',');
  const set = process.argv.includes('--holdout') ? 'holdout' : process.argv.includes('--tuning') ? 'tuning' : 'all';
  const chosen = labels.filter((l) =>
    (only ? only.includes(l.file) : true) &&
    (set === 'holdout' ? holdout.has(l.file) : set === 'tuning' ? !holdout.has(l.file) : true));
  const augments = arg('--augment') ? pickAugmentations(arg('--augment')!) : [];
  const engine = createPoseEngine();
  console.log(`engine ${engine.version}; clips: ${set}${only ? ` (${only.length} named)` : ''}${process.argv.includes('--any') ? '; every clip run as any' : ''}`);
  const skipped: string[] = [];
  const rows = await evaluate(chosen, skipped);
  const hiddenRows = rows.filter((r) => !shownRow(r.file)).length;
  console.log('\n' + table([
    ['clip', 'exercise', 'labeled', 'valid', 'attempts', 'angle found/labeled', 'form', 'flagged', 'ms/frame', 'RTF'],
    ...rows.filter((r) => shownRow(r.file)).map((r) => [r.file, r.exercise, `${r.labeled}${r.sure ? '' : '±1'}`, String(r.valid), String(r.attempts),
      `${r.view}/${r.labeledView}`, r.form ?? '-', String(r.flagged), r.msPerFrame.toFixed(1), r.rtf.toFixed(2)]),
  ]));
  if (hiddenRows) console.log(`(${hiddenRows} held-out clips' rows hidden: they are in the figures below; --rows shows them)`);
  if (skipped.length) console.log(`\nnot in the catalog, skipped: ${skipped.join(', ')}`);
  const group = (key: (r: ClipRow) => string) => {
    const m = new Map<string, ClipRow[]>();
    for (const r of rows) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
    return [...m].sort(([a], [b]) => a.localeCompare(b));
  };
  console.log('\nper exercise');
  for (const [k, rs] of group((r) => r.exercise)) console.log(`  ${k.padEnd(16)} ${fmt(figures(rs))}`);
  console.log('per part of the catalog (as issue 20 checks them)');
  for (const [k, rs] of group((r) => catalogPart(r.exercise))) console.log(`  ${k.padEnd(16)} ${fmt(figures(rs))}`);
  console.log('per camera angle (labeled)');
  for (const [k, rs] of group((r) => r.labeledView)) console.log(`  ${k.padEnd(16)} ${fmt(figures(rs))}`);
  console.log(`\n${set}: ${fmt(figures(rows))}`);
  const rtfs = rows.map((r) => r.rtf).sort((a, b) => a - b);
  if (rtfs.length) console.log(`real-time factor: min ${rtfs[0]!.toFixed(2)}  median ${rtfs[Math.floor(rtfs.length / 2)]!.toFixed(2)}`);
  if (augments.length) {
    // Per variant: the same figures, and how many clips keep the count they had as filmed. A clip
    // whose count moves under a harmless change shows where the engine leans on how it was filmed.
    console.log('\nfilmed differently (bench/augment.ts)');
    const base = new Map(rows.map((r) => [r.file, r]));
    const lines: string[] = [];
    for (const a of augments) {
      const ar = await evaluate(chosen, skipped, a);
      lines.push(...augmentLines(a.name, ar, base, shownRow));
    }
    console.log(lines.join('\n'));
  }
  const json = arg('--json');
  if (json) writeFileSync(json, JSON.stringify({ engine: engine.version, set, rows }, null, 1));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
