// Body-relative measurements the newer catalog exercises share: heights and tilts read from
// vertical distances only, scaled by the person's own limb lengths, so that they read the same from
// the front, the side or a diagonal (a segment turned toward the camera keeps its vertical extent).
// Also the per-frame calibration helpers for signals that need the clip's own timeline.
import type { Calibration, FrameCtx } from '../exercise.js';
import { joint, pairPoint, quantile, VISIBLE, type Side } from '../signals.js';
import { clamp } from './common.js';

const deg = (r: number) => (r * 180) / Math.PI;

/**
 * Torso tilt from vertical in degrees from the vertical shoulder-over-hip distance against the
 * torso length: 0 upright, 90 horizontal. Unlike the image angle of the shoulder-hip segment it
 * also reads a torso bending toward the camera (a front-view hinge). Negative heights (shoulders
 * below the hips) read above 90.
 */
export function torsoTilt(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip');
  if (!sh || !hip || !(f.torsoLen > 0)) return NaN;
  return deg(Math.acos(clamp((hip.y - sh.y) / f.torsoLen, -1, 1)));
}

/** Shoulder height above the ankles in leg lengths: about 1.5 standing tall, 0.5 in a plank. */
export function shoulderHeight(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), an = pairPoint(f.p, 'ankle');
  if (!sh || !an || !(f.legLen > 0)) return NaN;
  return (an.y - sh.y) / f.legLen;
}

/** Vertical drop of a joint below the shoulder on one side, in arm lengths (negative = above). */
export function dropBelowShoulder(f: FrameCtx, s: Side, j: 'elbow' | 'wrist'): number {
  const sh = f.p[joint(s, 'shoulder')]!, k = f.p[joint(s, j)]!;
  if (Math.min(sh.score, k.score) < VISIBLE || !(f.armLen > 0)) return NaN;
  return (k.y - sh.y) / f.armLen;
}

/** The upper arm is about 53% of the shoulder-elbow-wrist length. */
export const UPPER_ARM = 0.53;

/**
 * Upper-arm elevation in degrees from hanging (0) through shoulder height (90) to overhead (180),
 * from the elbow's vertical position alone: the same whether the arm rises to the side (lateral
 * raise seen from the front) or toward the camera (front raise seen from the front).
 */
export function armElevation(f: FrameCtx, s: Side): number {
  const d = dropBelowShoulder(f, s, 'elbow');
  return Number.isFinite(d) ? deg(Math.acos(clamp(d / UPPER_ARM, -1, 1))) : NaN;
}

/** Angle between the upper arm and the torso line on one side (0 = arm along the body). */
export function armToTorso(f: FrameCtx, s: Side): number {
  const sh = f.p[joint(s, 'shoulder')]!, el = f.p[joint(s, 'elbow')]!, hip = f.p[joint(s, 'hip')]!;
  if (Math.min(sh.score, el.score, hip.score) < VISIBLE) return NaN;
  const a = Math.atan2(el.y - sh.y, el.x - sh.x), b = Math.atan2(hip.y - sh.y, hip.x - sh.x);
  let d = Math.abs(deg(a - b)) % 360;
  if (d > 180) d = 360 - d;
  return d;
}

/** Values of a per-arm measure on the arms that are seen. */
export function arms(f: FrameCtx, m: (f: FrameCtx, s: Side) => number): number[] {
  return [m(f, 'left'), m(f, 'right')].filter(Number.isFinite);
}

/** Max, min and mean of the finite values (NaN = unseen), NaN when there are none. */
const finite = (v: number[]) => v.filter(Number.isFinite);
export const maxOf = (v: number[]) => (finite(v).length ? Math.max(...finite(v)) : NaN);
export const minOf = (v: number[]) => (finite(v).length ? Math.min(...finite(v)) : NaN);
export const meanOf = (v: number[]) => { const f = finite(v); return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN; };

/**
 * Which way the person faces along the image x axis, +1 or -1, from where the shoulders sit
 * relative to the hips when the torso tilts forward; 0 when they are stacked (a front view).
 */
export function facing(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip');
  if (!sh || !hip || !(f.torsoLen > 0)) return 0;
  const dx = (sh.x - hip.x) / f.torsoLen;
  return Math.abs(dx) < 0.2 ? 0 : Math.sign(dx);
}

/** High quantile of a measure over the frames that pass `where`, clamped, with a fallback. */
export function clipLevel(frames: FrameCtx[], m: (f: FrameCtx) => number, q: number, lo: number, hi: number, fallback: number, where: (f: FrameCtx) => boolean = () => true): number {
  const v = quantile(frames.filter(where).map(m), q);
  return Number.isFinite(v) ? clamp(v, lo, hi) : fallback;
}

// Per-frame calibration. Some signals need the clip's timeline, not one number: a baseline that
// follows a drifting camera, or a squat depth remembered until the press that completes the rep.
// They are stored in the Calibration record under the frame's timestamp, which is unique per frame.
const key = (name: string, f: FrameCtx) => `${name}@${f.t}`;

export function storePerFrame(cal: Calibration, name: string, frames: FrameCtx[], values: number[]): Calibration {
  frames.forEach((f, i) => { cal[key(name, f)] = values[i]!; });
  return cal;
}

export function perFrame(cal: Calibration, name: string, f: FrameCtx): number {
  return cal[key(name, f)] ?? NaN;
}

/** A centred window quantile of a series (NaN skipped), e.g. a rolling floor for a drifting camera. */
export function rollingQuantile(xs: number[], half: number, q: number): number[] {
  return xs.map((_, i) => quantile(xs.slice(Math.max(0, i - half), i + half + 1), q));
}

/** Frames within `seconds` either side, at the frame rate the timestamps show. */
export function halfWindow(frames: FrameCtx[], seconds: number): number {
  if (frames.length < 2) return 1;
  const dt = (frames[frames.length - 1]!.t - frames[0]!.t) / (frames.length - 1);
  return Math.max(1, Math.round((seconds * 1000) / (dt || 100)));
}

/**
 * A per-frame reference level: the `q` quantile of a measure over a window of a few seconds
 * around each frame, clamped. It follows a hand-held camera that tilts or a person who moves,
 * where one number for the whole clip would not.
 */
export function rollingLevel(frames: FrameCtx[], m: (f: FrameCtx) => number, q: number, lo: number, hi: number, fallback: number, seconds = 4): number[] {
  const raw = frames.map(m);
  const whole = quantile(raw, q);
  return rollingQuantile(raw, halfWindow(frames, seconds), q).map((v) => {
    const x = Number.isFinite(v) ? v : whole;
    return Number.isFinite(x) ? clamp(x, lo, hi) : fallback;
  });
}

/** Vertical shoulder-over-hip distance in torso lengths: 1 upright, 0 with the torso horizontal. */
export function torsoUprightness(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip');
  return sh && hip && f.torsoLen > 0 ? (hip.y - sh.y) / f.torsoLen : NaN;
}

/**
 * Torso tilt from vertical against the clip's own upright reference (`upright` = this frame's
 * rolling high uprightness): a camera looking down or up at the person shortens the standing
 * torso's vertical extent, which would otherwise read as a permanent forward tilt.
 */
export function relativeTilt(f: FrameCtx, upright: number): number {
  const u = torsoUprightness(f);
  return Number.isFinite(u) && upright > 0 ? deg(Math.acos(clamp(u / upright, -1, 1))) : NaN;
}
