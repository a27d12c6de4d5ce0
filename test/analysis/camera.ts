// A pinhole camera for the 3D stick figures of figure3d.ts, as a phone films them: placed at any
// yaw around the person, looking down (or up) at the standing hips at any pitch, from any
// distance, with perspective (nearer joints drawn larger) and BlazePose's depth channel (z, in
// the picture's pixel scale, relative to the hips, smaller = nearer). figure3d's own `project` is
// orthographic and level: it cannot show what a camera's height or nearness does to a reading.
import type { Keypoint, PoseFrame } from '../../src/analysis/pose.js';
import { KP, KP_COUNT, Z_SCALE } from '../../src/analysis/pose.js';
import { SHIN, THIGH, type Joints, type V3 } from './figure3d.js';

/** figure3d's units per metre: its shin (100) is a 45 cm shin. */
export const UNITS_PER_M = 100 / 0.45;

export interface Camera {
  /** Degrees around the person: 0 in front, 90 at their right side, 180 behind. */
  yaw: number;
  /** Degrees the line of sight to the standing hips (or `aim`) looks down (negative: up from the floor). */
  pitch: number;
  /** Metres from the standing hips (or `aim`). */
  distance: number;
  /**
   * The depth channel against the true depth, in the picture's x scale (default pose.ts Z_SCALE: what
   * BlazePose gives here; 1 is the true depth).
   */
  zScale?: number;
  /** The point the camera looks at (default: the standing hips' midpoint), for a body on the floor. */
  aim?: V3;
  /**
   * A phone's camera instead of the default (a 640 x 640 picture whose focal length grows with the
   * distance, so the person fills 0.6 of it, centred on `aim`): a fixed field of view, a real
   * picture size, and the phone turned off `aim` (the person off-centre, partly out of the picture
   * up close). `yaw`, `pitch` and `distance` still place the phone round `aim`.
   */
  phone?: Phone;
}

/** A phone's main camera (issue 20x). */
export interface Phone {
  /** Degrees the picture spans across its long side: a phone's main camera (about 26 mm equivalent) 65-70. */
  fov: number;
  /** The picture, pixels: portrait 1080 x 1920, landscape 1920 x 1080. */
  width: number;
  height: number;
  /**
   * Degrees the phone's optical axis is turned off the line of sight to `aim`: [to the picture's
   * right, up]. [20, 0] puts `aim` 20 deg left of the picture's centre. Default [0, 0].
   */
  turn?: readonly [number, number];
  /**
   * What the depth channel is measured along: `ray`, the line of sight to the hips (default:
   * BlazePose reads depth from a crop round the person, which cannot show where in the picture the
   * crop was, so its depth is the crop's, as a camera aimed at the person would see it), or `axis`,
   * the phone's optical axis (the camera frame's own depth). Either way in the picture's x scale at the hips.
   */
  depth?: 'ray' | 'axis';
}

/** A phone's main camera at 67 deg across the long side, portrait or landscape (1080 x 1920). */
export const phoneCamera = (fov = 67, portrait = true, turn: readonly [number, number] = [0, 0]): Phone =>
  ({ fov, width: portrait ? 1080 : 1920, height: portrait ? 1920 : 1080, turn });

/** The phone's focal length, pixels. */
export const phoneFocal = (p: Phone) => Math.max(p.width, p.height) / 2 / Math.tan(rad(p.fov / 2));

/** Pixels per figure3d unit at `aim` (the default camera: 0.96 at any distance). */
export function pxPerUnit(cam: Camera): number {
  const out = cam.distance * UNITS_PER_M;
  return cam.phone ? phoneFocal(cam.phone) / out : (640 * 0.6) / 400;
}

const rad = (d: number) => (d * Math.PI) / 180;
const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a: V3): V3 => { const n = Math.hypot(...a); return [a[0] / n, a[1] / n, a[2] / n]; };

/** Heels and toe tips under figure3d's ankles (ankle 8 cm above the floor, a 25 cm foot), unless the figure placed them. */
export function withFeet(j: Joints): Joints {
  const out: Joints = { ...j };
  for (const side of ['left', 'right'] as const) {
    // A foot the figure already placed (a heel lifted off the floor) is kept as it is.
    if (j[`${side}Heel`] && j[`${side}Toe`]) continue;
    const a = j[`${side}Ankle`]!;
    out[`${side}Heel`] = [a[0], a[1] - 18, a[2] - 12];
    out[`${side}Toe`] = [a[0], a[1] - 18, a[2] + 44];
  }
  return out;
}

/** The standing hips' midpoint, which the camera aims at (figure3d's legs are SHIN + THIGH long). */
const STANDING_HIPS: V3 = [0, SHIN + THIGH, 0];

/**
 * The joints as that camera's picture (640 x 640, the person about 0.6 of its height at any
 * distance; with `phone`, that phone's picture, joints outside it at a score of 0.1). Side-on the far leg and arm are hidden behind the body, with the low visibility
 * BlazePose gives them (its far shoulder and hip stay as visible as the near ones); from behind
 * the face is hidden.
 */
