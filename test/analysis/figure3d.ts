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

/**
 * A person's proportions, in figure units (the default figure's shin is 100). The defaults are the
 * constants above, so a body built without a `build` is the one every test has always filmed.
 */
export interface Build {
  shin: number; thigh: number; torso: number; upper: number; fore: number;
  /** Half the distance between the hip joints, and between the shoulder joints. */
  hipHalf: number; shHalf: number;
}

export const FIGURE: Build = { shin: SHIN, thigh: THIGH, torso: TORSO, upper: UPPER, fore: FORE, hipHalf: HIP_HALF, shHalf: SH_HALF };

/**
 * People the rules must hold for, around the figure. Segment lengths as fractions of stature
 * (Winter, Biomechanics and Motor Control of Human Movement, after Drillis and Contini 1966):
 * thigh 0.245, shank 0.246, hip to shoulder about 0.29, upper arm 0.186, forearm 0.146,
 * shoulder breadth 0.259, hip breadth 0.191. People spread about these means: the femur against
 * the torso and the shin (the "long femur" squatter), arm span against height (about 0.95 to
 * 1.06), shoulder against hip breadth (broad-shouldered men, wide-hipped women). Each body here
 * moves one of those ratios 10 to 20 % off the figure, about the extremes a gym sees (chosen by
 * hand to bracket the spread, not sampled from a survey), the stature roughly the figure's.
 */
export const BUILDS: Record<string, Build> = {
  figure: FIGURE,
  // Femur/torso 1.02 (the figure 0.83), femur/tibia 1.19: a sound squat leans far forward.
  'long femurs': { ...FIGURE, thigh: 112, shin: 94, torso: 110 },
  // Femur/torso 0.69, femur/tibia 0.87: an upright squat.
  'long torso': { ...FIGURE, thigh: 90, shin: 104, torso: 130 },
  // Arms 10 % short of the figure's, shoulders 13 % broader (a heavily built man).
  'short arms, broad shoulders': { ...FIGURE, upper: 58, fore: 54, shHalf: 68 },
  // Arms 10 % longer, shoulders 13 % narrower.
  'long arms, narrow shoulders': { ...FIGURE, upper: 72, fore: 66, shHalf: 52 },
  // Hip joints 29 % further apart, shoulders 10 % narrower (a wide female pelvis).
  'wide hips': { ...FIGURE, hipHalf: 45, shHalf: 54 },
};

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
  /** The person's proportions (default: the figure's constants). */
  build?: Build;
}

const hanging: ArmPose = { raise: 0, plane: 0 };

/** A standing-frame body (ankles on the floor at y = 0) facing +z. */
export function body(p: BodyPose = {}): Joints {
  const bend = p.kneeBend ?? 0, lift = p.lift ?? 0;
  const B = p.build ?? FIGURE;
  const j: Joints = {};
  for (const side of [1, -1] as const) {
    const name = side === 1 ? 'left' : 'right';
    // The feet under the hips, a little wider (the figure's 40 against 35).
    const ankle: V3 = [side * (B.hipHalf + ANKLE_HALF - HIP_HALF), lift, 0];
    const shin = rad(p.shin ?? bend * 0.4), thigh = rad(p.thigh ?? bend * 0.6);
    const knee = add(ankle, [-side * (p.kneeIn ?? 0) / B.shin, Math.cos(shin), Math.sin(shin)], B.shin);
    const hip = add(knee, [0, Math.cos(thigh), -Math.sin(thigh)], B.thigh);
    hip[0] = side * B.hipHalf + (p.hipShift ?? 0);
    j[`${name}Ankle`] = ankle; j[`${name}Knee`] = knee; j[`${name}Hip`] = hip;
  }
  const hipMid: V3 = [p.hipShift ?? 0, j.leftHip![1], j.leftHip![2]];
  const t = rad(p.tilt ?? 0);
  const up: V3 = [0, Math.cos(t), Math.sin(t)];
  const neck = add(hipMid, up, B.torso);
  for (const side of [1, -1] as const) {
    const name = side === 1 ? 'left' : 'right';
    const sh: V3 = [neck[0] + side * B.shHalf, neck[1], neck[2]];
    const arm = (side === 1 ? p.left : p.right) ?? hanging;
    const mirror = (v: V3): V3 => [v[0] * side, v[1], v[2]];
    const elbow = add(sh, arm.upper ? mirror(arm.upper) : dir(arm.raise, arm.plane, side), B.upper);
    const wrist = add(elbow, arm.fore ? mirror(arm.fore) : dir(arm.raise + (arm.bend ?? 0), arm.plane, side), B.fore);
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
