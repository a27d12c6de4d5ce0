// The movement a clip repeats, found without knowing the exercise: the direction in whole-body pose
// space along which the pose varies most (the first principal component of the joints' positions),
// so the joints that move most carry the signal and the still ones weigh nothing. Positions are
// taken relative to the hips and scaled by the person's torso, so walking nearer or panning moves
// nothing; the hips' own height against the shot's median stays in, so jumps and squats (where the
// whole body rises and falls) are seen. Pure and linear in the number of frames.
import type { FrameCtx } from './exercise.js';
import { KP, type Keypoint } from './pose.js';
import { pairPoint, quantile, VISIBLE } from './signals.js';

/** Joints whose motion can carry a repetition (the face follows the shoulders and adds noise). */
const JOINTS = [
  KP.leftShoulder, KP.rightShoulder, KP.leftElbow, KP.rightElbow, KP.leftWrist, KP.rightWrist,
  KP.leftHip, KP.rightHip, KP.leftKnee, KP.rightKnee, KP.leftAnkle, KP.rightAnkle, KP.nose,
];

/** Per frame: each joint's (x, y) from the hip midpoint in torso lengths, and the hips' height; NaN unseen. */
export function bodyFeatures(frames: readonly FrameCtx[]): number[][] {
  const hips = frames.map((f) => pairPoint(f.p, 'hip'));
  const scale = (f: FrameCtx) => (f.torsoLen > 0 ? f.torsoLen : f.legLen > 0 ? f.legLen / 1.6 : NaN);
  const hipY = quantile(hips.map((h, i) => (h ? h.y / scale(frames[i]!) : NaN)), 0.5);
  return frames.map((f, i) => {
    const h = hips[i], s = scale(f);
    const row: number[] = [];
    for (const k of JOINTS) {
      const p: Keypoint = f.p[k]!;
      const ok = h && s > 0 && p.score >= VISIBLE;
      row.push(ok ? (p.x - h.x) / s : NaN, ok ? (p.y - h.y) / s : NaN);
    }
    row.push(h && s > 0 ? h.y / s - hipY : NaN);
    return row;
  });
}

/**
 * The features projected on their first principal component: one number per frame (NaN where the
 * person is unseen). Unseen values are filled with the feature's median before the projection, so
 * a joint hidden for a moment does not break the series; a joint lost from view for `lostFrames`
 * or more is not filled but left out of its frames' projection (see `lostRuns`). Sign: positive
 * away from where the series rests most (its median side), so a repetition is a rise from rest
 * and back.
 */
export function principalMovement(raw: readonly number[][], halfWindow = 0): number[] {
  return principalAxis(raw, halfWindow).series;
}

/** The principal movement and its axis (the weight of each feature in it). */
export function principalAxis(raw: readonly number[][], halfWindow = 0, lostFrames = Infinity): { series: number[]; axis: number[] } {
  const features = halfWindow > 0 ? detrend(raw, halfWindow) : raw;
  const n = features.length, d = features[0]?.length ?? 0;
  if (n < 3 || d === 0) return { series: new Array<number>(n).fill(NaN), axis: [] };
  const seenRow = features.map((r) => r.filter(Number.isFinite).length >= d / 3);
  const med: number[] = [];
  const cols: number[][] = [];
  const rows = seenRow.filter(Boolean).length;
  const steady: boolean[] = [];
  for (let j = 0; j < d; j++) {
    const col = features.map((r, i) => (seenRow[i] ? r[j]! : NaN));
    const m = quantile(col, 0.5);
    med.push(Number.isFinite(m) ? m : 0);
    // A joint seen in under half the frames is left out: filling it would invent a movement.
    const seen = col.filter(Number.isFinite).length;
    steady.push(seen >= STEADY * rows);
    cols.push(seen >= 0.5 * rows ? col.map((v) => (Number.isFinite(v) ? v - med[j]! : 0)) : col.map(() => 0));
  }
  // Covariance of the centred features over the seen frames.
  const cov = Array.from({ length: d }, () => new Float64Array(d));
  for (let i = 0; i < n; i++) {
    if (!seenRow[i]) continue;
    for (let a = 0; a < d; a++) {
      const va = cols[a]![i]!;
      if (va === 0) continue;
      for (let b = a; b < d; b++) cov[a]![b]! += va * cols[b]![i]!;
    }
  }
  for (let a = 0; a < d; a++) for (let b = 0; b < a; b++) cov[a]![b] = cov[b]![a]!;
  // Power iteration from the direction of largest variance among the single features.
  let v = new Float64Array(d);
  let best = 0;
  for (let a = 1; a < d; a++) if (cov[a]![a]! > cov[best]![best]!) best = a;
  v[best] = 1;
  for (let it = 0; it < 60; it++) {
    const w = new Float64Array(d);
    for (let a = 0; a < d; a++) { let s = 0; for (let b = 0; b < d; b++) s += cov[a]![b]! * v[b]!; w[a] = s; }
    const norm = Math.hypot(...w);
    if (!(norm > 0)) break;
    for (let a = 0; a < d; a++) w[a]! /= norm;
    v = w;
  }
  const lost = lostRuns(features, steady, lostFrames);
  const proj = features.map((_, i) => {
    if (!seenRow[i]) return NaN;
    // A joint lost from view is not at its median: the frame's place on the axis is fitted on the
    // features seen (least squares on the axis restricted to them). Filled at the median, hands
    // out of the picture pulled a raise's top toward mid-range and the rep read short. When the
    // seen part of the axis is too small to place the frame, the fill stands, as before.
    let s = 0, known = 0;
    for (let a = 0; a < d; a++) {
      if (lost[i]![a]) continue;
      s += cols[a]![i]! * v[a]!;
      known += v[a]! * v[a]!;
    }
    return known >= MIN_KNOWN ? s / known : s;
  });
  const flip = restIsHigh(proj);
  return { series: flip ? proj.map((x) => -x) : proj, axis: [...v].map((x) => (flip ? -x : x)) };
}

