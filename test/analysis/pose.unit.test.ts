// The pure parts of the pose stack: ROI geometry and warping, SSD anchors and box decoding,
// landmark decoding, cut detection and the jump check. The networks themselves are checked
// against their TF.js originals by scripts/check-blazepose-onnx.ts and end to end by the engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KP, KP_COUNT, kpAt, packPose, type Keypoint } from '../../src/analysis/pose.js';
import { outputSize, type Frame } from '../../src/analysis/decode.js';
import { fromRoi, fullFrameRoi, roiFromAlignment, warpRoi } from '../../src/analysis/pose/roi.js';
import { ANCHOR_COUNT, createAnchors, decodeDetections, detectionRoi, pickProminent, type Detection } from '../../src/analysis/pose/detector.js';
import { BLAZEPOSE_INDEX, decodeLandmarks } from '../../src/analysis/pose/landmarks.js';
import { createCutDetector } from '../../src/analysis/pose/cuts.js';
import { implausibleJump } from '../../src/analysis/pose/tracker.js';

const frame = (width: number, height: number, f: (x: number, y: number) => [number, number, number] | number): Frame => {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
    const v = f(x, y);
    rgb.set(typeof v === 'number' ? [v, v, v] : v, (y * width + x) * 3);
  }
  return { index: 0, timeMs: 0, width, height, rgb };
};
const near = (a: number, b: number, eps = 1e-6) => assert.ok(Math.abs(a - b) < eps, `${a} != ${b}`);
const identity = { scale: 1, offset: 0 };

test('warpRoi reproduces the frame at its own size and interpolates at half steps', () => {
  const img = frame(4, 4, (x, y) => x * 10 + y * 50);
  const same = warpRoi(img, fullFrameRoi(4, 4), 4, identity);
  for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) near(same[(y * 4 + x) * 3]!, x * 10 + y * 50);
  // An 8x8 sample of the inner 2x2 pixel block centred at (2, 2): pixel centres fall on quarter steps.
  const zoom = warpRoi(img, { cx: 2, cy: 2, size: 2, angle: 0 }, 4, identity);
  // First output centre: 1/8 of the 2-pixel ROI from its corner (1, 1), frame position 1.25, which is
  // 0.75 of the way from pixel centre 0.5 to pixel centre 1.5.
  near(zoom[0]!, 0.75 * 10 + 0.75 * 50, 1e-4);
});

test('warpRoi fills outside the frame with black in the model range and maps the range', () => {
  const img = frame(4, 2, () => 255);
  const out = warpRoi(img, fullFrameRoi(4, 2), 4, { scale: 2 / 255, offset: -1 });
  near(out[0]!, -1); // top row lies above the letterboxed frame
  assert.ok(out.some((v) => Math.abs(v - 1) < 1e-6), 'frame pixels map to +1');
});

test('a rotated ROI samples the image so that the body is upright', () => {
  // Bright column on the right half of the frame: rotated by 90 degrees it becomes the top half.
  const img = frame(8, 8, (x) => (x >= 4 ? 200 : 0));
  const out = warpRoi(img, { cx: 4, cy: 4, size: 8, angle: Math.PI / 2 }, 8, identity);
  assert.ok(out[(1 * 8 + 4) * 3]! > 150, 'top of the crop is the right of the frame');
  assert.ok(out[(6 * 8 + 4) * 3]! < 50, 'bottom of the crop is the left of the frame');
});

test('roiFromAlignment: upright body unrotated, body lying head-right turned a quarter, size 2.5 radii', () => {
  const up = roiFromAlignment({ x: 100, y: 200 }, { x: 100, y: 100 });
  near(up.angle, 0); near(up.size, 250); near(up.cx, 100); near(up.cy, 200);
  const lying = roiFromAlignment({ x: 100, y: 200 }, { x: 180, y: 200 });
  near(lying.angle, Math.PI / 2);
  // The top centre of the ROI lies on the alignment side.
  const top = fromRoi(lying, 0.5, 0);
  assert.ok(top.x > 100 + 80, `top of the ROI at x=${top.x}`);
  near(top.y, 200, 1e-9);
});

