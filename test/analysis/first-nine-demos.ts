// The first nine's other exercises (lunge, side lunge, shoulder press, bicep curl, jumping jack,
// glute bridge, sit-up) as people film them to show one fault, like squat-demos.ts: a clean set
// built on figure3d.ts's body (catalog-moves.ts's supine body for the floor exercises), then each
// rule's fault at the size a student or a coach demonstrates it, filmed by camera.ts's pinhole
// camera from any side, height and distance, at a phone's portrait or landscape size.
import { analyzePoses, type PipelineOutput } from '../../src/analysis/pipeline.js';
import type { ExerciseDef } from '../../src/analysis/exercise.js';
import { lunge } from '../../src/analysis/rules/lunge.js';
import { sideLunge } from '../../src/analysis/rules/side-lunge.js';
import { shoulderPress } from '../../src/analysis/rules/shoulder-press.js';
import { bicepCurl } from '../../src/analysis/rules/bicep-curl.js';
import { jumpingJack } from '../../src/analysis/rules/jumping-jack.js';
import { gluteBridge } from '../../src/analysis/rules/glute-bridge.js';
import { sitUp } from '../../src/analysis/rules/sit-up.js';
import { body, FIGURE, type ArmPose, type Build, type BodyPose, type Joints, type V3 } from './figure3d.js';
import { asFilmed, film, scaled, type Camera } from './camera.js';
import { head, middle, supine } from './catalog-moves.js';
import { series } from './synthetic.js';

const rad = (d: number) => (d * Math.PI) / 180;
const lerp = (a: number, b: number, u: number) => a + (b - a) * u;
const add = (a: V3, b: V3): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const both = (arm: ArmPose) => ({ left: arm, right: arm });

/** The set's progress at t seconds: u (0 rest .. 1 the rep's far end), rising toward it or not. */
export type Wave = (t: number) => { u: number; rising: boolean };

/** A smooth rep of `up` s to the far end and `down` s back, held `hold` s there, `rest` s between; the set starts after 0.5 s. */
export function wave(up = 1, down = 1, hold = 0, rest = 1): Wave {
  const period = up + hold + down + rest;
  return (t) => {
    const k = Math.max(0, t - 0.5) % period;
    if (k < up) return { u: (1 - Math.cos((Math.PI * k) / up)) / 2, rising: true };
    if (k < up + hold) return { u: 1, rising: false };
    if (k < up + hold + down) return { u: (1 + Math.cos((Math.PI * (k - up - hold)) / down)) / 2, rising: false };
    return { u: 0, rising: false };
  };
}

/** One demonstration: the body at progress u, the set's timing, where the camera aims. */
export interface Demo {
  at: (u: number, rising: boolean, t: number) => Joints;
  wave?: Wave;
  seconds?: number;
  /** The point the camera looks at (camera.ts `aim`): the hips of a body on the floor. */
  aim?: V3;
}

export interface DemoSet { def: ExerciseDef; clean: Demo; fps?: number }

/**
 * The demonstration filmed by `cam` and analysed: 4 reps of the default wave in 13 s. `scale`
 * draws the person smaller (a phone in landscape frames them at about half portrait's height).
 */
export function filmDemo(def: ExerciseDef, d: Demo, cam: Camera, opts: { fps?: number; scale?: number } = {}): PipelineOutput {
  const fps = opts.fps ?? 12, k = opts.scale ?? 1, w = d.wave ?? wave();
  const poses = series(fps, d.seconds ?? 12.8, (t) => {
    const { u, rising } = w(t);
    return scaled(film(d.at(u, rising, t), { ...cam, ...(d.aim ? { aim: d.aim } : {}) }), cam, k);
  });
  // A phone's picture is its own size (camera.ts asFilmed), the scale about its centre.
  const { frames, picture } = asFilmed(poses, cam);
  return analyzePoses(def, frames, fps, picture);
}

