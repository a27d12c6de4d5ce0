// The tracker's fallback when the person detector finds no one (tracker.ts fallbackPose): the
// landmark model on the whole frame and the last ROI finds the body of a close-up with the head out
// of the picture, and finds no one in a picture with no person (flat grey, noise, a real dumbbell
// rack, which the landmark model alone reads people into), at a bounded cost per lost frame.
// Real models on real frames; the parts needing the shared clips are skipped by name without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFrames, probe, type Frame } from '../../src/analysis/decode.js';
import type { PoseFrame } from '../../src/analysis/pose.js';
import { loadPoseModels, type PoseModels } from '../../src/analysis/pose/models.js';
import { createPoseTracker } from '../../src/analysis/pose/tracker.js';
import { videosDir } from '../../bench/eval.js';

const closeUp = join(videosDir, 'bicep-curl_chauhan08.mp4');
const noClip = existsSync(closeUp) ? false : `shared clips not found at ${videosDir}`;
let models: Promise<PoseModels> | undefined;
const getModels = () => (models ??= loadPoseModels());

const found = (p: PoseFrame) => p.keypoints.some((k) => k.score > 0);

async function frames(path: string, n: number, crop?: { x: number; y: number; w: number; h: number }): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const f of decodeFrames(path, await probe(path), { fps: 12, maxSide: 960 })) {
    if (!crop) out.push({ ...f, rgb: f.rgb.slice() });
    else {
      const rgb = new Uint8Array(crop.w * crop.h * 3);
      for (let y = 0; y < crop.h; y++) rgb.set(f.rgb.subarray(((crop.y + y) * f.width + crop.x) * 3, ((crop.y + y) * f.width + crop.x + crop.w) * 3), y * crop.w * 3);
      out.push({ ...f, width: crop.w, height: crop.h, rgb });
    }
    if (out.length === n) break;
  }
  return out;
}

test('pictures with no person: no pose on any frame, and at most one landmark run per fallback ROI on each search', async () => {
  const W = 320, H = 240;
  const grey = (i: number): Frame => ({ index: i, timeMs: i * 83, width: W, height: H, rgb: new Uint8Array(W * H * 3).fill(128) });
  let seed = 7;
  const noise = (i: number): Frame => ({ index: i, timeMs: i * 83, width: W, height: H, rgb: Uint8Array.from({ length: W * H * 3 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24) });
  for (const [name, make] of [['grey', grey], ['noise', noise]] as const) {
    const track = createPoseTracker(await getModels());
    for (let i = 0; i < 30; i++) assert.ok(!found(await track(make(i))), `${name}: no one on frame ${i}`);
    // Never a person, so never a last ROI: one fallback ROI (the whole frame) per detector run.
    assert.ok(track.timings.landmarkRuns <= track.timings.detections, `${name}: ${track.timings.landmarkRuns} landmark runs for ${track.timings.detections} searches`);
    assert.ok(track.timings.detections <= 5 + Math.ceil(25 / 3), `${name}: searches throttled after the grace (${track.timings.detections})`);
  }
});

test('a dumbbell rack with no one in it: the fallback reads no person into it', { skip: noClip }, async () => {
  // The left strip of the close-up's gym (racks, a pillar), away from the person: the landmark
  // model alone finds a "person" there on most frames with high presence; the passes disagree.
  const track = createPoseTracker(await getModels());
  const rack = await frames(closeUp, 60, { x: 0, y: 100, w: 150, h: 260 });
  const withPose = [];
  for (const f of rack) if (found(await track(f))) withPose.push(f.index);
  assert.deepEqual(withPose, [], 'no frame of the rack has a pose');
});

test('a close-up with the head out of the picture: the body is found on most of the first 3 s', { skip: noClip }, async () => {
  // The detector finds people by the face; before the fallback, 7 of these 36 frames had a pose.
  const track = createPoseTracker(await getModels());
  let n = 0;
  for (const f of await frames(closeUp, 36)) if (found(await track(f))) n++;
  assert.ok(n >= 18, `${n} of 36 frames with a pose`);
});