test('the detector has 2254 anchors in MediaPipe order', () => {
  const a = createAnchors();
  assert.equal(ANCHOR_COUNT, 2254);
  near(a[0]!, 0.5 / 28); near(a[1]!, 0.5 / 28);
  near(a[2]!, 0.5 / 28); near(a[3]!, 0.5 / 28); // two anchors per cell on stride 8
  near(a[4]!, 1.5 / 28);
  near(a[2 * 1568]!, 0.5 / 14);
  near(a[2 * (1568 + 392)]!, 0.5 / 7);
});

test('decodeDetections decodes offsets from the anchor, maps to frame pixels and merges overlaps', () => {
  const raw = new Float32Array(ANCHOR_COUNT * 13).fill(-20);
  const anchors = createAnchors();
  // Two neighbouring anchors see the same person; one anchor far away sees nothing.
  for (const i of [600, 601]) {
    const o = i * 13;
    raw[o] = 3; // logit: score 0.95
    raw.set([0, 0, 40, 80, 0, 20, 0, -30, 0, -20, 0, -40], o + 1);
  }
  const letter = fullFrameRoi(448, 224); // 2:1 frame letterboxed into the 224 square
  const dets = decodeDetections(raw, letter);
  assert.equal(dets.length, 1, 'weighted NMS keeps one detection');
  const d = dets[0]!;
  near(d.score, 1 / (1 + Math.exp(-3)), 1e-6);
  // Anchor centre (u, v) in the square maps to x = u * 448, y = v * 448 - 112.
  const ax = anchors[1200]!, ay = anchors[1201]!;
  near(d.keypoints[0]!.x, ax * 448, 1e-3);
  near(d.keypoints[0]!.y, (ay + 20 / 224) * 448 - 112, 1e-3);
  const roi = detectionRoi(d);
  near(roi.size, 2.5 * (50 / 224) * 448, 1e-3);
  near(roi.angle, 0, 1e-9);
});

test('pickProminent prefers a large central person to a small confident one, and stays with the tracked one', () => {
  const det = (x: number, y: number, r: number, score: number): Detection => ({
    score, box: { xMin: x - r, yMin: y - r, xMax: x + r, yMax: y + r },
    keypoints: [{ x, y }, { x, y: y - r }, { x, y: y - r / 2 }, { x, y: y - r }],
  });
  const big = det(500, 300, 200, 0.7), small = det(100, 100, 40, 0.99);
  assert.equal(pickProminent([small, big], 1000, 600), big);
  const previous = detectionRoi(small);
  assert.equal(pickProminent([big, small], 1000, 600, previous), small);
  assert.equal(pickProminent([], 1000, 600), undefined);
});

test('decodeLandmarks maps BlazePose points into our KP order with visibility x presence', () => {
  const raw = new Float32Array(39 * 5);
  for (let i = 0; i < 39; i++) raw.set([i * 2, 128, 0, 10, 10], i * 5); // x encodes the index
  raw.set([128, 128], 33 * 5); raw.set([128, 28], 34 * 5); // hip centre, alignment 100 px above
  const roi = { cx: 500, cy: 400, size: 256, angle: 0 };
  const lm = decodeLandmarks(raw, 0.8, roi);
  assert.equal(lm.keypoints.length, KP_COUNT);
  for (const [name, k] of Object.entries(KP)) {
    near(lm.keypoints[k]!.x, 500 - 128 + BLAZEPOSE_INDEX[name as keyof typeof KP] * 2, 1e-3);
  }
  near(lm.keypoints[KP.leftHeel]!.x, 372 + 29 * 2, 1e-3);
  near(lm.keypoints[KP.rightHand]!.x, 372 + 20 * 2, 1e-3);
  near(lm.keypoints[0]!.score, 0.8 / (1 + Math.exp(-10)), 1e-6);
  near(lm.nextRoi.size, 250, 1e-3); near(lm.nextRoi.angle, 0, 1e-9); near(lm.nextRoi.cx, 500, 1e-3);
});