/**
 * A standing body (figure3d `body`, arms and torso) on legs placed by hand: the hips' midpoint at
 * `hip`, each ankle where it is set, each knee where thigh and shin meet, bent toward `toward`.
 */
function onLegs(upper: BodyPose, hip: V3, legs: Record<'left' | 'right', { ankle: V3; toward: V3 }>): Joints {
  const j = body(upper);
  const { thigh: THIGH, shin: SHIN } = upper.build ?? FIGURE;
  const hipMid: V3 = [(j.leftHip![0] + j.rightHip![0]) / 2, j.leftHip![1], j.leftHip![2]];
  const d: V3 = [hip[0] - hipMid[0], hip[1] - hipMid[1], hip[2] - hipMid[2]];
  const out: Joints = {};
  for (const [k, v] of Object.entries(j) as [keyof Joints, V3][]) out[k] = add(v, d);
  for (const side of ['left', 'right'] as const) {
    const h = out[`${side}Hip`]!, { ankle, toward } = legs[side];
    out[`${side}Ankle`] = ankle;
    out[`${side}Knee`] = middle(h, ankle, THIGH, SHIN, toward);
  }
  return out;
}

// ---- Lunge: a split stance, the left foot forward. ----

export interface LungeForm {
  /** The hips' height at the bottom (100: front thigh level, back knee near the floor). */
  bottom?: number;
  /** The hips' travel forward at the bottom, units (the front knee shooting past the toes). */
  forward?: number;
  /** The torso's lean forward at the bottom, deg. */
  tilt?: number;
  /** The person's proportions (figure3d Build; default the figure's). */
  build?: Build;
}

/**
 * Feet 200 units (90 cm) apart, the front shin vertical and the thigh level at the bottom of a
 * clean lunge. Another build keeps that shape in its own lengths: the front foot a thigh ahead of
 * the hips, the back foot a leg's length (figure: 100) behind them, the hips a shin up at the
 * bottom; heights and travels for the figure scale with the leg.
 */
export function lungeAt(f: LungeForm = {}): Demo['at'] {
  const { bottom = 100, forward = 0, tilt = 10, build: b = FIGURE } = f;
  const k = (b.thigh + b.shin) / (FIGURE.thigh + FIGURE.shin), foot = b.hipHalf + 5;
  // Standing: the front leg nearly straight, from hips over the split stance.
  const standing = Math.min(172 * k, Math.sqrt((b.thigh + b.shin) ** 2 - b.thigh ** 2) - 1);
  const low = b.shin + (bottom - FIGURE.shin) * k;
  return (u) => {
    const hip: V3 = [0, lerp(standing, low, u), lerp(-10 * k, (-10 + forward) * k, u)];
    return onLegs({ tilt: tilt * u, build: b }, hip, {
      left: { ankle: [foot, 0, -10 * k + b.thigh], toward: [0, 0, 1] },
      // The back foot on its toes, the ankle lifted.
      right: { ankle: [-foot, 12, -110 * k], toward: [0, -0.3, 1] },
    });
  };
}

// ---- Side lunge: a wide stance, the hips shifting over the bending left knee. ----

export interface SideLungeForm {
  /** The hips' shift toward the working foot at the bottom, units. */
  shift?: number;
  /** The trailing leg's shortening at the bottom, units (0: straight). */
  trailBend?: number;
  /** The working knee pulled toward the midline at the bottom, units. */
  kneeIn?: number;
  tilt?: number;
}

export function sideLungeAt(f: SideLungeForm = {}): Demo['at'] {
  const { shift = 70, trailBend = 0, kneeIn = 0, tilt = 30 } = f;
  return (u) => {
    const sx = shift * u, z = -40 * u;
    // The trailing (right) leg straight from its hip (x = sx - 35) to its ankle (x = -110).
    const reach = 198 - trailBend * u;
    const y = Math.sqrt(Math.max(0, reach * reach - (sx + 75) ** 2 - z * z));
    const j = onLegs({ tilt: tilt * u, hipShift: 0 }, [sx, y, z], {
      left: { ankle: [110, 0, 0], toward: [0.35, 0, 1] },
      right: { ankle: [-110, 0, 0], toward: [-0.2, 0, 1] },
    });
    if (kneeIn) j.leftKnee = [j.leftKnee![0] - kneeIn * u, j.leftKnee![1], j.leftKnee![2]];
    return j;
  };
}

