// Reused poses (src/runner/pose-cache.ts): only for the same bytes, the same exercise and the same
// partner, only while the video is kept, within a memory cap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPoseCache } from '../../src/runner/pose-cache.js';
import type { ExtractedPoses } from '../../src/analysis/index.js';
import { removeDir } from '../support/remove-dir.js';

const posesOf = (frames: number): ExtractedPoses => ({
  poses: Array.from({ length: frames }, (_, i) => ({ timeMs: i * 83, packed: new Float32Array(69) })),
  fps: 12, width: 640, height: 360, videoMs: frames * 83, wallMs: 1,
  pose: { frames, warpMs: 0, detectorMs: 0, landmarkMs: 0, detections: 0, landmarkRuns: 0, cuts: 0 },
});

test('poses are reused for the same bytes, exercise and partner while the video is kept, and for nothing else', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pose-cache-'));
  t.after(() => removeDir(dir));
  const a = join(dir, 'a.mp4'), sameBytes = join(dir, 'copy.mp4'), b = join(dir, 'b.mp4');
  writeFileSync(a, 'the same video bytes');
  writeFileSync(sameBytes, 'the same video bytes');
  writeFileSync(b, 'other video bytes');
  let clock = 0;
  const cache = createPoseCache(1 << 20, () => clock);
  let extractions = 0;
  const extract = async () => { extractions++; return posesOf(19); };
  const keep = { scope: 'key_a', forMs: 1000 };

  const first = await cache.get(a, 'squat', keep, extract);
  assert.equal(first.reused, false);
  const again = await cache.get(sameBytes, 'squat', keep, extract);
  assert.equal(again.reused, true, 'same bytes under another name: reused');
  assert.equal(again.poses, first.poses);
  assert.equal(extractions, 1);

  assert.equal((await cache.get(a, 'squat', { scope: 'key_b', forMs: 1000 }, extract)).reused, false, 'another partner never gets them');
  assert.equal((await cache.get(a, 'jumping_jack', keep, extract)).reused, false, 'another exercise (sampling rate) does not');
  assert.equal((await cache.get(b, 'squat', keep, extract)).reused, false, 'other bytes do not');
  assert.equal((await cache.get(a, 'squat', undefined, extract)).reused, false, 'a job that allows no reuse');
  assert.equal((await cache.get(a, 'squat', { scope: 'key_a', forMs: 0 }, extract)).reused, false, 'retention 0 keeps nothing');
  assert.equal(extractions, 6);

  clock = 1001;
  assert.equal((await cache.get(a, 'squat', keep, extract)).reused, false, 'gone once the video\'s retention is over');
});

test('the cache stays within its memory cap, dropping the least recently used', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'pose-cache-'));
  t.after(() => removeDir(dir));
  const files = [0, 1, 2].map((i) => { const p = join(dir, `${i}.mp4`); writeFileSync(p, `video ${i}`); return p; });
  // Room for two clips of 100 frames (~370 bytes each), not three.
  const cache = createPoseCache(2 * 100 * 400);
  const keep = { scope: 'k', forMs: 60_000 };
  const extract = async () => posesOf(100);
  await cache.get(files[0]!, 'squat', keep, extract);
  await cache.get(files[1]!, 'squat', keep, extract);
  assert.equal((await cache.get(files[0]!, 'squat', keep, extract)).reused, true); // 0 is now the most recent
  await cache.get(files[2]!, 'squat', keep, extract); // evicts 1
  assert.equal((await cache.get(files[0]!, 'squat', keep, extract)).reused, true);
  assert.equal((await cache.get(files[1]!, 'squat', keep, extract)).reused, false);
  // A video whose poses alone exceed the cap is analysed and not kept.
  const huge = createPoseCache(1000);
  await huge.get(files[0]!, 'squat', keep, extract);
  assert.equal((await huge.get(files[0]!, 'squat', keep, extract)).reused, false);
});