export function film(j: Joints, cam: Camera): Keypoint[] {
  const out = cam.distance * UNITS_PER_M;
  const AIM = cam.aim ?? STANDING_HIPS;
  const h: V3 = [-Math.sin(rad(cam.yaw)), 0, Math.cos(rad(cam.yaw))];
  const eye: V3 = [AIM[0] + out * h[0] * Math.cos(rad(cam.pitch)), AIM[1] + out * Math.sin(rad(cam.pitch)), AIM[2] + out * h[2] * Math.cos(rad(cam.pitch))];
  const sight = unit(sub(AIM, eye));
  let fwd = sight;
  const phone = cam.phone;
  if (phone && phone.turn) {
    // Turned right (about world up) then up (about the new right), off the line of sight to AIM.
    const [tr, tu] = phone.turn.map(rad) as [number, number];
    const r0 = unit(cross(sight, [0, 1, 0]));
    const yawed: V3 = [sight[0] * Math.cos(tr) + r0[0] * Math.sin(tr), sight[1], sight[2] * Math.cos(tr) + r0[2] * Math.sin(tr)];
    const flat = Math.hypot(yawed[0], yawed[2]), el = Math.atan2(yawed[1], flat) + tu;
    fwd = [(yawed[0] / flat) * Math.cos(el), Math.sin(el), (yawed[2] / flat) * Math.cos(el)];
  }
  const right = unit(cross(fwd, [0, 1, 0]));
  const down = cross(fwd, right);
  const focal = phone ? phoneFocal(phone) : (640 * 0.6 * out) / 400;
  const [cx, cy] = phone ? [phone.width / 2, phone.height / 2] : [320, 320];
  const feet = withFeet(j);
  const hipMid: V3 | null = feet.leftHip && feet.rightHip
    ? [(feet.leftHip[0] + feet.rightHip[0]) / 2, (feet.leftHip[1] + feet.rightHip[1]) / 2, (feet.leftHip[2] + feet.rightHip[2]) / 2] : null;
  const depthOf = (v: V3) => dot(sub(v, eye), fwd);
  const hips = feet.leftHip && feet.rightHip ? (depthOf(feet.leftHip) + depthOf(feet.rightHip)) / 2 : out;
  // The depth channel's direction: the optical axis, or (a phone, by default) the line of sight to the hips.
  const zDir = phone && phone.depth !== 'axis' && hipMid ? unit(sub(hipMid, eye)) : fwd;
  const zHips = hipMid ? dot(sub(hipMid, eye), zDir) : out;
  const sideOn = Math.abs(Math.sin(rad(cam.yaw))) > 0.7;
  const kps: Keypoint[] = new Array(KP_COUNT);
  for (const [name, idx] of Object.entries(KP) as [keyof typeof KP, number][]) {
    const v = feet[name];
    if (!v) { kps[idx] = { x: 0, y: 0, score: 0, z: 0 }; continue; }
    const rel = sub(v, eye), depth = dot(rel, fwd);
    // The side of the body away from the camera (x's sign is the person's side).
    const far = Math.sign(v[0]) * Math.sign(h[0]) < 0;
    const limb = /Elbow|Wrist|Hand|Knee|Ankle|Heel|Toe/.test(name);
    const faceHidden = Math.cos(rad(cam.yaw)) < -0.3 && (name === 'nose' || name.endsWith('Eye'));
    let score = faceHidden ? 0.05 : sideOn && far && limb ? 0.3 : 0.95;
    const x = cx + (focal * dot(rel, right)) / depth, y = cy + (focal * dot(rel, down)) / depth;
    // Out of a phone's picture (or behind it) the model still places a joint, with a low score.
    if (phone && (depth <= 0 || x < 0 || x > phone.width || y < 0 || y > phone.height)) score = Math.min(score, 0.1);
    kps[idx] = {
      x,
      y,
      score,
      z: phone ? ((cam.zScale ?? Z_SCALE) * focal * (dot(rel, zDir) - zHips)) / hips : ((cam.zScale ?? Z_SCALE) * focal * (depth - hips)) / hips,
    };
  }
  return kps;
}

/** The picture `cam` films: a phone's own size, else the default 640 x 640. */
export const pictureOf = (cam: Camera) => (cam.phone ? { width: cam.phone.width, height: cam.phone.height } : { width: 640, height: 640 });

/**
 * Keypoints drawn `k` times larger about the picture's centre (a person further or nearer in the
 * same picture). The default picture's centre is (320, 320); a phone's is its own.
 */
export function scaled(kps: Keypoint[], cam: Camera, k: number): Keypoint[] {
  if (k === 1) return kps;
  const { width, height } = pictureOf(cam), cx = width / 2, cy = height / 2;
  return kps.map((p) => ({ ...p, x: cx + (p.x - cx) * k, y: cy + (p.y - cy) * k, ...(p.z !== undefined ? { z: p.z * k } : {}) }));
}

/**
 * The frames and the picture size as the pipeline gets them from `cam` (index.ts gives a video's
 * size): a phone's frames carry its picture's size, and analyzePoses is told it (rules tell a joint
 * inside the picture from one guessed beyond its edge). The default camera is as before: 640 x 640
 * frames, no picture given.
 */
export function asFilmed(frames: PoseFrame[], cam: Camera): { frames: PoseFrame[]; picture?: { width: number; height: number } } {
  if (!cam.phone) return { frames };
  const picture = pictureOf(cam);
  return { frames: frames.map((f) => ({ ...f, ...picture })), picture };
}
