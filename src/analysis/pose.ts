// Per-frame 2D pose with MoveNet Lightning plus a crop tracker. The model sees a 192x192 square; a
// small person in a wide frame gets only a few pixels there, so each frame is cropped around where
// the previous frame found the body (MoveNet's own "smart cropping" recipe), and when the body is
// lost a few overlapping squares are searched instead of the whole letterboxed frame.
import * as tf from '@tensorflow/tfjs-core';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import type { Frame } from './decode.js';
import { inputSize } from './model.js';

export const KP = {
  nose: 0, leftEye: 1, rightEye: 2, leftEar: 3, rightEar: 4,
  leftShoulder: 5, rightShoulder: 6, leftElbow: 7, rightElbow: 8, leftWrist: 9, rightWrist: 10,
  leftHip: 11, rightHip: 12, leftKnee: 13, rightKnee: 14, leftAnkle: 15, rightAnkle: 16,
} as const;
export const KP_COUNT = 17;

/** One keypoint in frame pixels with MoveNet's confidence score. */
export interface Keypoint { x: number; y: number; score: number }

export interface PoseFrame {
  timeMs: number;
  width: number;
  height: number;
  keypoints: Keypoint[];
}

/**
 * The same pose packed as (x, y, score) x 17 floats: what a long video keeps per frame, about a
 * tenth of the memory of 17 keypoint objects.
 */
export interface PackedPose {
  timeMs: number;
  packed: Float32Array;
}

export type AnyPose = PoseFrame | PackedPose;

export function packPose(p: PoseFrame): PackedPose {
  const packed = new Float32Array(KP_COUNT * 3);
  p.keypoints.forEach((k, i) => { packed[i * 3] = k.x; packed[i * 3 + 1] = k.y; packed[i * 3 + 2] = k.score; });
  return { timeMs: p.timeMs, packed };
}

/** Coordinate c (0 x, 1 y, 2 score) of keypoint k, from either form, without allocating. */
export function kpAt(f: AnyPose, k: number, c: 0 | 1 | 2): number {
  if ('packed' in f) return f.packed[k * 3 + c]!;
  const kp = f.keypoints[k]!;
  return c === 0 ? kp.x : c === 1 ? kp.y : kp.score;
}

/** Crop in normalised frame coordinates; may extend past the frame (padding is black). */
export interface Crop { yMin: number; xMin: number; yMax: number; xMax: number }

const MIN_CROP_SCORE = 0.2;

/** The whole frame letterboxed into a square, as the model expects. */
export function fullFrameCrop(width: number, height: number): Crop {
  if (width > height) {
    const h = width / height;
    return { xMin: 0, xMax: 1, yMin: (1 - h) / 2, yMax: (1 + h) / 2 };
  }
  const w = height / width;
  return { yMin: 0, yMax: 1, xMin: (1 - w) / 2, xMax: (1 + w) / 2 };
}

/** Squares of the short side sliding along the long side: where to look for a lost, small person. */
export function searchCrops(width: number, height: number): Crop[] {
  const side = Math.min(width, height);
  const crops: Crop[] = [];
  const long = Math.max(width, height);
  const steps = Math.max(1, Math.ceil(long / side));
  for (let i = 0; i <= steps; i++) {
    const start = ((long - side) * i) / steps;
    if (width >= height) crops.push({ yMin: 0, yMax: 1, xMin: start / width, xMax: (start + side) / width });
    else crops.push({ xMin: 0, xMax: 1, yMin: start / height, yMax: (start + side) / height });
  }
  return crops;
}

export function torsoVisible(kps: Keypoint[]): boolean {
  const s = (i: number) => kps[i]!.score > MIN_CROP_SCORE;
  return (s(KP.leftHip) || s(KP.rightHip)) && (s(KP.leftShoulder) || s(KP.rightShoulder));
}

/** Next frame's crop from this frame's keypoints (in pixels), or null when the body is not found. */
export function cropAround(kps: Keypoint[], width: number, height: number): Crop | null {
  if (!torsoVisible(kps)) return null;
  const hips = [kps[KP.leftHip]!, kps[KP.rightHip]!].filter((k) => k.score > MIN_CROP_SCORE);
  const sh = [kps[KP.leftShoulder]!, kps[KP.rightShoulder]!].filter((k) => k.score > MIN_CROP_SCORE);
  // Centre between hips and shoulders keeps a lying body (push-up, sit-up) in the middle too.
  const torso = [...hips, ...sh];
  const cx = torso.reduce((a, k) => a + k.x, 0) / torso.length;
  const cy = torso.reduce((a, k) => a + k.y, 0) / torso.length;
  let torsoR = 0;
  let bodyR = 0;
  for (const k of torso) torsoR = Math.max(torsoR, Math.abs(k.x - cx), Math.abs(k.y - cy));
  for (const k of kps) if (k.score > MIN_CROP_SCORE) bodyR = Math.max(bodyR, Math.abs(k.x - cx), Math.abs(k.y - cy));
  // Generous margins: at 10 fps limbs move a lot between frames (jumping jacks, arms overhead).
  let half = Math.max(torsoR * 2.2, bodyR * 1.35);
  if (half > Math.max(width, height) / 2) return fullFrameCrop(width, height);
  half = Math.max(half, Math.min(width, height) * 0.15);
  return { xMin: (cx - half) / width, xMax: (cx + half) / width, yMin: (cy - half) / height, yMax: (cy + half) / height };
}

