// Set-relative verdicts: a rep is also judged against the other reps of its own set. In other
// people's good multi-rep sets the most common false alarm is one rep faulted just past a limit
// while every other rep passes: the keypoints of one rep wobble by about as much as the reps
// differ from each other, so a value that close to the limit says nothing about that rep.
import type { RepView } from '../exercise.js';
import type { JudgedRep } from '../feedback.js';
import { quantile } from '../signals.js';
import { marginOf } from './common.js';

/** Fewer judged reps than this give no spread to judge a rep against. */
export const MIN_SET = 3;

/**
 * The set's rep-to-rep spread of one rule's margin: the standard deviation over the reps that
 * passed (the faulted rep is what is being judged, so it does not widen its own tolerance).
 */
function spread(values: number[]): number {
  if (values.length < 2) return NaN;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1));
}

/**
 * Drops the faults that are noise against the set: a rule's fault on at most a third of the set's
 * judged reps (of at least MIN_SET), whose margin past the limit (pastLimit, recorded for passes
 * too, in the rule's moderate bands) is within the spread of the reps that passed and a minor
 * fault at most, while those reps passed comfortably (their median at least a spread and a
 * moderate band inside the limit). A fault clearly past the limit (moderate or worse, or past
 * the set's spread) stays however few reps carry it: a bad set is often bad on one rep. So does
 * one the set shares (more than a third of the reps), or one in a set whose other reps sit near
 * the limit themselves (a bad push-up set whose hips sag a little more on every rep). The rep then carries no issue of that rule and
 * no strength either: its value was past the limit, only not by more than the set's own noise.
 * `views[i]` is what `reps[i]` was judged on.
 */
export function settleSetNoise(reps: JudgedRep[], views: readonly RepView[]): JudgedRep[] {
  const judged = reps.map((r, i) => (r.valid && !r.endsSet && !r.startsSet ? i : -1)).filter((i) => i >= 0);
  // An attempt cut off by the clip, judged on the part seen (pipeline.ts judgeCut), is held to the
  // same noise; it is no repetition of the set, so it does not widen or narrow it.
  const cut = reps.map((r, i) => ((r.endsSet || r.startsSet) && r.checked ? i : -1)).filter((i) => i >= 0);
  const drop = new Map<number, Set<string>>();
  const ruleIds = new Set(judged.flatMap((i) => reps[i]!.issues.map((x) => x.ruleId)));
  for (const i of cut) for (const x of reps[i]!.issues) ruleIds.add(x.ruleId);
  for (const id of ruleIds) {
    const measured = judged.filter((i) => Number.isFinite(marginOf(views[i]!, id)));
    if (measured.length < MIN_SET) continue;
    const faulted = measured.filter((i) => reps[i]!.issues.some((x) => x.ruleId === id));
    if (faulted.length * 3 > measured.length) continue;
    const passing = measured.filter((i) => !faulted.includes(i)).map((i) => marginOf(views[i]!, id));
    const s = spread(passing);
    // Comfortably: the reps that passed sit, in the middle, a spread and a moderate band inside.
    if (!(s > 0) || quantile(passing, 0.5) > -Math.max(s, 1)) continue;
    const cutFaulted = cut.filter((i) => reps[i]!.issues.some((x) => x.ruleId === id));
    for (const i of [...faulted, ...cutFaulted]) {
      // Within the spread, and a minor fault at most: a moderate one is clearly past the limit.
      if (marginOf(views[i]!, id) <= Math.min(s, 1)) drop.set(i, (drop.get(i) ?? new Set()).add(id));
    }
  }
  return reps.map((r, i) => {
    const ids = drop.get(i);
    return ids ? { ...r, issues: r.issues.filter((x) => !ids.has(x.ruleId)) } : r;
  });
}
