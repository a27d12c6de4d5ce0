// A 3D stick figure projected from any camera yaw, for the catalog exercises whose signals must
// read the same from the front, the side and a diagonal. Joints are built in world coordinates
// (x to the person's left, y up, z forward, millimetre-ish pixels), optionally turned (lying,
// hanging) and then projected orthographically; from the side the far limbs get a low score, as
// MoveNet reports a hidden side.
import type { Keypoint } from '../../src/analysis/pose.js';
import { KP } from '../../src/analysis/pose.js';

export type V3 = [number, number, number];
export type Joints = Partial<Record<keyof typeof KP, V3>>;

export const SHIN = 100, THIGH = 100, TORSO = 120, UPPER = 65, FORE = 60, HIP_HALF = 35, SH_HALF = 60, ANKLE_HALF = 40;

const rad = (d: number) => (d * Math.PI) / 180;
const add = (a: V3, b: V3, k = 1): V3 => [a[0] + b[0] * k, a[1] + b[1] * k, a[2] + b[2] * k];

/** Unit direction: `down` deg from straight down, swung `out` deg from forward toward the arm's side (+1 left, -1 right). */
export function dir(down: number, out: number, side: 1 | -1): V3 {
  return [Math.sin(rad(down)) * Math.sin(rad(out)) * side, -Math.cos(rad(down)), Math.sin(rad(down)) * Math.cos(rad(out))];
}

export interface ArmPose {
  /** Upper-arm elevation from hanging, deg (90 = shoulder height, 180 = overhead). */
  raise: number;
  /** Plane of the raise: 0 = in front, 90 = out to the side. */
  plane: number;
  /** Elbow flexion in the same plane, deg (0 = straight arm). */
  bend?: number;
  /** Or explicit unit directions of the upper arm and the forearm (x mirrored for the right arm). */
  upper?: V3;
  fore?: V3;
}

export interface BodyPose {
  /** Knee flexion, deg (0 = straight legs); split 40/60 between the shin and the thigh. */
  kneeBend?: number;
  /** Or the shin's forward tilt and the thigh's backward tilt from vertical, deg (a hip hinge). */
  shin?: number;
  thigh?: number;
  /** Torso tilt forward from vertical, deg (negative = leaning back). */
  tilt?: number;
  left?: ArmPose;
  right?: ArmPose;
  /** Ankles lifted off the floor (calf raise, jump), px. */
  lift?: number;
  /** Knees pulled toward the midline, px. */
  kneeIn?: number;
  /** The head's pitch forward (chin down) from a level gaze, deg, whatever the torso does (negative: looking up). */
  head?: number;
  /** Hips (and the torso above them) moved toward the person's left, px, the feet planted: a lateral shift. */
  hipShift?: number;
}

const hanging: ArmPose = { raise: 0, plane: 0 };

/** A standing-frame body (ankles on the floor at y = 0) facing +z. */
export function body(p: BodyPose = {}): Joints {
  const bend = p.kneeBend ?? 0, lift = p.lift ?? 0;
  const j: Joints = {};
  for (const side of [1, -1] as const) {
    const name = side === 1 ? 'left' : 'right';
    const ankle: V3 = [side * ANKLE_HALF, lift, 0];
    const shin = rad(p.shin ?? bend * 0.4), thigh = rad(p.thigh ?? bend * 0.6);
    const knee = add(ankle, [-side * (p.kneeIn ?? 0) / SHIN, Math.cos(shin), Math.sin(shin)], SHIN);
    const hip = add(knee, [0, Math.cos(thigh), -Math.sin(thigh)], THIGH);
    hip[0] = side * HIP_HALF + (p.hipShift ?? 0);
    j[`${name}Ankle`] = ankle; j[`${name}Knee`] = knee; j[`${name}Hip`] = hip;
  }
  const hipMid: V3 = [p.hipShift ?? 0, j.leftHip![1], j.leftHip![2]];
  const t = rad(p.tilt ?? 0);
  const up: V3 = [0, Math.cos(t), Math.sin(t)];
  const neck = add(hipMid, up, TORSO);
  for (const side of [1, -1] as const) {
    const name = side === 1 ? 'left' : 'right';
    const sh: V3 = [neck[0] + side * SH_HALF, neck[1], neck[2]];
    const arm = (side === 1 ? p.left : p.right) ?? hanging;
    const mirror = (v: V3): V3 => [v[0] * side, v[1], v[2]];
    const elbow = add(sh, arm.upper ? mirror(arm.upper) : dir(arm.raise, arm.plane, side), UPPER);
    const wrist = add(elbow, arm.fore ? mirror(arm.fore) : dir(arm.raise + (arm.bend ?? 0), arm.plane, side), FORE);
    j[`${name}Shoulder`] = sh; j[`${name}Elbow`] = elbow; j[`${name}Wrist`] = wrist;
  }
  // Head: above the neck along the torso, face forward, pitched `head` deg about the ears' axis.
  const head = add(neck, up, 40);
  const hc = Math.cos(rad(p.head ?? 0)), hs = Math.sin(rad(p.head ?? 0));
  const face = (v: V3): V3 => add(head, [v[0], v[1] * hc - v[2] * hs, v[1] * hs + v[2] * hc]);
  j.nose = face([0, -5, 18]);
  j.leftEye = face([10, 3, 14]); j.rightEye = face([-10, 3, 14]);
  j.leftEar = face([22, 0, 0]); j.rightEar = face([-22, 0, 0]);
  return j;
}

/** Rotates every joint about the left-right axis through `pivot` (positive = head toward +z). */
export function pitch(j: Joints, deg: number, pivot: V3 = [0, 0, 0]): Joints {
  const c = Math.cos(rad(deg)), s = Math.sin(rad(deg));
  const out: Joints = {};
  for (const [k, v] of Object.entries(j) as [keyof Joints, V3][]) {
    const y = v[1] - pivot[1], z = v[2] - pivot[2];
    out[k] = [v[0], pivot[1] + y * c - z * s, pivot[2] + y * s + z * c];
  }
  return out;
}

export function shift(j: Joints, d: V3): Joints {
  const out: Joints = {};
  for (const [k, v] of Object.entries(j) as [keyof Joints, V3][]) out[k] = add(v, d);
  return out;
}

/**
 * Orthographic projection from a camera at `yaw` deg around the person (0 = in front, 90 = at
 * the person's right side, 180 = behind), floor at image y = 500.
 */
export function project(j: Joints, yaw: number): Keypoint[] {
  const c = Math.cos(rad(yaw)), s = Math.sin(rad(yaw));
  const sideOn = Math.abs(s) > 0.85;
  const kps: Keypoint[] = new Array(17);
  for (const [name, idx] of Object.entries(KP) as [keyof typeof KP, number][]) {
    const v = j[name] ?? [0, 0, 0];
    const x = v[0] * c - v[2] * s;
    // Toward the camera is +depth; side-on, the far side of the body is hidden.
    const depthSide = Math.sign(v[0]) * -s;
    const hidden = sideOn && depthSide < 0 && name !== 'nose';
    // Seen from behind, the face is hidden.
    const faceHidden = Math.cos(rad(yaw)) < -0.5 && (name === 'nose' || name.endsWith('Eye'));
    kps[idx] = { x: 300 + x, y: 500 - v[1], score: hidden || faceHidden ? 0.15 : 0.9 };
  }
  return kps;
}

export const VIEWS = { front: 0, side: 90, diagonal: 45, back: 180 } as const;
