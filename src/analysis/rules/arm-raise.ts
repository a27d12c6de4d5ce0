// Shared by the lateral raise and the front raise: a straight-ish arm rises from hanging to
// shoulder height, to the side or to the front. Both are read from the vertical positions of the
// elbow and the wrist below the shoulder, which do not depend on the direction the arm travels or
// on where the camera stands (an arm rising toward the camera still rises in the image).
import type { Calibration, FrameCtx, RepView } from '../exercise.js';
import { quantile, type Side } from '../signals.js';
import { clamp, upright } from './common.js';
import { dropBelowShoulder, maxOf, perFrame, rollingLevel, storePerFrame } from './body.js';

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

/** Standing or seated upright: bending over to pick up the dumbbells does not count. */
export const raiseGate = (f: FrameCtx) => upright(f, 35);

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