/**
 * A feature seen on at least this share of the frames is one the view shows: unseen for a while,
 * it was lost from view (out of the picture), not hidden by the view as a side-on far wrist is.
 * Not higher: a joint out of the picture one second in five is seen on 80% of the frames.
 */
const STEADY = 0.7;

/** Share of the axis (its squared weights) that must be seen for a frame to be placed from it. */
const MIN_KNOWN = 0.3;

/**
 * Per frame and feature, whether a steady feature (`steady`) is lost from view there: unseen for a
 * run of at least `minFrames` frames. A shorter run is a flicker of the model's confidence around
 * its threshold, and the median fill reads it better than a fit on the rest.
 */
function lostRuns(features: readonly number[][], steady: readonly boolean[], minFrames: number): boolean[][] {
  const n = features.length;
  const lost = features.map((r) => r.map(() => false));
  steady.forEach((isSteady, a) => {
    if (!isSteady) return;
    for (let i = 0; i < n; i++) {
      let j = i;
      while (j < n && !Number.isFinite(features[j]![a]!)) j++;
      if (j - i >= minFrames) for (let k = i; k < j; k++) lost[k]![a] = true;
      i = j;
    }
  });
  return lost;
}

/** Share of the seen frames at either end of the clip read as where the set starts and ends. */
const ENDS = 0.05;

/**
 * Whether the series rests at its high end, so it must be turned over for a repetition to be a
 * rise from rest. A set starts and ends at rest (standing, arms down, at the top of a push-up):
 * when the clip's first and last moments both sit on the same half of the range, that half is the
 * rest. Otherwise (a clip cut mid-set) the end the series dwells near is. The dwell alone picks
 * the wrong end of a set of continuous repetitions (as long at either end) half the time, and then
 * every repetition is read from its far end and the last one is cut by the clip's end.
 */
export function restIsHigh(proj: readonly number[]): boolean {
  const seen = proj.filter(Number.isFinite);
  const lo = quantile(seen, 0.05), hi = quantile(seen, 0.95), mid = quantile(seen, 0.5);
  if (!(hi > lo)) return false;
  const k = Math.max(3, Math.round(ENDS * seen.length));
  const at = (xs: number[]) => (quantile(xs, 0.5) - lo) / (hi - lo);
  const first = at(seen.slice(0, k)), last = at(seen.slice(-k));
  if (first > 0.5 && last > 0.5) return true;
  if (first < 0.5 && last < 0.5) return false;
  // Rest is the end the series dwells near; the repetition moves away from it.
  return hi - mid < mid - lo;
}

/**
 * The level the series dwells at on its low side. A set with pauses at rest visits one level of
 * its lower 30% most: that is the rest. Continuous repetitions spend as long at either end: then
 * the 5th percentile `lo` is. Between the two, the rest moves smoothly from `lo` toward the low
 * side's most visited level as that level's visits grow from 0.8 to 1.2 times the high side's
 * most: a choice on which bin is highest turned on one frame. The shared side-on push-ups read
 * 23 against 23 visits, took the low mode, and counted 14 of 14; with their poses flipped (float
 * rounding moved one frame) 22 against 23, took `lo`, and counted 15.
 * The visits are counted by linear binning (each reading shared between the two nearest bin
 * centres) and the mode is read between bin centres (the parabola through the top bin and its
 * neighbours), so both the ratio and the mode's place move with the readings, not by a bin when one
 * reading crosses a bin's edge. Counted whole into bins, the seated row from behind (counted on the
 * movement: its hands are hidden) read 26 low against 28 high visits as filmed and 25 against 32
 * with its poses mirrored (series 0.005 apart), rests a tenth of a rep apart, and counted 7 and 8
 * (issue 20p).
 */
