// Squats as people film them to show one fault ("bad" examples of the public squat label sets: a
// student or a coach exaggerating one fault in front of a phone), built as figure3d.ts stick
// figures of known joint angles and filmed by camera.ts from any side, height and distance. Each
// demonstration is a clean parallel squat with one thing changed, at the size such clips show it.
import { analyzePoses, type PipelineOutput } from '../../src/analysis/pipeline.js';
import { squat } from '../../src/analysis/rules/squat.js';
import { body, shift, FIGURE, type Build, type BodyPose, type Joints, type V3 } from './figure3d.js';
import { asFilmed, film, scaled, type Camera } from './camera.js';
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
    ...(b.build ? { build: b.build } : {}),
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
 * verdicts should not move with it. `cam` may be a phone's (camera.ts `phone`).
 */
export function filmDemo(d: Demo, cam: Camera, opts: { fps?: number; scale?: number } = {}): PipelineOutput {
  const fps = opts.fps ?? 12, k = opts.scale ?? 1;
  // A body of other proportions stands with its hips elsewhere: the camera aims at its own hips.
  const b = d.bottom.build;
  if (b && !cam.aim) cam = { ...cam, aim: [0, b.shin + b.thigh, 0] };
  const poses = series(fps, 13, (t) => {
    const phase = Math.max(0, t - 0.5) % 3;
    const u = cycle(Math.max(0, t - 0.5), 2, 1);
    return scaled(film(demoAt(d, u, phase > 1 && phase < 2), cam), cam, k);
  });
  // A phone's picture is its own size (camera.ts asFilmed), the scale about its centre.
  const { frames, picture } = asFilmed(poses, cam);
  return analyzePoses(squat, frames, fps, picture);
}

/** A clean parallel squat: thighs level, shins 35 deg forward, the back 40 deg, the gaze level. */
export const CLEAN: Demo = { bottom: { shin: 35, thigh: 90, tilt: 40 } };


// ---- Other people's squats (figure3d BUILDS): the same squat solved for each body. ----

/**
 * The figure's own squats by depth (thigh angle from vertical -> shin and torso angles): the
 * clean demos' and counting tests' quarter, half, parallel and deep squats.
 */
const NATURAL: [number, number, number][] = [[0, 0, 0], [55, 22, 25], [65, 28, 30], [90, 35, 40], [130, 42, 50]];
function natural(thigh: number): { shin: number; tilt: number } {
  for (let i = 1; i < NATURAL.length; i++) {
    const [t0, s0, l0] = NATURAL[i - 1]!, [t1, s1, l1] = NATURAL[i]!;
    if (thigh <= t1 || i === NATURAL.length - 1) {
      const k = (thigh - t0) / (t1 - t0);
      return { shin: s0 + (s1 - s0) * k, tilt: l0 + (l1 - l0) * k };
    }
  }
  throw new Error('unreachable');
}

/**
 * The body's centre of mass ahead of the ankles (figure units) at those angles, from segment
 * masses as fractions of body mass (Winter's table, after Dempster): shanks 2 x 0.0465 at 0.433
 * of the way down from the knee, thighs 2 x 0.100 at 0.433 down from the hip, head, arms and trunk
 * 0.678 at half the torso above the hips (the arms hanging or held forward). Feet flat.
 */
export function comAhead(b: Build, shin: number, thigh: number, tilt: number): number {
  const knee = b.shin * Math.sin(rad(shin)), hip = knee - b.thigh * Math.sin(rad(thigh));
  const hat = hip + 0.5 * b.torso * Math.sin(rad(tilt));
  const shank = knee * 0.567, thighC = hip + (knee - hip) * 0.433;
  return (0.093 * shank + 0.2 * thighC + 0.678 * hat) / (0.093 + 0.2 + 0.678);
}

/** The torso lean that puts the centre of mass `target` ahead of the ankles (bisection, -30..89 deg). */
function leanFor(b: Build, shin: number, thigh: number, target: number): number {
  let lo = -30, hi = 89;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (comAhead(b, shin, thigh, mid) < target) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * The figure's squat (shin, thigh, tilt) as `b` does it. The thigh reaches the same angle (the
 * same depth). The knee travels forward in proportion to the femur (a longer femur has to put its
 * knee further over the toes to keep the hips over the feet), so the shin tilts to carry the
 * figure's knee travel scaled by the femur, over its own length. The torso then leans until the
 * centre of mass is over the same point of the foot as the figure's at that depth (mid-foot,
 * feet flat). Any excess of the figure's demo over its own natural squat at that depth (knees
 * shot forward, the chest folded) is added on top: the same fault, on that body.
 */
export function squatFor(b: Build, fig: { shin: number; thigh: number; tilt: number }): BodyPose {
  const nat = natural(fig.thigh);
  const target = comAhead(FIGURE, nat.shin, fig.thigh, nat.tilt);
  const travel = FIGURE.shin * Math.sin(rad(nat.shin)) * (b.thigh / FIGURE.thigh);
  const shinNat = (Math.asin(Math.min(1, travel / b.shin)) * 180) / Math.PI;
  const shin = shinNat + (fig.shin - nat.shin);
  const tiltExcess = fig.tilt - leanFor(FIGURE, fig.shin, fig.thigh, target);
  return { shin, thigh: fig.thigh, tilt: leanFor(b, shin, fig.thigh, target) + tiltExcess, build: b };
}

/**
 * A demo made for the figure, done by `b`: the bottom solved by squatFor, knee and hip offsets in
 * b's own lengths, and the neck held at the figure's angle against the back (figure3d's `head` is
 * the gaze against level, so a body leaning 12 deg further looks 12 deg further down with the
 * same neck: the figure's "head dropped" is 40 deg of flexion against its back on every body).
 */
export function demoFor(b: Build, d: Demo): Demo {
  const bt = d.bottom;
  const solved = squatFor(b, { shin: bt.shin ?? 0, thigh: bt.thigh ?? 0, tilt: bt.tilt ?? 0 });
  const extra = (solved.tilt ?? 0) - (bt.tilt ?? 0), head = d.head ?? ((u: number) => (bt.head ?? 0) * u);
  return {
    ...d,
    head: (u) => head(u) + extra * u,
    bottom: {
      ...bt, ...solved,
      ...(bt.kneeIn ? { kneeIn: (bt.kneeIn * b.shin) / FIGURE.shin } : {}),
      ...(bt.hipShift ? { hipShift: (bt.hipShift * b.hipHalf) / FIGURE.hipHalf } : {}),
    },
  };
}
