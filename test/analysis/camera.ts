// A pinhole camera for the 3D stick figures of figure3d.ts, as a phone films them: placed at any
// yaw around the person, looking down (or up) at the standing hips at any pitch, from any
// distance, with perspective (nearer joints drawn larger) and BlazePose's depth channel (z, in
// the picture's pixel scale, relative to the hips, smaller = nearer). figure3d's own `project` is
// orthographic and level: it cannot show what a camera's height or nearness does to a reading.
import type { Keypoint } from '../../src/analysis/pose.js';
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
 * distance). Side-on the far leg and arm are hidden behind the body, with the low visibility
 * BlazePose gives them (its far shoulder and hip stay as visible as the near ones); from behind
 * the face is hidden.
 */
export function film(j: Joints, cam: Camera): Keypoint[] {
  const out = cam.distance * UNITS_PER_M;
  const AIM = cam.aim ?? STANDING_HIPS;
  const h: V3 = [-Math.sin(rad(cam.yaw)), 0, Math.cos(rad(cam.yaw))];
  const eye: V3 = [AIM[0] + out * h[0] * Math.cos(rad(cam.pitch)), AIM[1] + out * Math.sin(rad(cam.pitch)), AIM[2] + out * h[2] * Math.cos(rad(cam.pitch))];
  const fwd = unit(sub(AIM, eye));
  const right = unit(cross(fwd, [0, 1, 0]));
  const down = cross(fwd, right);
  const focal = (640 * 0.6 * out) / 400;
  const feet = withFeet(j);
  const depthOf = (v: V3) => dot(sub(v, eye), fwd);
  const hips = feet.leftHip && feet.rightHip ? (depthOf(feet.leftHip) + depthOf(feet.rightHip)) / 2 : out;
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
    const score = faceHidden ? 0.05 : sideOn && far && limb ? 0.3 : 0.95;
    kps[idx] = {
      x: 320 + (focal * dot(rel, right)) / depth,
      y: 320 + (focal * dot(rel, down)) / depth,
      score,
      z: ((cam.zScale ?? Z_SCALE) * focal * (depth - hips)) / hips,
    };
  }
  return kps;
}
