// Synthetic stick figures with known joint angles, so the pure stages can be tested against exact
// answers (depth, sag, valgus, tempo) without a model or a video.
import type { Keypoint, PoseFrame } from '../../src/analysis/pose.js';
import { KP } from '../../src/analysis/pose.js';

const rad = (d: number) => (d * Math.PI) / 180;
const pt = (x: number, y: number, score = 0.9): Keypoint => ({ x, y, score });

export interface SidePose {
  /** Knee angle, 180 = straight. */
  knee: number;
  /** Torso lean from vertical, degrees. */
  lean: number;
  /** Ankle lift in pixels (heel rise). */
  heelLift?: number;
}

const SHIN = 100, THIGH = 100, TORSO = 120, UPPER = 65, FORE = 60;

/** A person facing right, filmed side-on; the far side is hidden (low score) as MoveNet reports it. */
export function sideSquatter(p: SidePose): Keypoint[] {
  const ankle = pt(300, 500 - (p.heelLift ?? 0));
  // Split the knee bend between shin tilt and thigh tilt, as a real squat does.
  const bend = 180 - p.knee;
  const alpha = bend * 0.4, beta = bend * 0.6;
  const knee = pt(ankle.x + SHIN * Math.sin(rad(alpha)), ankle.y - SHIN * Math.cos(rad(alpha)));
  const hip = pt(knee.x - THIGH * Math.sin(rad(beta)), knee.y - THIGH * Math.cos(rad(beta)));
  const sh = pt(hip.x + TORSO * Math.sin(rad(p.lean)), hip.y - TORSO * Math.cos(rad(p.lean)));
  const elbow = pt(sh.x + UPPER * 0.7, sh.y + UPPER * 0.7);
  const wrist = pt(elbow.x + FORE, elbow.y);
  const ear = pt(sh.x + 8, sh.y - 35);
  const nose = pt(sh.x + 25, sh.y - 40);
  const kps: Keypoint[] = new Array(17);
  const near = (i: number, k: Keypoint) => { kps[i] = k; };
  const far = (i: number, k: Keypoint) => { kps[i] = { x: k.x + 3, y: k.y, score: 0.15 }; };
  near(KP.nose, nose); near(KP.leftEye, pt(nose.x - 5, nose.y - 5)); far(KP.rightEye, nose);
  near(KP.leftEar, ear); far(KP.rightEar, ear);
  near(KP.leftShoulder, sh); far(KP.rightShoulder, sh);
  near(KP.leftElbow, elbow); far(KP.rightElbow, elbow);
  near(KP.leftWrist, wrist); far(KP.rightWrist, wrist);
  near(KP.leftHip, hip); far(KP.rightHip, hip);
  near(KP.leftKnee, knee); far(KP.rightKnee, knee);
  near(KP.leftAnkle, ankle); far(KP.rightAnkle, ankle);
  return kps;
}

/** A person facing the camera; `kneeIn` pulls both knees toward the midline (valgus), in px. */
export function frontSquatter(depth: number, kneeIn = 0): Keypoint[] {
  // depth 0 standing .. 1 parallel: the hips drop and the thighs foreshorten toward the camera.
  const ankleY = 500, legTop = 500 - SHIN - THIGH;
  const hipY = legTop + depth * THIGH * 0.9;
  const kneeY = ankleY - SHIN;
  const cx = 300, hipHalf = 35, shHalf = 60, ankleHalf = 45;
  const kneeHalf = 48 - kneeIn;
  const shY = hipY - TORSO;
  const kps: Keypoint[] = new Array(17);
  kps[KP.nose] = pt(cx, shY - 45); kps[KP.leftEye] = pt(cx + 10, shY - 52); kps[KP.rightEye] = pt(cx - 10, shY - 52);
  kps[KP.leftEar] = pt(cx + 20, shY - 45); kps[KP.rightEar] = pt(cx - 20, shY - 45);
  kps[KP.leftShoulder] = pt(cx + shHalf, shY); kps[KP.rightShoulder] = pt(cx - shHalf, shY);
  kps[KP.leftElbow] = pt(cx + shHalf + 5, shY + UPPER); kps[KP.rightElbow] = pt(cx - shHalf - 5, shY + UPPER);
  kps[KP.leftWrist] = pt(cx + shHalf + 5, shY + UPPER + FORE); kps[KP.rightWrist] = pt(cx - shHalf - 5, shY + UPPER + FORE);
  kps[KP.leftHip] = pt(cx + hipHalf, hipY); kps[KP.rightHip] = pt(cx - hipHalf, hipY);
  kps[KP.leftKnee] = pt(cx + kneeHalf, kneeY); kps[KP.rightKnee] = pt(cx - kneeHalf, kneeY);
  kps[KP.leftAnkle] = pt(cx + ankleHalf, ankleY); kps[KP.rightAnkle] = pt(cx - ankleHalf, ankleY);
  return kps;
}

