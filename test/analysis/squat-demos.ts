// Squats as people film them to show one fault ("bad" examples of the public squat label sets: a
// student or a coach exaggerating one fault in front of a phone), built as figure3d.ts stick
// figures of known joint angles and filmed by camera.ts from any side, height and distance. Each
// demonstration is a clean parallel squat with one thing changed, at the size such clips show it.
import { analyzePoses, type PipelineOutput } from '../../src/analysis/pipeline.js';
import { squat } from '../../src/analysis/rules/squat.js';
import { body, shift, type BodyPose, type Joints, type V3 } from './figure3d.js';
import { film, type Camera } from './camera.js';
import { cycle, series } from './synthetic.js';

const rad = (d: number) => (d * Math.PI) / 180;

/** One squat's body at depth `u` (0 standing, 1 bottom), `rising` on the way up. */
export interface Demo {
  /** The bottom of the squat. */
  bottom: BodyPose;
  /** The foot's pitch at the bottom, deg, the heel lifting about the toes (0: flat). */
  heel?: number;
  /** The torso's lean on the way up, deg, at depth u, where it is not the way down's (hips rising first). */
  riseTilt?: (u: number) => number;
  /** The head's pitch at depth u (figure3d `head`). */
  head?: (u: number) => number;
}

/** Toe tip and heel of figure3d's foot (camera.ts withFeet): below and ahead of / behind the ankle. */
const TOE: V3 = [0, -18, 44], HEEL_FROM_TOE = 56;

/** The body at depth u: the bottom's angles scaled by u, the heels lifted about the toes. */
export function demoAt(d: Demo, u: number, rising: boolean): Joints {
  const b = d.bottom;
  const pose: BodyPose = {
    shin: (b.shin ?? 0) * u, thigh: (b.thigh ?? 0) * u, tilt: rising && d.riseTilt ? d.riseTilt(u) : (b.tilt ?? 0) * u,
    kneeIn: (b.kneeIn ?? 0) * u, hipShift: (b.hipShift ?? 0) * u, head: d.head ? d.head(u) : (b.head ?? 0) * u,
  };
  const th = rad((d.heel ?? 0) * u);
  if (!th) return body(pose);
  // The foot turns about the toe tip: the ankle (18 above, 44 behind it) goes up and forward.
  const ay = -TOE[1] * Math.cos(th) + TOE[2] * Math.sin(th), az = -TOE[1] * Math.sin(th) - TOE[2] * Math.cos(th);
  const j = shift(body({ ...pose, lift: ay + TOE[1] }), [0, 0, az + TOE[2]]);
  for (const side of ['left', 'right'] as const) {
    const x = j[`${side}Ankle`]![0];
    const toe: V3 = [x, TOE[1], TOE[2]];
    j[`${side}Toe`] = toe;
    j[`${side}Heel`] = [x, toe[1] + HEEL_FROM_TOE * Math.sin(th), toe[2] - HEEL_FROM_TOE * Math.cos(th)];
  }
  return j;
}

/**
 * Four demonstrated squats (2 s each, 1 s standing between) filmed by `cam`. `scale` draws the
 * person smaller or larger in the picture (a phone held in landscape frames a standing person at
 * about half the height portrait does): every reading is in the person's own lengths, so the
 * verdicts should not move with it.
 */
export function filmDemo(d: Demo, cam: Camera, opts: { fps?: number; scale?: number } = {}): PipelineOutput {
  const fps = opts.fps ?? 12, k = opts.scale ?? 1;
  const poses = series(fps, 13, (t) => {
    const phase = Math.max(0, t - 0.5) % 3;
    const u = cycle(Math.max(0, t - 0.5), 2, 1);
    const kps = film(demoAt(d, u, phase > 1 && phase < 2), cam);
    return k === 1 ? kps : kps.map((p) => ({ ...p, x: 320 + (p.x - 320) * k, y: 320 + (p.y - 320) * k, ...(p.z !== undefined ? { z: p.z * k } : {}) }));
  });
  return analyzePoses(squat, poses, fps);
}

/** A clean parallel squat: thighs level, shins 35 deg forward, the back 40 deg, the gaze level. */
export const CLEAN: Demo = { bottom: { shin: 35, thigh: 90, tilt: 40 } };
