// Camera angle from the pose itself: seen from the front the shoulders are spread about 0.7 torso
// lengths apart, seen from the side they overlap. Hips add a second, independent width cue.
import type { CameraAngle, FrameCtx } from './exercise.js';
import { KP } from './pose.js';
import { quantile, VISIBLE } from './signals.js';

/** Shoulder (and hip) width relative to the person's torso length, per frame; NaN when unseen. */
export function widthRatio(f: FrameCtx): number {
  const ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!;
  const lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
  if (!(f.torsoLen > 0)) return NaN;
  const parts: number[] = [];
  const width = (a: typeof ls, b: typeof ls, scale: number) => {
    if (Math.min(a.score, b.score) >= VISIBLE) parts.push(Math.hypot(a.x - b.x, a.y - b.y) / scale / f.torsoLen);
    // Only one of the pair seen: the other is hidden behind the body, which happens side-on.
    else if (Math.max(a.score, b.score) >= VISIBLE) parts.push(0.1);
  };
  width(ls, rs, 1);
  // Hip joints sit about 60% as far apart as the shoulders.
  width(lh, rh, 0.6);
  return parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : NaN;
}

export function classifyRatio(r: number): CameraAngle | 'unknown' {
  if (!Number.isFinite(r)) return 'unknown';
  if (r < 0.25) return 'side';
  if (r < 0.5) return 'diagonal';
  return 'front';
}

/** The camera angle over the frames that matter (those in reps when there are any). */
export function estimateView(frames: FrameCtx[]): CameraAngle | 'unknown' {
  return classifyRatio(quantile(frames.map(widthRatio), 0.5));
}