/** Push-up side view: `elbow` is the elbow angle, `sag` the hip drop below the shoulder-ankle line (deg). */
export function sidePushUp(elbow: number, sag = 0): Keypoint[] {
  const wrist = pt(200, 500);
  // Upper arm and forearm meet at `elbow`; the forearm stays vertical.
  const elbowPt = pt(wrist.x, wrist.y - FORE);
  const upperDir = rad(180 - elbow);
  const sh = pt(elbowPt.x + UPPER * Math.sin(upperDir), elbowPt.y - UPPER * Math.cos(upperDir));
  const ankle = pt(sh.x + 330, 500 - 10);
  const midX = (sh.x + ankle.x) / 2;
  const lineY = (sh.y + ankle.y) / 2;
  const half = (ankle.x - sh.x) / 2;
  const hip = pt(midX, lineY + Math.tan(rad(sag / 2)) * half);
  const knee = pt((hip.x + ankle.x) / 2, (hip.y + ankle.y) / 2);
  const ear = pt(sh.x - 30, sh.y - 4);
  const kps: Keypoint[] = new Array(17);
  const both = (l: number, r: number, k: Keypoint) => { kps[l] = k; kps[r] = { x: k.x + 2, y: k.y, score: 0.15 }; };
  kps[KP.nose] = pt(ear.x - 15, ear.y + 5);
  both(KP.leftEye, KP.rightEye, pt(ear.x - 10, ear.y - 3));
  both(KP.leftEar, KP.rightEar, ear);
  both(KP.leftShoulder, KP.rightShoulder, sh);
  both(KP.leftElbow, KP.rightElbow, elbowPt);
  both(KP.leftWrist, KP.rightWrist, wrist);
  both(KP.leftHip, KP.rightHip, hip);
  both(KP.leftKnee, KP.rightKnee, knee);
  both(KP.leftAnkle, KP.rightAnkle, ankle);
  return kps;
}

/** Frames at `fps` from a function of time in seconds. */
export function series(fps: number, seconds: number, at: (t: number) => Keypoint[]): PoseFrame[] {
  const out: PoseFrame[] = [];
  for (let i = 0; i < Math.round(seconds * fps); i++) {
    out.push({ timeMs: Math.round((i * 1000) / fps), width: 640, height: 640, keypoints: at(i / fps) });
  }
  return out;
}

/** 0 -> 1 -> 0 over one period (a smooth repetition), then rest for `restS`. */
export function cycle(t: number, periodS: number, restS: number): number {
  const k = t % (periodS + restS);
  return k < periodS ? (1 - Math.cos((2 * Math.PI * k) / periodS)) / 2 : 0;
}

/** Glute bridge side view: `lift` 0 = hips on the floor, 1 = hips in line with shoulders and knees. */
export function sideBridge(lift: number): Keypoint[] {
  const sh = pt(150, 495), knee = pt(420, 400), ankle = pt(470, 500);
  const hip = pt(300, 495 - 55 * lift);
  const ear = pt(110, 490);
  const kps: Keypoint[] = new Array(17);
  const both = (l: number, r: number, k: Keypoint) => { kps[l] = k; kps[r] = { x: k.x + 2, y: k.y, score: 0.15 }; };
  kps[KP.nose] = pt(100, 480);
  both(KP.leftEye, KP.rightEye, pt(102, 482));
  both(KP.leftEar, KP.rightEar, ear);
  both(KP.leftShoulder, KP.rightShoulder, sh);
  both(KP.leftElbow, KP.rightElbow, pt(210, 500));
  both(KP.leftWrist, KP.rightWrist, pt(270, 500));
  both(KP.leftHip, KP.rightHip, hip);
  both(KP.leftKnee, KP.rightKnee, knee);
  both(KP.leftAnkle, KP.rightAnkle, ankle);
  return kps;
}

/** The partner of a keypoint on the other side of the body (the nose is its own). */
const otherSide = (k: number) => (k === KP.nose ? k : k % 2 === 1 ? k + 1 : k - 1);

/** The frame as filmed mirrored: the picture flipped left-right, so the model's left is the right. */
export function mirrored(f: PoseFrame): PoseFrame {
  const kps = f.keypoints.map((_, k) => {
    const src = f.keypoints[otherSide(k)]!;
    return { ...src, x: f.width - src.x };
  });
  return { ...f, keypoints: kps };
}