export function meanScore(kps: Keypoint[]): number {
  return kps.reduce((a, k) => a + k.score, 0) / kps.length;
}

/**
 * Bilinear crop-and-resize of packed RGB into the model's int32 input, with the same sampling
 * grid as tf.image.cropAndResize and black outside the frame. Done in JS on the 192x192 output
 * only, so the cost does not grow with the decoded frame size (the whole frame is never
 * converted or uploaded).
 */
export function cropResize(frame: Frame, crop: Crop, size: number, out: Int32Array<ArrayBuffer> = new Int32Array(size * size * 3)): Int32Array<ArrayBuffer> {
  const { width: W, height: H, rgb } = frame;
  const sy = size > 1 ? ((crop.yMax - crop.yMin) * (H - 1)) / (size - 1) : 0;
  const sx = size > 1 ? ((crop.xMax - crop.xMin) * (W - 1)) / (size - 1) : 0;
  let o = 0;
  for (let oy = 0; oy < size; oy++) {
    const y = crop.yMin * (H - 1) + oy * sy;
    if (y < 0 || y > H - 1) { out.fill(0, o, o + size * 3); o += size * 3; continue; }
    const y0 = Math.floor(y), y1 = Math.min(H - 1, y0 + 1), fy = y - y0;
    for (let ox = 0; ox < size; ox++, o += 3) {
      const x = crop.xMin * (W - 1) + ox * sx;
      if (x < 0 || x > W - 1) { out[o] = out[o + 1] = out[o + 2] = 0; continue; }
      const x0 = Math.floor(x), x1 = Math.min(W - 1, x0 + 1), fx = x - x0;
      const a = (y0 * W + x0) * 3, b = (y0 * W + x1) * 3, c = (y1 * W + x0) * 3, d = (y1 * W + x1) * 3;
      for (let ch = 0; ch < 3; ch++) {
        const top = rgb[a + ch]! + (rgb[b + ch]! - rgb[a + ch]!) * fx;
        const bottom = rgb[c + ch]! + (rgb[d + ch]! - rgb[c + ch]!) * fx;
        out[o + ch] = Math.trunc(top + (bottom - top) * fy);
      }
    }
  }
  return out;
}

/** Runs MoveNet on one crop of a frame; keypoints come back in frame pixels. */
function runOnCrop(model: GraphModel, frame: Frame, crop: Crop, input: Int32Array<ArrayBuffer>): Keypoint[] {
  cropResize(frame, crop, inputSize, input);
  const raw = tf.tidy(() => {
    const out = model.execute(tf.tensor4d(input, [1, inputSize, inputSize, 3], 'int32')) as tf.Tensor;
    return out.dataSync();
  });
  const kps: Keypoint[] = [];
  for (let i = 0; i < KP_COUNT; i++) {
    const y = raw[i * 3]!;
    const x = raw[i * 3 + 1]!;
    kps.push({
      x: (crop.xMin + x * (crop.xMax - crop.xMin)) * frame.width,
      y: (crop.yMin + y * (crop.yMax - crop.yMin)) * frame.height,
      score: raw[i * 3 + 2]!,
    });
  }
  return kps;
}

/** Stateful tracker over a frame stream; one per video. */
export function createPoseTracker(model: GraphModel) {
  let crop: Crop | null = null;
  let lostFrames = 0;
  // One model-input buffer reused for every crop: the tensor copies it.
  const input = new Int32Array(inputSize * inputSize * 3);
  return function estimate(frame: Frame): PoseFrame {
    let kps = runOnCrop(model, frame, crop ?? fullFrameCrop(frame.width, frame.height), input);
    if (!torsoVisible(kps) && (crop !== null || lostFrames % 5 === 0)) {
      // Lost: retry the letterboxed frame and the sliding squares, keep the most confident.
      const candidates = [fullFrameCrop(frame.width, frame.height), ...searchCrops(frame.width, frame.height)];
      for (const c of candidates) {
        const alt = runOnCrop(model, frame, c, input);
        if (meanScore(alt) > meanScore(kps)) kps = alt;
      }
    }
    const next = cropAround(kps, frame.width, frame.height);
    lostFrames = next ? 0 : lostFrames + 1;
    crop = next;
    return { timeMs: frame.timeMs, width: frame.width, height: frame.height, keypoints: kps };
  };
}