// ---- Shoulder press: from the rack (elbows below the shoulders, forearms vertical) to straight arms overhead. ----

export interface PressForm {
  /** The elbow's bend at the top, deg (0: locked out). */
  topBend?: number;
  /** The upper arm's raise at the bottom, deg (60: elbows below the shoulders). */
  bottomRaise?: number;
  /** The torso's lean back at the top, deg. */
  leanBack?: number;
  /** The right arm's raise short of the left's at the top, deg. */
  lagging?: number;
}

function pressArm(u: number, bottomRaise: number, topBend: number, short = 0): ArmPose {
  const raise = lerp(bottomRaise, 175 - topBend / 2 - short, u);
  // The forearm vertical at the rack, the elbow opening to `topBend` at the top.
  const bend = lerp(180 - bottomRaise, topBend, u);
  return { raise, plane: 80, bend };
}

export function pressAt(f: PressForm = {}): Demo['at'] {
  const { topBend = 0, bottomRaise = 60, leanBack = 0, lagging = 0 } = f;
  return (u) => body({ tilt: -leanBack * u, left: pressArm(u, bottomRaise, topBend), right: pressArm(u, bottomRaise, topBend + lagging * 0.5, lagging) });
}

// ---- Bicep curl: the forearms from hanging to the shoulders, the upper arms pinned. ----

export interface CurlForm {
  /** The elbow's bend at the top, deg. */
  top?: number;
  /** The elbow's bend at the bottom, deg. */
  bottom?: number;
  /** The upper arm's swing forward at the top, deg. */
  drift?: number;
  /** The torso's lean back at the top, deg (the swing). */
  swing?: number;
}

export function curlAt(f: CurlForm = {}): Demo['at'] {
  const { top = 140, bottom = 5, drift = 0, swing = 0 } = f;
  return (u) => body({ tilt: -swing * u, ...both({ raise: drift * u, plane: 0, bend: lerp(bottom, top, u) }) });
}

// ---- Jumping jack: arms from the sides to overhead while the feet jump apart. ----

export interface JackForm {
  /** The arms' raise at the top, deg (170: the hands over the head). */
  arms?: number;
  /** Each ankle's travel out at the top, units (shoulders are 120 apart). */
  feet?: number;
  /** The person's proportions (figure3d Build; default the figure's). */
  build?: Build;
}

export function jackAt(f: JackForm = {}): Demo['at'] {
  const { arms = 170, feet = 60, build } = f;
  return (u) => {
    const j = body({ ...both({ raise: arms * u, plane: 90 }), ...(build ? { build } : {}) });
    for (const side of [1, -1] as const) {
      const n = side === 1 ? 'left' : 'right';
      const out = side * feet * u;
      j[`${n}Ankle`] = [j[`${n}Ankle`]![0] + out, 0, 0];
      j[`${n}Knee`] = [j[`${n}Knee`]![0] + out / 2, j[`${n}Knee`]![1], 0];
    }
    return j;
  };
}

/** Jacks one after another, each `period` s, the `stall`-th taking `stallS` instead. */
export function jackWave(period = 1, stall = -1, stallS = period): Wave {
  return (t) => {
    let k = Math.max(0, t - 0.5), i = 0;
    for (;;) {
      const p = i === stall ? stallS : period;
      if (k < p) return { u: (1 - Math.cos((2 * Math.PI * k) / p)) / 2, rising: k < p / 2 };
      k -= p; i++;
    }
  };
}

