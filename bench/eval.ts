// `npm run eval`: the engine on every labelled clip in ../shared/videos, against the labels.
// Prints one row per clip, then exact-count rate, off-by-one rate and mean absolute error.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPoseEngine } from '../src/analysis/index.js';

export interface Label { file: string; exercise: string; reps: number; camera_angle?: string }

/** ../shared/videos beside the repository; SHARED_VIDEOS_DIR overrides it. */
export const videosDir = process.env.SHARED_VIDEOS_DIR
  ? resolve(process.env.SHARED_VIDEOS_DIR)
  : resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'videos');

export function loadLabels(dir = videosDir): Label[] | null {
  const p = join(dir, 'labels.json');
  return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as Label[]) : null;
}

async function main() {
  const labels = loadLabels();
  if (!labels) {
    console.error(`no labels at ${join(videosDir, 'labels.json')}`);
    process.exitCode = 1;
    return;
  }
  const engine = createPoseEngine();
  console.log(`engine ${engine.version}`);
  const rows: string[][] = [['clip', 'exercise', 'labeled', 'valid', 'attempts', 'angle found/labeled', 'ms/frame', 'RTF']];
  const errors: number[] = [];
  for (const l of labels) {
    const out = await engine.analyzeDetailed({ videoPath: join(videosDir, l.file), exerciseId: l.exercise });
    const reps = out.result.repetitions;
    const valid = reps.filter((r) => r.is_valid_rep).length;
    errors.push(Math.abs(valid - l.reps));
    rows.push([
      l.file, l.exercise, String(l.reps), String(valid), String(reps.length),
      `${out.view}/${l.camera_angle ?? '?'}`,
      (out.stats.wallMs / Math.max(1, out.stats.frames)).toFixed(1),
      (out.stats.videoMs / out.stats.wallMs).toFixed(2),
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((v, c) => (c >= 2 ? v.padStart(widths[c]!) : v.padEnd(widths[c]!))).join('  '));
  const n = errors.length;
  const pct = (k: number) => `${((100 * k) / n).toFixed(0)}%`;
  console.log(`\nexact count: ${pct(errors.filter((e) => e === 0).length)} (${errors.filter((e) => e === 0).length}/${n})` +
    `  off by one: ${pct(errors.filter((e) => e === 1).length)}` +
    `  mean absolute error: ${(errors.reduce((a, b) => a + b, 0) / n).toFixed(2)} reps`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
