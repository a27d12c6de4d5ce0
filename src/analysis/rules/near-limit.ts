// How much room a clean rule left: a rep that passed a rule close to its limit is not a perfect
// repetition, only not a faulted one. The yes/no verdict (an issue or none) stays what it is; the
// score says in addition how close the rep came, so that clean reps (and clips) rank by how far
// inside their limits they stayed instead of all tying at 100.
import type { RepView } from '../exercise.js';
import type { JudgedRep } from '../feedback.js';
import { clamp, marginOf } from './common.js';

/**
 * Points a rep loses at a limit it passed on (its margin 0): below the smallest minor impact (5),
 * so a rep with any issue still scores below every rep without one.
 */
export const NEAR_LIMIT_MAX = 4;
/**
 * From this far inside a limit (in the rule's moderate bands, pastLimit) a pass costs nothing.
 * Two bands: with one, clean reps of the tuning squats 1-2 bands inside a limit all tied at 100,
 * so a bad squat that passed every rule ranked level with the good ones (kaiakol's single squats:
 * AUC of the lowest score 0.60 with one band, 0.79 with two; the other sources' AUC stayed 1.00,
 * `npm run eval -- --form --tuning`). Verdicts do not move, only the order of clean reps.
 */
export const COMFORT_BANDS = 2;

/**
 * Points one rep loses for passing close to a limit: over the rules that judged it and gave no
 * issue (a pass, or a fault dropped as set noise, whose margin is at or past the limit), the one
 * with the least room left, graded linearly from NEAR_LIMIT_MAX at the limit to 0
 * COMFORT_BANDS or more inside it. Rules that record no margin (bounce dwell, rhythm) cost nothing.
 * To one decimal, so scores of clean reps keep their order.
 */
export function nearLimitPoints(rep: JudgedRep, view: RepView): number {
  const faulted = new Set(rep.issues.map((i) => i.ruleId));
  let closest = -Infinity;
  for (const id of rep.checked ?? []) {
    const m = marginOf(view, id);
    if (!faulted.has(id) && Number.isFinite(m)) closest = Math.max(closest, m);
  }
  return pointsAt(closest);
}

/**
 * The points for the least room a rep left (`closest`, its largest margin over the rules it passed;
 * -Infinity with none), starting `comfortBands` inside the limit. The form eval refits
 * `comfortBands` source by source (leave one source out) through this same function.
 */
export function pointsAt(closest: number, comfortBands = COMFORT_BANDS): number {
  if (closest === -Infinity) return 0;
  return Math.round(10 * NEAR_LIMIT_MAX * clamp(1 + closest / comfortBands, 0, 1)) / 10;
}

/** Each rep with its near-limit points (`views[i]` is what `reps[i]` was judged on). */
export function markNearLimits(reps: JudgedRep[], views: readonly RepView[]): JudgedRep[] {
  return reps.map((r, i) => {
    const points = nearLimitPoints(r, views[i]!);
    return points > 0 ? { ...r, nearLimit: points } : r;
  });
}
