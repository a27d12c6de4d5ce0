// The push-up faults people film as "bad" examples (push-up-faults.unit), on a 3D stick figure
// (figure3d.ts units, any figure3d Build) filmed by the pinhole camera of camera.ts.
import { analyzePoses, type PipelineOutput } from '../../src/analysis/pipeline.js';
import { pushUp } from '../../src/analysis/rules/push-up.js';
import { KP } from '../../src/analysis/pose.js';
import { FIGURE, type Build, type Joints, type V3 } from './figure3d.js';
import { asFilmed, film, UNITS_PER_M, type Camera, type Phone } from './camera.js';
import { cycle, series } from './synthetic.js';

const add = (a: V3, b: V3): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const mul = (a: V3, k: number): V3 => [a[0] * k, a[1] * k, a[2] * k];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const unit = (a: V3): V3 => mul(a, 1 / Math.hypot(...a));
const rad = (d: number) => (d * Math.PI) / 180;

export interface Form {
  /** Hips below the shoulder-ankle line (from the knees: the knee-shoulder line), figure units (negative: piked above it). */
  sag?: number;
  /** Degrees the head is bent toward the floor beyond a neutral neck. */
  head?: number;
  /** The upper arm's angle out from the body, seen from above, degrees (45 is what coaches ask for). */
  flare?: number;
  /** Each hand this far outside its shoulder, figure units. */
  handsOut?: number;
  /** From the knees, the body straight from the knees to the shoulders: shins on the floor, or the feet raised. */
  knees?: 'shins down' | 'feet up';
}

/**
 * Face down on hands and toes along z (head toward +z), the shoulders `drop` arm lengths below
 * straight arms over the hands. Each elbow lies where its upper arm and forearm meet, turned
 * `flare` deg from pointing back along the body toward pointing out to the side. The hips sit on
 * the shoulder-ankle line unless `sag` moves them. The head continues the line of the spine, bent
 * 30 deg toward the floor: a neutral neck as the pose model reads it on the push-ups people call
 * good (headDrop 0-25 deg side-on; this head reads 2-15 from the floor to a metre up).
 */
export function pushUpBody(drop: number, form: Form = {}, b: Build = FIGURE): Joints {
  const { upper: UPPER, fore: FORE, shHalf, hipHalf } = b, ARM = UPPER + FORE;
  // Another body goes down to the same shoulder height (the chest a fist off the floor: a chest
  // is about as deep on every build), from its own straight arms: short arms bend further.
  const shY = b === FIGURE ? ARM - drop * ARM : ARM * 0.98 - ((drop - 0.02) / FULL) * (ARM * 0.98 - FIGURE_BOTTOM);
  const j: Joints = {};
  const { sag = 0, flare = 40, handsOut = 10 } = form;
  for (const side of [1, -1] as const) {
    const n = side === 1 ? 'left' : 'right';
    const sh: V3 = [side * shHalf, shY, 0], wr: V3 = [side * (shHalf + handsOut), 0, 0];
    const d = Math.hypot(...sub(wr, sh)), u = unit(sub(wr, sh));
    const along = (UPPER * UPPER - FORE * FORE + d * d) / (2 * d), r = Math.sqrt(Math.max(0, UPPER * UPPER - along * along));
    const back: V3 = [0, 0, -1], out: V3 = [side, 0, 0];
    const e1 = unit(sub(back, mul(u, dot(back, u))));
    const e2 = unit(sub(out, add(mul(u, dot(out, u)), mul(e1, dot(out, e1)))));
    const elbow = add(add(sh, mul(u, along)), add(mul(e1, r * Math.cos(rad(flare))), mul(e2, r * Math.sin(rad(flare)))));
    j[`${n}Shoulder`] = sh; j[`${n}Wrist`] = wr; j[`${n}Elbow`] = elbow;
    if (form.knees) {
      // The knees on the floor (the joint 10 units, 4.5 cm, above it) where a thigh (100) and a
      // torso (125) reach the shoulders of straight arms; the hips on that line, a torso's length
      // from the shoulders. The knees stay put as the chest goes down.
      const reach = b.thigh + b.torso + 5, kneeY = 10, kneeZ = -Math.sqrt(reach * reach - (ARM * 0.98 - kneeY) ** 2);
      const toKnee = unit([0, kneeY - shY, kneeZ]);
      // `sag` moves the hips off the knee-shoulder line, toward the floor (negative: piked up).
      const hip: V3 = add(add([side * hipHalf, shY, 0], mul(toKnee, b.torso + 5)), mul([0, toKnee[2], -toKnee[1]], sag));
      const knee: V3 = [side * (hipHalf + 3), kneeY, kneeZ];
      j[`${n}Hip`] = hip; j[`${n}Knee`] = knee;
      j[`${n}Ankle`] = form.knees === 'shins down' ? [side * (hipHalf + 5), 8, kneeZ - b.shin] : [side * (hipHalf + 5), kneeY + 0.8 * b.shin, kneeZ - 0.6 * b.shin];
      continue;
    }
    // The figure's plank: hips 125 behind the shoulders, knees 67 and ankles 135 further; another
    // body's by its own torso and legs.
    const hz = b.torso + 5, kz = hz + (67 * (b.thigh + b.shin)) / 200, az = hz + (135 * (b.thigh + b.shin)) / 200;
    const onLine = shY + (8 - shY) * (hz / az);
    const hip: V3 = [side * hipHalf, onLine - sag, -hz];
    j[`${n}Hip`] = hip; j[`${n}Knee`] = [side * (hipHalf + 3), (hip[1] + 8) / 2, -kz]; j[`${n}Ankle`] = [side * (hipHalf + 5), 8, -az];
  }
  // The spine's direction (hips to shoulders) and its normal away from the floor; the head turns
  // about the shoulders' midpoint toward the floor.
  const shM: V3 = [0, shY, 0], s = unit(sub(shM, [0, j.leftHip![1], j.leftHip![2]]));
  const up: V3 = s[2] > 0 ? [0, s[2], -s[1]] : [0, -s[2], s[1]];
  const h = rad(30 + (form.head ?? 0));
  const fw = add(mul(s, Math.cos(h)), mul(up, -Math.sin(h))), top = add(mul(up, Math.cos(h)), mul(s, Math.sin(h)));
  const c = add(shM, add(mul(fw, 38), mul(top, 14)));
  j.nose = add(c, add(mul(fw, 16), mul(top, -6)));
  j.leftEye = add(c, add([10, 0, 0], add(mul(fw, 12), mul(top, 2)))); j.rightEye = add(c, add([-10, 0, 0], add(mul(fw, 12), mul(top, 2))));
  j.leftEar = add(c, [22, 0, 0]); j.rightEar = add(c, [-22, 0, 0]);
  return j;
}

