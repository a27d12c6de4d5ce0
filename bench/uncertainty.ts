// How far past (or inside) its limit a rule's reading is, against the reading's own uncertainty
// (`npm run eval -- --form`, tuning clips). A rule reads one number off a rep (a hip angle, a knee's
// reach) and compares it with a limit; the number carries the pose model's frame-to-frame jitter,
// which differs from clip to clip (light, distance, clothing, a phone's resolution). The jitter at
// each keypoint is read off the clip's own raw keypoints (rawWobble, jitterOf), the rep is read
// again by the rule with that much more jitter added (JITTER_DRAWS seeded draws, each smoothed as
// the poses are), and the spread of the margins it reads is the standard error of its reading (a
// parametric bootstrap), without labels.
//
// Issue 16o built this to fault a rep only past the limit by more than one standard error. On the
// tuning clips it dropped only bad clips' faults (one bad clip lost, no good clip had a fault to
// drop) and on the never-tuned set it lost a bad clip and cleared no good one: the good clips other
// people film are flagged well past the jitter, so the engine does not use it
// (docs/form-verdicts-history.md, issue 16o). The eval prints it so that a limit's distance from
// the good clips can be read in the measurement's own units.
//
// Split halves (the rule read on the rep's even frames and on its odd frames) were tried first: the
// pose smoothing averages each frame 1-2-1 with its neighbours (signals.ts smoothPoses), a filter
// with no gain at half the frame rate, which is what the even-odd difference reads, so the halves
// agreed to 0.01-0.3 bands whatever the jitter.
import type { AnyPose, Keypoint } from '../src/analysis/pose.js';
import { kpAt } from '../src/analysis/pose.js';
import { progressSeries, type ExerciseDef, type FormRule, type FrameCtx, type RepView } from '../src/analysis/exercise.js';
import { VISIBLE } from '../src/analysis/signals.js';
import { marginOf } from '../src/analysis/rules/common.js';
import { seededRandom } from './support/random.js';

/** Re-readings per faulted rule: enough for a spread to within about a quarter of itself. */
export const JITTER_DRAWS = 8;

/**
 * Each keypoint's raw second difference at each frame, pixels (x and y together):
 * |k(i-1) - 2 k(i) + k(i+1)|, NaN where any of the three is unseen or at the clip's ends. For a
 * keypoint that jitters by s pixels a frame on each axis, independently from frame to frame, its
 * square averages 12 s^2 (6 s^2 per axis); the movement itself adds its acceleration times the
 * frame interval squared, small beside the jitter at 12 fps. Read on the poses before smoothing:
 * after it, the jitter is mostly gone.
 */
export function rawWobble(frames: readonly AnyPose[]): number[][] {
  const n = frames.length;
  return frames.map((f, i) => {
    const keypoints = 'packed' in f ? f.packed.length / 3 : f.keypoints.length;
    return Array.from({ length: keypoints }, (_, k) => {
      if (i === 0 || i === n - 1) return NaN;
      const a = frames[i - 1]!, b = frames[i + 1]!;
      if (Math.min(kpAt(a, k, 2), kpAt(f, k, 2), kpAt(b, k, 2)) < VISIBLE) return NaN;
      const dx = kpAt(a, k, 0) - 2 * kpAt(f, k, 0) + kpAt(b, k, 0), dy = kpAt(a, k, 1) - 2 * kpAt(f, k, 1) + kpAt(b, k, 1);
      return Math.hypot(dx, dy);
    });
  });
}

/**
 * The pose model's jitter per keypoint over the rep, pixels per axis (s above): from the median
 * squared second difference, robust to the odd frame where a keypoint jumps (a jump is no jitter,
 * and the rules read quantiles that ignore it). |d|^2 / (6 s^2) is chi-square with two degrees of
 * freedom, whose median is 2 ln 2. NaN for a keypoint never seen three frames running.
 */
export function jitterOf(rep: RepView, wobbleAt: ReadonlyMap<number, readonly number[]>): number[] {
  const keypoints = rep.frames[0]?.p.length ?? 0;
  return Array.from({ length: keypoints }, (_, k) => {
    const sq = rep.frames.map((f) => wobbleAt.get(f.t)?.[k] ?? NaN).filter(Number.isFinite).map((w) => w * w).sort((a, b) => a - b);
    return sq.length ? Math.sqrt(sq[Math.floor(sq.length / 2)]! / (6 * 2 * Math.LN2)) : NaN;
  });
}