// ---- Glute bridge: lying on the back, the hips lifting until shoulders, hips and knees line up. ----

export const FLOOR_HIPS: V3 = [0, 40, -20];

export interface BridgeForm {
  /** The torso's rise off the floor at the top, deg (25: shoulders, hips and knees in line). */
  top?: number;
  /** The ankles' distance from the shoulders along the floor, units (200: shins vertical at the top). */
  feet?: number;
}

/**
 * The shoulders on the floor, the feet flat: the hips rise on a torso turning about the shoulders,
 * the knees where thigh and shin meet. With the feet 200 units from the shoulders a torso 25 deg
 * up puts the knees on its line, over vertical shins.
 */
export function bridgeAt(f: BridgeForm = {}): Demo['at'] {
  const { top = 25, feet = 200 } = f;
  return (u) => {
    const th = rad(top * u);
    const j: Joints = {};
    for (const side of [1, -1] as const) {
      const n = side === 1 ? 'left' : 'right';
      const sh: V3 = [side * 60, 20, -120], hip: V3 = [side * 35, 20 + 120 * Math.sin(th), -120 + 120 * Math.cos(th)];
      const ankle: V3 = [side * 40, 10, -120 + feet];
      j[`${n}Shoulder`] = sh; j[`${n}Hip`] = hip; j[`${n}Ankle`] = ankle;
      j[`${n}Knee`] = middle(hip, ankle, FIGURE.thigh, FIGURE.shin, [0, 1, 0]);
      j[`${n}Elbow`] = [side * 70, 15, -60]; j[`${n}Wrist`] = [side * 70, 12, 0];
    }
    return head(j, [0, 25, -160], [0, 1, 0]);
  };
}

// ---- Sit-up: from lying, the torso curling up to upright. ----

export interface SitUpForm {
  /** The torso's angle off the floor at the top, deg. */
  top?: number;
  /** The chin pulled toward the chest at the top, deg beyond a neutral neck. */
  neck?: number;
  /** The thighs' rise at the top, deg (the feet coming off the floor). */
  legs?: number;
}

export function sitUpAt(f: SitUpForm = {}): Demo['at'] {
  const { top = 75, neck = 0, legs = 0 } = f;
  return (u) => {
    const curl = lerp(15, top, u);
    const j = supine(curl, 50 + legs * u, 95);
    if (!neck) return j;
    // The head turned about the neck toward the knees: each face point rotated about the x axis
    // through the shoulders' midpoint.
    const c = rad(curl), pivot: V3 = [0, 20 + 120 * Math.sin(c), -120 * Math.cos(c)];
    const a = rad(neck * u);
    for (const k of ['nose', 'leftEye', 'rightEye', 'leftEar', 'rightEar'] as const) {
      const v = j[k]!, y = v[1] - pivot[1], z = v[2] - pivot[2];
      j[k] = [v[0], pivot[1] + y * Math.cos(a) - z * Math.sin(a), pivot[2] + y * Math.sin(a) + z * Math.cos(a)];
    }
    return j;
  };
}

export const SETS: Record<string, DemoSet> = {
  lunge: { def: lunge, clean: { at: lungeAt() } },
  'side-lunge': { def: sideLunge, clean: { at: sideLungeAt() } },
  'shoulder-press': { def: shoulderPress, clean: { at: pressAt() } },
  'bicep-curl': { def: bicepCurl, clean: { at: curlAt() } },
  'jumping-jack': { def: jumpingJack, clean: { at: jackAt(), wave: jackWave(), seconds: 6.6 }, fps: 15 },
  'glute-bridge': { def: gluteBridge, clean: { at: bridgeAt(), wave: wave(1, 1, 0.6), aim: FLOOR_HIPS, seconds: 14.9 } },
  'sit-up': { def: sitUp, clean: { at: sitUpAt(), wave: wave(1.2, 1.2), aim: FLOOR_HIPS, seconds: 14.4 } },
};
