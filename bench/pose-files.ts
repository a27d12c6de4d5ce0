// One clip's extracted poses on disk, for the evals' opt-in caches (bench/eval.ts keys them by the
// engine version and the file's name, bench/form-eval.ts and the story clip test by the file's
// SHA-256): BASE.bin holds a Float32 row per frame (time, packed x/y/confidence, then depth when
// any frame has it, NaN where a frame has none), BASE.json the rest of the extraction and the layout.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ExtractedPoses } from '../src/analysis/index.js';
import type { PackedPose } from '../src/analysis/pose.js';

interface Layout { stride: number; n: number; depth: boolean; cuts: number[] }

/** The poses stored under `base`, or null when they are not there. */
export const poseFilesExist = (base: string): boolean => existsSync(`${base}.json`) && existsSync(`${base}.bin`);

export function readPoseFiles(base: string): ExtractedPoses | null {
  if (!poseFilesExist(base)) return null;
  // Older files also carry rowLen; it is always the one computed here.
  const { stride, n, depth, cuts, rowLen: _r, ...rest } = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Omit<ExtractedPoses, 'poses'> & Layout & { rowLen?: number };
  const buf = readFileSync(`${base}.bin`);
  const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  const rowLen = 1 + stride + (depth ? stride / 3 : 0);
  const poses: PackedPose[] = [];
  for (let i = 0; i < n; i++) {
    const row = all.subarray(i * rowLen, (i + 1) * rowLen);
    poses.push({
      timeMs: row[0]!, packed: row.slice(1, 1 + stride),
      ...(depth && !Number.isNaN(row[1 + stride]) ? { depth: row.slice(1 + stride) } : {}),
      ...(cuts.includes(i) ? { cut: true } : {}),
    });
  }
  return { ...rest, poses };
}

/** Stores `x` under `base` (its folder made when missing). */
export function writePoseFiles(base: string, x: ExtractedPoses): void {
  const stride = x.poses[0]?.packed.length ?? 0;
  // Depth is stored when any frame has it (the first may have found nobody); NaN marks the others.
  const depth = x.poses.some((p) => p.depth !== undefined);
  const rowLen = 1 + stride + (depth ? stride / 3 : 0);
  const all = new Float32Array(x.poses.length * rowLen);
  x.poses.forEach((p, i) => {
    all[i * rowLen] = p.timeMs;
    all.set(p.packed, i * rowLen + 1);
    if (depth) all.set(p.depth ?? new Float32Array(stride / 3).fill(NaN), i * rowLen + 1 + stride);
  });
  mkdirSync(dirname(base), { recursive: true });
  writeFileSync(`${base}.bin`, all);
  const { poses: _p, ...meta } = x;
  const layout: Layout = { stride, n: x.poses.length, depth, cuts: x.poses.flatMap((p, i) => (p.cut ? [i] : [])) };
  writeFileSync(`${base}.json`, JSON.stringify({ ...meta, ...layout }));
}