/**
 * Full depth (the chest a fist above the floor: the figure's shoulders 22.5 cm over the wrists, the
 * elbows 48 deg) and about half of it. Filmed side-on (90, 60, 45 deg, the far limbs hidden) the
 * full push-up's elbows read 52-72 deg at the bottom and its depth 1.25-1.9 bands inside the limit,
 * as the good tuning side-on push-ups do (elbows 52-90 deg, median 61; -4.3 to +0.06 bands, median
 * -2.3). Until 16ze FULL was 0.47 (28.7 cm, elbows 62 deg): 0.07-0.53 band past the limit side-on.
 */
export const FULL = 0.58, HALF = 0.27;
/** The figure's shoulders at full depth, units above the floor. */
const FIGURE_BOTTOM = (1 - FULL - 0.02) * (FIGURE.upper + FIGURE.fore);
const AIM: V3 = [0, 40, -100];

/**
 * `distanceM` (2.5 m unless given) from the middle of the body, `yaw` deg round from the head end
 * toward its left, the lens `heightM` above the floor; with `phone`, that phone's lens and picture
 * (camera.ts Phone) instead of the pinhole's.
 */
export function camera(yaw: number, heightM: number, distanceM = 2.5, phone?: Phone): Camera {
  const pitch = (Math.asin((heightM * UNITS_PER_M - AIM[1]) / (distanceM * UNITS_PER_M)) * 180) / Math.PI;
  return { yaw: -yaw, pitch, distance: distanceM, aim: AIM, ...(phone ? { phone } : {}) };
}

const LEFT_HIDDEN = [KP.leftElbow, KP.leftWrist, KP.leftHip, KP.leftKnee, KP.leftAnkle, KP.leftEar];
const RIGHT_HIDDEN = [KP.rightElbow, KP.rightWrist, KP.rightHip, KP.rightKnee, KP.rightAnkle, KP.rightEar];

/**
 * Four push-ups (2 s each, 1 s at the top between) to `drop` with `form`, filmed by `cam`. Seen
 * side-on the limbs behind the body, away from the camera, are scored as the pose model scores
 * them on real side-on clips, mostly unseen (camera.ts gives them 0.3, which reads as seen). The
 * camera stands on the person's left (x > 0, camera.ts film's eye) for every yaw `camera` gives
 * from 0 to 180: the right limbs are the far ones there. Until 16ze the left (near) ones were
 * hidden whatever the side, and the rules read the far arm, drawn smaller: a full push-up read
 * 1-2 bands deeper side-on than the pose model would show it.
 */
export function filmed(drop: number, form: Form, cam: Camera, b: Build = FIGURE): PipelineOutput {
  const fps = 12;
  const poses = series(fps, 13, (t) => {
    const kps = film(pushUpBody(0.02 + drop * cycle(Math.max(0, t - 0.5), 2, 1), form, b), cam);
    if (Math.abs(Math.sin(rad(cam.yaw))) > 0.7) {
      // camera.ts film puts the eye at x = -sin(yaw) times the distance: the side with x of that sign is near.
      for (const k of -Math.sin(rad(cam.yaw)) > 0 ? RIGHT_HIDDEN : LEFT_HIDDEN) kps[k] = { ...kps[k]!, score: 0.1 };
    }
    return kps;
  });
  // A phone's picture is its own size (camera.ts asFilmed).
  const { frames, picture } = asFilmed(poses, cam);
  return analyzePoses(pushUp, frames, fps, picture);
}

