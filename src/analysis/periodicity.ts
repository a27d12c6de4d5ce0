// The clip's own rhythm, independent of any exercise's signal: how similar the whole pose is to
// itself one lag later (the self-similarity RepNet counts from, reduced here to its diagonals, i.e.
// an autocorrelation of a multi-joint pose feature). A set of repetitions is periodic; its period
// cross-checks the count the exercise's signal gave: two "reps" much closer than a period are one
// rep read twice, and an attempt spanning two periods with a dip between is two reps merged.
import type { FrameCtx } from './exercise.js';
import { angleAt, joint, VISIBLE, type Joint, type Side } from './signals.js';

export interface Period {
  /** Frames per repetition. */
  frames: number;
  /** Height of the autocorrelation peak, 0..1: how alike successive repetitions look. */
  strength: number;
}

const ANGLES: [Joint, Joint, Joint][] = [
  ['shoulder', 'elbow', 'wrist'], ['hip', 'shoulder', 'elbow'], ['shoulder', 'hip', 'knee'], ['hip', 'knee', 'ankle'],
];

/** Per frame, the joint angles of both sides (radians / pi), NaN where unseen: a pose feature. */
export function poseFeatures(frames: readonly FrameCtx[]): number[][] {
  const sides: Side[] = ['left', 'right'];
  return frames.map((f) => sides.flatMap((s) => ANGLES.map(([a, b, c]) => {
    const A = f.p[joint(s, a)]!, B = f.p[joint(s, b)]!, C = f.p[joint(s, c)]!;
    return Math.min(A.score, B.score, C.score) >= VISIBLE ? angleAt(A, B, C) / 180 : NaN;
  })));
}

/**
 * The dominant period of the features over [from, to), searched between `minFrames` and a third
 * of the span; null when no lag makes the pose resemble itself (strength under 0.3).
 */
export function findPeriod(features: readonly number[][], from: number, to: number, minFrames: number): Period | null {
  const n = to - from;
  const maxLag = Math.floor(n / 3);
  if (n < 6 || maxLag <= minFrames) return null;
  const dims = features[0]?.length ?? 0;
  // Each dimension centred on its own mean over the span, so slow drifts weigh little.
  const centred: number[][] = [];
  for (let d = 0; d < dims; d++) {
    let s = 0, k = 0;
    for (let i = from; i < to; i++) { const v = features[i]![d]!; if (Number.isFinite(v)) { s += v; k++; } }
    const mean = k ? s / k : 0;
    centred.push(Array.from({ length: n }, (_, i) => { const v = features[from + i]![d]!; return Number.isFinite(v) ? v - mean : NaN; }));
  }
  const corr = (lag: number) => {
    let num = 0, a2 = 0, b2 = 0;
    for (const xs of centred) {
      for (let i = 0; i + lag < n; i++) {
        const a = xs[i]!, b = xs[i + lag]!;
        if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
        num += a * b; a2 += a * a; b2 += b * b;
      }
    }
    return a2 > 0 && b2 > 0 ? num / Math.sqrt(a2 * b2) : 0;
  };
  const r = Array.from({ length: maxLag + 2 }, (_, lag) => (lag < minFrames ? 1 : corr(lag)));
  // The first local maximum after the correlation has dipped below zero is the period.
  let dipped = false, best: Period | null = null;
  for (let lag = minFrames; lag <= maxLag; lag++) {
    if (r[lag]! < 0) dipped = true;
    if (!dipped) continue;
    if (r[lag]! >= r[lag - 1]! && r[lag]! >= r[lag + 1]! && r[lag]! >= 0.3) {
      best = { frames: lag, strength: r[lag]! };
      break;
    }
  }
  return best;
}