/**
 * The rep with `jitter` more pose jitter (pixels per axis, per keypoint): white noise on each raw
 * frame, averaged 1-2-1 with its neighbours as the pose smoothing averages the raw poses, added to
 * the smoothed and to the fitted keypoints alike (the fit passes a little more of it, 17/35 of a
 * frame's own jitter against 6/16; the smoothing's share is used for both). With the exercise's
 * `def`, the rep's progress signal (what push-up depth is read on) moves by what the exercise's
 * progress reads on the moved keypoints against the rep's own, both calibrated on the rep: the
 * counter calibrates on the whole shot, but a difference of two readings under one calibration
 * hardly depends on which (push-up progress is linear in it).
 */
export function jittered(rep: RepView, jitter: readonly number[], random: () => number, def?: ExerciseDef): RepView {
  const normal = () => Math.sqrt(-2 * Math.log(Math.max(1e-12, random()))) * Math.cos(2 * Math.PI * random());
  const n = rep.frames.length;
  const white = jitter.map((s) => Array.from({ length: n + 2 }, () => [normal() * (s || 0), normal() * (s || 0)] as const));
  const at = (k: number, i: number, c: 0 | 1) => (white[k]![i]![c] + 2 * white[k]![i + 1]![c] + white[k]![i + 2]![c]) / 4;
  const moved = (kps: readonly Keypoint[], i: number) => kps.map((kp, k) => (jitter[k]! > 0 ? { ...kp, x: kp.x + at(k, i, 0), y: kp.y + at(k, i, 1) } : kp));
  const frames: FrameCtx[] = rep.frames.map((f, i) => ({ ...f, p: moved(f.p, i), fitted: moved(f.fitted, i) }));
  if (!def || !rep.progress) return { ...rep, frames };
  const before = progressSeries(def, rep.frames), after = progressSeries(def, frames, def.calibrate?.(rep.frames) ?? {});
  const progress = rep.progress.map((v, i) => v + (Number.isFinite(after[i]! - before[i]!) ? after[i]! - before[i]! : 0));
  return { ...rep, frames, progress };
}

/**
 * The standard error of a rule's margin on this rep, in the rule's moderate bands (the margin's
 * own units, rules/common.ts pastLimit): the spread of the margins the rule reads on JITTER_DRAWS
 * copies of the rep with `jitter` (jitterOf) added again (its progress signal moved too, given the
 * exercise's `def`). NaN when fewer than two copies could be judged.
 */
export function marginUncertainty(rule: FormRule, rep: RepView, jitter: readonly number[], def?: ExerciseDef): number {
  // Seeded: the same clip gives the same figures on every run.
  const random = seededRandom(0x16f00d);
  const margins: number[] = [];
  for (let d = 0; d < JITTER_DRAWS; d++) {
    // Each copy is a new RepView, so the rule records its margin there, not on the rep.
    const copy = jittered(rep, jitter, random, def);
    const m = rule.check(copy) !== undefined ? marginOf(copy, rule.id) : NaN;
    if (Number.isFinite(m)) margins.push(m);
  }
  if (margins.length < 2) return NaN;
  const mean = margins.reduce((a, b) => a + b, 0) / margins.length;
  return Math.sqrt(margins.reduce((a, b) => a + (b - mean) ** 2, 0) / (margins.length - 1));
}

/** Readings this close to their limit (moderate bands, either side) get a standard error. */
export const NEAR_LIMIT_BANDS = 1;

/**
 * Per rep judged on `reps` (the pipeline's RepViews, from `poses` as extracted), the standard error
 * of each rule's margin that came within NEAR_LIMIT_BANDS of its limit or past it.
 */
export function repUncertainties(def: ExerciseDef, reps: readonly RepView[], poses: readonly AnyPose[]): Record<string, number>[] {
  const wobble = rawWobble(poses);
  const wobbleAt = new Map(poses.map((p, i) => [p.timeMs, wobble[i]!] as const));
  return reps.map((rep) => {
    const jitter = jitterOf(rep, wobbleAt);
    const out: Record<string, number> = {};
    for (const rule of def.rules) {
      if (!(marginOf(rep, rule.id) > -NEAR_LIMIT_BANDS)) continue;
      const u = marginUncertainty(rule, rep, jitter, def);
      if (Number.isFinite(u)) out[rule.id] = u;
    }
    return out;
  });
}