test('the cut detector fires on a change of shot, not on motion within a shot', () => {
  const detect = createCutDetector();
  const gym = (shift: number) => frame(96, 64, (x, y) => [((x + shift) * 3) % 256, (y * 4) % 256, 80]);
  const beach = frame(96, 64, (_x, y) => [230, 210, 120 + y]);
  assert.equal(detect(gym(0)), false, 'first frame is no cut');
  assert.equal(detect(gym(4)), false, 'a pan keeps the shot');
  assert.equal(detect(gym(8)), false);
  assert.equal(detect(beach), true, 'new scene');
  assert.equal(detect(beach), false);
});

test('a one-frame jump of the torso by more than its length is implausible', () => {
  const body = (dx: number, scale = 1): Keypoint[] => {
    const kps = Array.from({ length: KP_COUNT }, () => ({ x: 0, y: 0, score: 0.9 }));
    kps[KP.leftShoulder] = { x: 100 + dx, y: 100, score: 0.9 }; kps[KP.rightShoulder] = { x: 140 + dx, y: 100, score: 0.9 };
    kps[KP.leftHip] = { x: 100 + dx, y: 100 + 100 * scale, score: 0.9 }; kps[KP.rightHip] = { x: 140 + dx, y: 100 + 100 * scale, score: 0.9 };
    return kps;
  };
  assert.equal(implausibleJump(body(0), body(30)), false);
  assert.equal(implausibleJump(body(0), body(300)), true);
  assert.equal(implausibleJump(body(0), body(0, 2.5)), true);
  // A side view sees one shoulder and one hip; the check still works on them.
  const side = (dx: number) => body(dx).map((k, i) => (i === KP.rightShoulder || i === KP.rightHip ? { ...k, score: 0.05 } : k));
  assert.equal(implausibleJump(side(0), side(20)), false);
  assert.equal(implausibleJump(side(0), side(300)), true);
});

test('a torso seen head-on (a push-up filmed from the front) is sized by its width, not its foreshortened length', () => {
  // Shoulders 120 px apart, hips 12 px below them: the torso points at the camera.
  const headOn = (dy: number, len = 12): Keypoint[] => {
    const kps = Array.from({ length: KP_COUNT }, () => ({ x: 0, y: 0, score: 0.9 }));
    kps[KP.leftShoulder] = { x: 100, y: 200 + dy, score: 0.9 }; kps[KP.rightShoulder] = { x: 220, y: 200 + dy, score: 0.9 };
    kps[KP.leftHip] = { x: 120, y: 200 + dy + len, score: 0.9 }; kps[KP.rightHip] = { x: 200, y: 200 + dy + len, score: 0.9 };
    return kps;
  };
  // The body rising 40 px at the top of a rep, the torso's apparent length doubling: the same person.
  assert.equal(implausibleJump(headOn(0), headOn(-40, 24)), false);
  assert.equal(implausibleJump(headOn(0), headOn(-400)), true);
});

test('packPose keeps 23 keypoints and the cut flag; 17-point poses read the extras as unseen', () => {
  const kps = Array.from({ length: 17 }, (_, i) => ({ x: i, y: i * 2, score: 0.5 }));
  const pose = { timeMs: 100, width: 10, height: 10, keypoints: kps, cut: true };
  const packed = packPose(pose);
  assert.equal(packed.packed.length, KP_COUNT * 3);
  assert.equal(packed.cut, true);
  assert.equal(kpAt(packed, KP.leftHeel, 2), 0);
  assert.equal(kpAt(pose, KP.rightHand, 0), 0);
  assert.equal(kpAt(pose, KP.leftKnee, 1), 26);
  assert.equal(packPose({ ...pose, cut: undefined }).cut, undefined);
});

test('decoded frames keep the aspect ratio, an even size and a bounded longest side', () => {
  assert.deepEqual(outputSize({ width: 1920, height: 1080, fps: 30, durationMs: 0 }, 960), { width: 960, height: 540 });
  assert.deepEqual(outputSize({ width: 406, height: 720, fps: 30, durationMs: 0 }, 960), { width: 406, height: 720 });
});
