// The exercise's repetition signal over time, computed here from the job's pose track with the
// engine's own exercise definitions (nothing new asked of the engine): 0 at rest, 1 at the full
// range of motion, the curve the repetitions were counted on.
import { buildContext, progressSeries } from '../analysis/exercise.js';
import { KP, type PoseFrame } from '../analysis/pose.js';
import { exerciseDef } from '../analysis/rules/index.js';
import type { PoseTrackLike } from './skeleton.js';

export interface SignalSeries {
  /** What the signal measures, from the exercise definition. */
  label: string;
  timesMs: number[];
  /** 0..1 (more is further into the movement), NaN where the body was not seen. */
  values: number[];
}

function fpsOf(framesMs: number[]): number {
  const deltas = framesMs.slice(1).map((t, i) => t - framesMs[i]!).filter((d) => d > 0).sort((a, b) => a - b);
  const median = deltas[deltas.length >> 1];
  return median ? 1000 / median : 10;
}

/** The signal of `exerciseId` over the track; undefined when this engine does not know the exercise. */
export function exerciseSignal(exerciseId: string, track: PoseTrackLike): SignalSeries | undefined {
  const def = exerciseDef(exerciseId);
  if (!def || track.frames_ms.length === 0) return undefined;
  const index = new Map(track.landmarks.map((n, i) => [n, i]));
  // The engine's keypoint order, matched by the snake_case names the track carries (left_hip, ...).
  const order = Object.entries(KP).sort(([, a], [, b]) => a - b).map(([name]) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  const poses: PoseFrame[] = track.frames_ms.map((timeMs, f) => {
    const row = track.keypoints[f] ?? [];
    return {
      timeMs,
      width: track.width,
      height: track.height,
      keypoints: order.map((name) => {
        const i = index.get(name);
        if (i === undefined) return { x: 0, y: 0, score: 0 };
        return { x: (row[i * 3] ?? 0) * track.width, y: (row[i * 3 + 1] ?? 0) * track.height, score: row[i * 3 + 2] ?? 0 };
      }),
    };
  });
  const frames = buildContext(poses, fpsOf(track.frames_ms));
  const values = progressSeries(def, frames).map((v) => (Number.isFinite(v) ? Math.max(0, Math.min(1.2, v)) : NaN));
  return { label: def.signal, timesMs: track.frames_ms.slice(), values };
}
