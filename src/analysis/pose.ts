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

/** Runs MoveNet on one crop of a frame image tensor; keypoints come back in frame pixels. */
function runOnCrop(model: GraphModel, image: tf.Tensor4D, frame: Frame, crop: Crop): Keypoint[] {
  const raw = tf.tidy(() => {
    const box = tf.tensor2d([[crop.yMin, crop.xMin, crop.yMax, crop.xMax]]);
    const patch = tf.image.cropAndResize(image, box, [0], [inputSize, inputSize], 'bilinear', 0);
    const out = model.execute(tf.cast(patch, 'int32')) as tf.Tensor;
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
  // One float buffer reused for every frame: the tensor copies it, so no per-frame garbage.
  let floats = new Float32Array(0);
  return function estimate(frame: Frame): PoseFrame {
    if (floats.length !== frame.rgb.length) floats = new Float32Array(frame.rgb.length);
    for (let i = 0; i < floats.length; i++) floats[i] = frame.rgb[i]!;
    const image = tf.tensor4d(floats, [1, frame.height, frame.width, 3]);
    try {
      let kps = runOnCrop(model, image, frame, crop ?? fullFrameCrop(frame.width, frame.height));
      if (!torsoVisible(kps) && (crop !== null || lostFrames % 5 === 0)) {
        // Lost: retry the letterboxed frame and the sliding squares, keep the most confident.
        const candidates = [fullFrameCrop(frame.width, frame.height), ...searchCrops(frame.width, frame.height)];
        for (const c of candidates) {
          const alt = runOnCrop(model, image, frame, c);
          if (meanScore(alt) > meanScore(kps)) kps = alt;
        }
      }
      const next = cropAround(kps, frame.width, frame.height);
      lostFrames = next ? 0 : lostFrames + 1;
      crop = next;
      return { timeMs: frame.timeMs, width: frame.width, height: frame.height, keypoints: kps };
    } finally {
      image.dispose();
    }
  };
}
