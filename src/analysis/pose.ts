// The pose vocabulary every stage shares: keypoint indices, per-frame poses and their packed form.
// The estimator itself (BlazePose on onnxruntime, with a person detector and ROI tracking) lives
// in ./pose/.
export const KP = {
  nose: 0, leftEye: 1, rightEye: 2, leftEar: 3, rightEar: 4,
  leftShoulder: 5, rightShoulder: 6, leftElbow: 7, rightElbow: 8, leftWrist: 9, rightWrist: 10,
  leftHip: 11, rightHip: 12, leftKnee: 13, rightKnee: 14, leftAnkle: 15, rightAnkle: 16,
  // Beyond COCO's 17 (appended so the indices above never move): feet and hands from BlazePose.
  leftHeel: 17, rightHeel: 18, leftToe: 19, rightToe: 20, leftHand: 21, rightHand: 22,
} as const;
export const KP_COUNT = 23;

/** One keypoint in frame pixels; score = the landmark's visibility x the pose presence (0..1). */
export interface Keypoint {
  x: number;
  y: number;
  score: number;
  /** Depth toward the camera (smaller = nearer), frame pixels, when the model gives it. */
  z?: number;
}

/**
 * BlazePose's z, as the pose stage stores it (frame pixels), runs about 3.5 times the true depth in
 * x's scale: on the tuning squat clips filmed from the front or a diagonal, a thigh's and a shin's
 * 3D length sqrt(dx^2 + dy^2 + (dz / s)^2) is most constant over the clip at s = 2.8-4.1 (median
 * about 3.5), where the 2D lengths vary 2-10 times as much; the shoulder line's, on the tuning clips
 * whose yaw moves over the clip (a turn, a camera carried round), at s = 2.75-3.75. Read at face
 * value, a thigh pointing at the camera would read 3.5 times as long as it is, and a body turned
 * 30 deg would read 64.
 */
export const Z_SCALE = 3.5;

export interface PoseFrame {
  timeMs: number;
  width: number;
  height: number;
  keypoints: Keypoint[];
  /** A shot change (hard cut) happened right before this frame: a new segment starts here. */
  cut?: boolean;
}

/**
 * The same pose packed as (x, y, score) x KP_COUNT floats: what a long video keeps per frame,
 * about a tenth of the memory of keypoint objects.
 */
export interface PackedPose {
  timeMs: number;
  packed: Float32Array;
  cut?: boolean;
  /** Per-keypoint depth (Keypoint.z), when the model gives it. */
  depth?: Float32Array;
}

export type AnyPose = PoseFrame | PackedPose;

export function packPose(p: PoseFrame): PackedPose {
  const packed = new Float32Array(KP_COUNT * 3);
  const depth = p.keypoints[0]?.z !== undefined ? new Float32Array(KP_COUNT) : undefined;
  p.keypoints.forEach((k, i) => {
    if (i >= KP_COUNT) return;
    packed[i * 3] = k.x; packed[i * 3 + 1] = k.y; packed[i * 3 + 2] = k.score;
    if (depth) depth[i] = k.z ?? 0;
  });
  return { timeMs: p.timeMs, packed, ...(p.cut ? { cut: true } : {}), ...(depth ? { depth } : {}) };
}

/**
 * Coordinate c (0 x, 1 y, 2 score) of keypoint k, from either form, without allocating. A pose
 * with fewer keypoints (17-point poses from older sources and synthetic tests) reads as unseen
 * (0) for the missing ones.
 */
export function kpAt(f: AnyPose, k: number, c: 0 | 1 | 2): number {
  if ('packed' in f) return f.packed[k * 3 + c] ?? 0;
  const kp = f.keypoints[k];
  if (!kp) return 0;
  return c === 0 ? kp.x : c === 1 ? kp.y : kp.score;
}

/** Depth of keypoint k when the pose carries it (see Keypoint.z). */
export function kpZ(f: AnyPose, k: number): number | undefined {
  if ('packed' in f) return f.depth ? f.depth[k] : undefined;
  return f.keypoints[k]?.z;
}

export function meanScore(kps: readonly Keypoint[]): number {
  return kps.reduce((a, k) => a + k.score, 0) / Math.max(1, kps.length);
}