export function restLevel(s: readonly number[], lo: number, hi: number): number {
  if (!(hi > lo)) return lo;
  const bins = new Array<number>(20).fill(0);
  for (const x of s) {
    if (!Number.isFinite(x) || x < lo || x > hi) continue;
    // Shared between the two nearest bin centres by distance (linear binning), so a reading that
    // moves a little moves the counts a little (see the doc comment).
    const u = Math.min(19, Math.max(0, ((x - lo) / (hi - lo)) * 20 - 0.5));
    const k = Math.min(18, Math.floor(u)), f = u - k;
    bins[k]! += 1 - f;
    bins[k + 1]! += f;
  }
  const low = bins.slice(0, LOW_BINS), high = Math.max(...bins.slice(LOW_BINS));
  const lowTop = Math.max(...low);
  if (!(lowTop > 0)) return lo;
  // The mode between bin centres: the vertex of the parabola through the top bin and its two
  // neighbours, so a level that sits on the line between two bins reads there whichever of the two
  // holds a frame more.
  const m = low.indexOf(lowTop);
  const a = m > 0 ? bins[m - 1]! : 0, c = bins[m + 1]!;
  const curve = a - 2 * lowTop + c;
  const shift = curve < 0 ? Math.min(0.5, Math.max(-0.5, (0.5 * (a - c)) / curve)) : 0;
  const mode = lo + ((m + shift + 0.5) / 20) * (hi - lo);
  const w = high > 0 ? Math.min(1, Math.max(0, (lowTop / high - 0.8) / 0.4)) : 1;
  return lo + w * (mode - lo);
}

/** The bins (of 20) of the series' lower 30%, where a rest it pauses at lies. */
const LOW_BINS = 6;

/**
 * How the two sides take part in the movement, from the vertical weights of the left and right
 * joints on the axis: near 1 when they rise and fall together (a squat, a jack, a two-arm curl),
 * near -1 when one rises as the other falls (mountain climbers, alternating curls, marching).
 */
export function sidesInPhase(axis: readonly number[]): number {
  let together = 0, size = 0;
  for (let j = 0; j + 1 < JOINTS.length - 1; j += 2) {
    const l = axis[2 * j + 1] ?? 0, r = axis[2 * (j + 1) + 1] ?? 0;
    together += l * r; size += (l * l + r * r) / 2;
  }
  return size > 0 ? together / size : 1;
}

/**
 * Each feature minus its rolling median over `half` frames either side: what the body repeats at
 * the pace of repetitions stays, one-off slow changes (lifting the weight into place, sitting
 * down, turning to the camera) fall out before they can outweigh the repetitions.
 */
export function detrend(features: readonly number[][], half: number): number[][] {
  const d = features[0]?.length ?? 0;
  const out = features.map((r) => r.slice());
  // The median is taken every `step` frames and interpolated between: a baseline over seconds
  // changes little from one frame to the next, and this keeps the cost a small part of a job's.
  const n = features.length, step = Math.max(1, Math.floor(half / 6));
  for (let j = 0; j < d; j++) {
    const col = features.map((r) => r[j]!);
    const knots: number[] = [];
    for (let i = 0; i < n; i += step) knots.push(quantile(col.slice(Math.max(0, i - half), i + half + 1), 0.5));
    for (let i = 0; i < n; i++) {
      const k = Math.floor(i / step), u = (i % step) / step;
      const a = knots[k]!, b = knots[k + 1];
      const base = b === undefined || !Number.isFinite(b) ? a : !Number.isFinite(a) ? b : a + (b - a) * u;
      out[i]![j] = col[i]! - base;
    }
  }
  return out;
}

/**
 * The span of a repetition in the series: the median over the frames of the range (10th to 90th
 * percentile) of a window of `half` frames either side. One large one-off movement widens the
 * window range only around it, so it cannot shrink every repetition to noise.
 */
export function typicalSpan(series: readonly number[], half: number): number {
  const ranges: number[] = [];
  for (let i = 0; i < series.length; i += Math.max(1, Math.floor(half / 2))) {
    const w = series.slice(Math.max(0, i - half), i + half + 1) as number[];
    const lo = quantile(w, 0.1), hi = quantile(w, 0.9);
    if (Number.isFinite(lo) && Number.isFinite(hi)) ranges.push(hi - lo);
  }
  return quantile(ranges, 0.5);
}
