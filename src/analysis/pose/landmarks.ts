// BlazePose full's landmark model on one ROI: 39 landmarks (33 body points, then the hip centre
// and alignment point MediaPipe tracks the ROI with, then 4 unused), each x, y, z in input pixels
// plus visibility and presence logits, and a pose-presence flag for the whole ROI.
import { KP, KP_COUNT, type Keypoint } from '../pose.js';
import { fromRoi, roiFromAlignment, type Roi } from './roi.js';

export const LANDMARK_SIZE = 256;
/** The landmark model takes pixels in 0..1. */
export const LANDMARK_RANGE = { scale: 1 / 255, offset: 0 };
const LANDMARKS = 39;
const DIMS = 5;

/** BlazePose's index for each of our keypoints, in KP order (COCO 17, then feet and hands). */
export const BLAZEPOSE_INDEX: Record<keyof typeof KP, number> = {
  nose: 0, leftEye: 2, rightEye: 5, leftEar: 7, rightEar: 8,
  leftShoulder: 11, rightShoulder: 12, leftElbow: 13, rightElbow: 14, leftWrist: 15, rightWrist: 16,
  leftHip: 23, rightHip: 24, leftKnee: 25, rightKnee: 26, leftAnkle: 27, rightAnkle: 28,
  leftHeel: 29, rightHeel: 30, leftToe: 31, rightToe: 32, leftHand: 19, rightHand: 20,
};
const ORDER: number[] = (() => {
  const o = new Array<number>(KP_COUNT);
  for (const [name, k] of Object.entries(KP)) o[k] = BLAZEPOSE_INDEX[name as keyof typeof KP];
  return o;
})();

/** The landmark network: NHWC ROI input in, ld_3d [39 x 5] and the pose-presence flag out. */
export interface LandmarkModel { run(input: Float32Array<ArrayBuffer>): Promise<{ landmarks: Float32Array; presence: number }> }

export interface Landmarks {
  /** Our keypoints in frame pixels; score = visibility x pose presence. */
  keypoints: Keypoint[];
  /** Pose presence for the ROI, 0..1. */
  presence: number;
  /** The next frame's ROI, from the model's own hip-centre and alignment landmarks. */
  nextRoi: Roi;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** Raw model output to frame-pixel keypoints and the tracking ROI. */
export function decodeLandmarks(raw: Float32Array, presence: number, roi: Roi): Landmarks {
  if (raw.length < LANDMARKS * DIMS) throw new RangeError(`landmark output has ${raw.length} values`);
  const at = (i: number) => fromRoi(roi, raw[i * DIMS]! / LANDMARK_SIZE, raw[i * DIMS + 1]! / LANDMARK_SIZE);
  // z is relative depth (nearer is smaller) on the same scale as x, so it is scaled by the ROI like x.
  const zScale = roi.size / LANDMARK_SIZE;
  const keypoints = ORDER.map((i) => ({ ...at(i), score: sigmoid(raw[i * DIMS + 3]!) * presence, z: raw[i * DIMS + 2]! * zScale }));
  return { keypoints, presence, nextRoi: roiFromAlignment(at(33), at(34)) };
}
