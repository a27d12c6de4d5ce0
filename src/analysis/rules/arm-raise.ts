// Shared by the lateral raise and the front raise: a straight-ish arm rises from hanging to
// shoulder height, to the side or to the front. Both are read from the vertical positions of the
// elbow and the wrist below the shoulder, which do not depend on the direction the arm travels or
// on where the camera stands (an arm rising toward the camera still rises in the image).
import type { Calibration, FrameCtx, RepView } from '../exercise.js';
import { quantile, type Side } from '../signals.js';
import { clamp, upright } from './common.js';
import { dropBelowShoulder, maxOf, perFrame, rollingLevel, storePerFrame } from './body.js';
import { angle3d } from './reach.js';

const SIDES: Side[] = ['left', 'right'];
/** 1 - cos(75 deg): a raise to 75 deg above hanging is a full rep. */
const FULL = 1 - Math.cos((75 * Math.PI) / 180);

/**
 * Hanging drops of elbow and wrist around each frame, per arm: how far below the shoulder they sit
 * with the arm down depends on the person, the grip and a hand-held camera's tilt.
 */
export function raiseCalibration(frames: FrameCtx[]): Calibration {
  const cal: Calibration = {};
  for (const s of SIDES) {
    storePerFrame(cal, `${s}-elbow`, frames, rollingLevel(frames, (f) => dropBelowShoulder(f, s, 'elbow'), 0.85, 0.3, 0.6, 0.47, 5));
    storePerFrame(cal, `${s}-wrist`, frames, rollingLevel(frames, (f) => dropBelowShoulder(f, s, 'wrist'), 0.85, 0.55, 1.1, 0.9, 5));
  }
  return cal;
}

/** One arm: the mean of elbow and wrist rise, each 1 - drop/hanging drop (= 1 - cos of the elevation), over that at 75 deg. */
export function armRaise(f: FrameCtx, cal: Calibration, s: Side): number {
  const v = (['elbow', 'wrist'] as const).map((j) => 1 - dropBelowShoulder(f, s, j) / perFrame(cal, `${s}-${j}`, f)).filter(Number.isFinite);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length / FULL : NaN;
}

/** The arm that rose higher, so alternating raises count each arm. */
export const raiseProgress = (f: FrameCtx, cal: Calibration) => maxOf(SIDES.map((s) => armRaise(f, cal, s)));

/**
 * The arm that rose higher, its elevation from its own side's torso line (hip to shoulder) in 3D,
 * with the model's depth (reach.ts angle3d), as 1 - cos over that at 75 deg: the shoulder's flexion,
 * whatever the camera's height. NaN without depth or with the hip unseen. A phone looking down at a
 * front raise sees the arm rise toward it still pointing down the picture (raiseProgress read a
 * raise 0.28 of a rep from 2 m up and 1.5 m away); the angle to the torso does not turn with the camera.
 */
export const flexionProgress = (f: FrameCtx) =>
  maxOf(SIDES.map((s) => (1 - Math.cos((angle3d(f, s, 'hip', 'shoulder', 'elbow') * Math.PI) / 180)) / FULL));

/** Standing or seated upright: bending over to pick up the dumbbells does not count. */
export const raiseGate = (f: FrameCtx) => upright(f, RAISE_LEAN);
/** Degrees off vertical the torso may lean in a raise. */
export const RAISE_LEAN = 35;

/**
 * Elevation of each arm at a frame, in degrees from hanging, against the hanging drop measured in
 * this rep: 90 = elbow at shoulder height.
 */
export function repElevation(rep: RepView): (f: FrameCtx, s: Side) => number {
  // The rep starts and ends with the arms down: the hanging drop is the lowest elbow of its
  // first and last three frames.
  const ends = (s: Side) => maxOf([...rep.frames.slice(0, 3), ...rep.frames.slice(-3)].map((f) => dropBelowShoulder(f, s, 'elbow')));
  const hang = Object.fromEntries(SIDES.map((s) => [s, clamp(ends(s), 0.3, 0.6) || 0.47]));
  return (f, s) => {
    const d = dropBelowShoulder(f, s, 'elbow');
    return Number.isFinite(d) ? (Math.acos(clamp(d / hang[s]!, -1, 1)) * 180) / Math.PI : NaN;
  };
}

/** The raised arm's elevation at its highest frame of the rep, with that frame's index. */
export function topElevation(rep: RepView): { value: number; index: number } {
  const elev = repElevation(rep);
  let value = NaN, index = rep.peak;
  rep.frames.forEach((f, i) => {
    // The median of each frame and its neighbours: one-frame elbow slips do not set the top.
    const at = (j: number) => maxOf(SIDES.map((s) => elev(rep.frames[Math.max(0, Math.min(rep.frames.length - 1, j))]!, s)));
    const v = quantile([at(i - 1), at(i), at(i + 1)], 0.5);
    if (Number.isFinite(v) && !(v <= value)) { value = v; index = i; }
  });
  return { value, index };
}
