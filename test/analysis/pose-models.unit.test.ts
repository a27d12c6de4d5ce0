// The vendored ONNX models on real frames through the tracker: a person is found with a sane
// skeleton, a switch between two clips is flagged as a cut, and a missing model is the provider's
// fault (retryable), not the video's. Needs the shared clips; skipped by name without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFrames, probe, type Frame } from '../../src/analysis/decode.js';
import { ProviderUnavailableError } from '../../src/analysis/engine.js';
import { KP, type PoseFrame } from '../../src/analysis/pose.js';
import { loadPoseModels } from '../../src/analysis/pose/models.js';
import { createPoseTracker } from '../../src/analysis/pose/tracker.js';
import { videosDir } from '../../bench/eval.js';

const standing = join(videosDir, 'jj_front_man_whitewall.mp4');
const lying = join(videosDir, 'austinlhx_pushup_side.mp4');
const haveClips = existsSync(standing) && existsSync(lying);

async function firstFrames(path: string, n: number): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const f of decodeFrames(path, await probe(path))) {
    out.push({ ...f, rgb: f.rgb.slice() });
    if (out.length === n) break;
  }
  return out;
}

test('a model directory without the models is ProviderUnavailableError', async () => {
  await assert.rejects(loadPoseModels('/nonexistent/blazepose'), ProviderUnavailableError);
});

test('real frames: the person is found upright, and a switch of clip is a cut that restarts tracking', { skip: haveClips ? false : `shared clips not found at ${videosDir}` }, async () => {
  const track = createPoseTracker(await loadPoseModels());
  const a = await firstFrames(standing, 12);
  const b = (await firstFrames(lying, 40)).slice(-8);
  const poses: PoseFrame[] = [];
  for (const f of [...a, ...b]) poses.push(await track(f));
  assert.deepEqual(poses.map((p, i) => (p.cut ? i : -1)).filter((i) => i >= 0), [a.length], 'one cut, at the clip switch');
  const p = poses[a.length - 1]!;
  const k = (i: number) => p.keypoints[i]!;
  assert.equal(p.keypoints.length, 23);
  for (const i of [KP.nose, KP.leftShoulder, KP.rightShoulder, KP.leftHip, KP.rightHip]) assert.ok(k(i).score > 0.5, `keypoint ${i} seen`);
  assert.ok(k(KP.nose).y < k(KP.leftShoulder).y && k(KP.leftShoulder).y < k(KP.leftHip).y && k(KP.leftHip).y < k(KP.leftKnee).y
    && k(KP.leftKnee).y < k(KP.leftAnkle).y, 'head above shoulders above hips above knees above ankles');
  assert.ok(k(KP.leftAnkle).y <= k(KP.leftHeel).y + 30 && k(KP.leftHeel).y < p.height, 'heel at the ankle, in the frame');
  // After the cut the new clip's person is found again (a push-up: shoulders and hips level-ish).
  const q = poses[poses.length - 1]!;
  assert.ok(q.keypoints[KP.rightShoulder]!.score > 0.5 || q.keypoints[KP.leftShoulder]!.score > 0.5, 'found after the cut');
  assert.ok(track.timings.detections >= 2, 'the cut triggered a new detection');
});
