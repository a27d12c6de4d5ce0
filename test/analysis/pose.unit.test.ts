import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cropAround, cropResize, fullFrameCrop, KP, type Keypoint } from '../../src/analysis/pose.js';
import { outputSize } from '../../src/analysis/decode.js';

const frame = (width: number, height: number, f: (x: number, y: number) => number) => {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rgb.fill(f(x, y), (y * width + x) * 3, (y * width + x) * 3 + 3);
  return { index: 0, timeMs: 0, width, height, rgb };
};

test('cropResize samples the corners of the crop exactly and interpolates between them', () => {
  const img = frame(3, 3, (x) => x * 100); // columns 0, 100, 200
  const out = cropResize(img, { xMin: 0, xMax: 1, yMin: 0, yMax: 1 }, 5);
  assert.deepEqual([out[0], out[3], out[6], out[9], out[12]], [0, 50, 100, 150, 200]);
});

test('cropResize pads outside the frame with black, as the letterboxed model input expects', () => {
  const img = frame(4, 2, () => 255);
  const out = cropResize(img, fullFrameCrop(4, 2), 4);
  assert.equal(out[0], 0); // first row lies above the frame
  assert.ok(out.includes(255));
});

test('the tracker crop centres on the torso and keeps margin around the limbs', () => {
  const kps: Keypoint[] = new Array(17).fill(0).map(() => ({ x: 500, y: 300, score: 0.9 }));
  kps[KP.leftShoulder] = { x: 490, y: 250, score: 0.9 }; kps[KP.rightShoulder] = { x: 510, y: 250, score: 0.9 };
  kps[KP.leftHip] = { x: 495, y: 350, score: 0.9 }; kps[KP.rightHip] = { x: 505, y: 350, score: 0.9 };
  kps[KP.leftWrist] = { x: 500, y: 150, score: 0.9 };
  const c = cropAround(kps, 1000, 600)!;
  assert.ok(c.yMin * 600 < 150 && c.yMax * 600 > 350, 'crop holds the raised wrist and the hips');
  assert.equal(cropAround(kps.map((k) => ({ ...k, score: 0.05 })), 1000, 600), null);
});

test('decoded frames keep the aspect ratio, an even size and a bounded longest side', () => {
  assert.deepEqual(outputSize({ width: 1920, height: 1080, fps: 30, durationMs: 0 }, 960), { width: 960, height: 540 });
  assert.deepEqual(outputSize({ width: 406, height: 720, fps: 30, durationMs: 0 }, 960), { width: 406, height: 720 });
});
