// How much room a clean rule left: a rep that passed a rule close to its limit is not a perfect
// repetition, only not a faulted one. The yes/no verdict (an issue or none) stays what it is; the
// score says in addition how close the rep came, so that clean reps (and clips) rank by how far
// inside their limits they stayed instead of all tying at 100.
import type { RepView } from '../exercise.js';
import type { JudgedRep } from '../feedback.js';
import { marginOf } from './common.js';

/**
 * Points a rep loses at a limit it passed on (its margin 0): below the smallest minor impact (5),
 * so a rep with any issue still scores below every rep without one.
 */
export const NEAR_LIMIT_MAX = 4;
/**
 * How fast the room a pass left stops costing points, in the rule's moderate bands (pastLimit): a
 * pass this far inside a limit uses up 1/e of that limit's room, twice as far 1/e^2, and so on.
 * It was a cut-off (nothing from two bands inside, linearly between): a clean rep that stayed two
 * bands inside every limit scored 100 whether it came within 2.1 bands of one or stayed 8 inside
 * all of them, so among clips no rule flagged, bad ones just inside a limit tied with good ones
 * far from every limit.
 */
export const COMFORT_BANDS = 2;

/**
 * How much of one limit's room a pass used: 1 at the limit (and past it: a fault dropped as set
 * noise, set-relative.ts), e^(margin / comfortBands) inside it. It falls the more room the rep
 * left and never reaches 0, so a pass at 95% of a limit costs more than one at 50%, and that one
 * more than one at 10%.
 */
export function closeness(margin: number, comfortBands = COMFORT_BANDS): number {
  return margin >= 0 ? 1 : Math.exp(margin / comfortBands);
}

/**
 * Points for the passes of one rep, `margins` each rule's (moderate bands, as recorded by
 * pastLimit): NEAR_LIMIT_MAX times the room used up on some limit, 1 - the product over the rules
 * of the room each left (1 - closeness). A rep close to two limits loses more than one close to
 * either; a rep at one limit loses the whole NEAR_LIMIT_MAX, never more. To one decimal, so the
 * scores of clean reps keep their order. The form eval refits `comfortBands` source by source
 * (leave one source out) through this same function.
 */
export function pointsFor(margins: readonly number[], comfortBands = COMFORT_BANDS): number {
  const roomLeft = margins.reduce((left, m) => left * (1 - closeness(m, comfortBands)), 1);
  return Math.round(10 * NEAR_LIMIT_MAX * (1 - roomLeft)) / 10;
}

/**
 * Points one rep loses for passing close to limits: over the rules that judged it and gave no
 * issue (a pass, or a fault dropped as set noise), pointsFor their margins. Rules that record no
 * margin (bounce dwell, rhythm) cost nothing.
 */
export function nearLimitPoints(rep: JudgedRep, view: RepView): number {
  const faulted = new Set(rep.issues.map((i) => i.ruleId));
  const margins = (rep.checked ?? []).filter((id) => !faulted.has(id)).map((id) => marginOf(view, id)).filter(Number.isFinite);
  return pointsFor(margins);
}

/** Each rep with its near-limit points (`views[i]` is what `reps[i]` was judged on). */
export function markNearLimits(reps: JudgedRep[], views: readonly RepView[]): JudgedRep[] {
  return reps.map((r, i) => {
    const points = nearLimitPoints(r, views[i]!);
    return points > 0 ? { ...r, nearLimit: points } : r;
  });
}
