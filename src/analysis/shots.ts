// Where a video cuts from one shot to another. The pose stack marks frames where the picture
// changed all at once (`cut`); a body whose centre jumps by more than twice its recent size in one
// frame is also a new shot (or a switch to another person). Size changes alone are not used: a
// torso seen head-on in a push-up shrinks and grows every rep. Each shot is then calibrated on its
// own, because after a cut the same person may be filmed from elsewhere.
import { KP, kpAt, type AnyPose } from './pose.js';

const SEEN = 0.3;

/** Centre of the seen torso joints and the body's extent (largest distance between seen joints). */
function torso(f: AnyPose): { x: number; y: number; len: number } | null {
  const pts = [KP.leftShoulder, KP.rightShoulder, KP.leftHip, KP.rightHip].filter((k) => kpAt(f, k, 2) >= SEEN);
  const sh = pts.filter((k) => k === KP.leftShoulder || k === KP.rightShoulder);
  if (!sh.length || sh.length === pts.length) return null;
  const avg = (ks: number[], c: 0 | 1) => ks.reduce((a, k) => a + kpAt(f, k, c), 0) / ks.length;
  let len = 0;
  for (const a of pts) for (const b of pts) len = Math.max(len, Math.hypot(kpAt(f, a, 0) - kpAt(f, b, 0), kpAt(f, a, 1) - kpAt(f, b, 1)));
  return { x: avg(pts, 0), y: avg(pts, 1), len };
}

/** Frame indices that start a new shot, none closer than `minShotS` to another or to the ends. */
export function findCuts(poses: readonly AnyPose[], fps: number, minShotS = 1.5): number[] {
  const minGap = Math.round(minShotS * fps);
  const raw: number[] = [];
  let prev: ReturnType<typeof torso> = null;
  const sizes: number[] = [];
  for (let i = 0; i < poses.length; i++) {
    const f = poses[i]!;
    const t = torso(f);
    const marked = (f as { cut?: boolean }).cut === true;
    let jumped = false;
    if (t && prev) {
      // Scale: the largest extent over the last second, robust to a torso foreshortened now.
      const ref = Math.max(t.len, ...sizes);
      jumped = ref > 0 && Math.hypot(t.x - prev.x, t.y - prev.y) / ref > 2;
    }
    if (i > 0 && (marked || jumped)) { raw.push(i); sizes.length = 0; }
    if (t) {
      prev = t;
      sizes.push(t.len);
      if (sizes.length > fps) sizes.shift();
    }
  }
  const cuts: number[] = [];
  for (const c of raw) {
    if (c < minGap || poses.length - c < minGap) continue;
    if (cuts.length && c - cuts[cuts.length - 1]! < minGap) continue;
    cuts.push(c);
  }
  return cuts;
}
