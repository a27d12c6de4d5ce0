// One story per result: what a result says in one place must not be contradicted in another. Used
// by the tests (over synthetic and real results) and by the form eval, which counts the breaks.
import type { AnalysisResult } from './result.js';
import type { ExerciseDef, RepView } from './exercise.js';
import { NEAR_LIMIT_MAX } from './rules/near-limit.js';
import { marginOf } from './rules/common.js';

/** The score impact each severity spans (rules/common.ts `graded`; fixed impacts sit at the top). */
const BANDS = { minor: [-9, -5], moderate: [-19, -10], major: [-30, -20] } as const;

/**
 * Every contradiction in a result, as a sentence; [] when the result tells one story. With the
 * exercise's definition it also checks that what the areas call "Not checked" is judged on no rep.
 */
export function storyContradictions(result: AnalysisResult, def?: ExerciseDef): string[] {
  const out: string[] = [];
  const reps = result.repetitions;
  const fb = result.overall_feedback;
  const faulted = new Set<string>();
  const strengthCategory = new Map<string, string>();
  for (const r of reps) {
    const cats = new Set(r.issues.map((i) => i.category));
    for (const c of cats) faulted.add(c);
    for (const s of r.strengths) {
      strengthCategory.set(s.name, s.category);
      if (cats.has(s.category)) out.push(`attempt ${r.attempt_number} is praised for "${s.name}" in ${s.category}, where it carries an issue`);
    }
  }
  // The set's strengths: each named after a rep strength, none in a category any attempt was faulted in.
  for (const s of fb.strengths) {
    const name = s.slice(0, s.indexOf(':'));
    const cat = strengthCategory.get(name);
    if (cat === undefined) out.push(`set strength "${name}" is not a strength of any attempt`);
    else if (faulted.has(cat)) out.push(`set strength "${name}" is in ${cat}, where an attempt carries an issue`);
  }
  for (const a of fb.key_improvement_areas) {
    // An area naming affected reps is an issue those reps carry; a "Keep:" area praises a category
    // no rep was faulted in.
    for (const n of a.affected_reps) {
      const r = reps[n - 1];
      if (!r || !r.issues.some((i) => i.name === a.name)) out.push(`area "${a.name}" lists attempt ${n}, which does not carry it`);
    }
    if (a.name.startsWith('Keep:') && faulted.has(a.category)) out.push(`area "${a.name}" keeps ${a.category}, where an attempt carries an issue`);
  }
  // "Keep:" praises what held: a strength some attempt was judged to have, not a rule never checked.
  const repStrengths = new Set(reps.flatMap((r) => r.strengths.map((s) => s.name.toLowerCase())));
  for (const a of fb.key_improvement_areas) {
    if (a.name.startsWith('Keep: ') && !repStrengths.has(a.name.slice(6))) out.push(`area "${a.name}" keeps what no attempt was judged to have`);
  }
  // "Not checked" is what no attempt was judged on: no issue of that name, and no strength of it.
  const notChecked = new Set(fb.key_improvement_areas.filter((a) => a.name.startsWith('Not checked: ')).map((a) => a.name.slice(13)));
  for (const r of reps) {
    for (const i of r.issues) if (notChecked.has(i.name.toLowerCase())) out.push(`attempt ${r.attempt_number} carries "${i.name}", which an area says was not checked`);
    for (const rule of def?.rules ?? []) {
      if (notChecked.has(rule.name.toLowerCase()) && r.strengths.some((s) => s.name === rule.strength.name) && !def!.rules.some((o) => o !== rule && o.strength.name === rule.strength.name && !notChecked.has(o.name.toLowerCase()))) {
        out.push(`attempt ${r.attempt_number} is praised for "${rule.strength.name}", from "${rule.name}", which an area says was not checked`);
      }
    }
  }
  // Severity and score follow the excess: each issue's impact lies in its severity's band.
  for (const r of reps) for (const i of r.issues) {
    const band = BANDS[i.severity as keyof typeof BANDS];
    if (!band || i.impact_on_score < band[0] || i.impact_on_score > band[1]) out.push(`attempt ${r.attempt_number}: "${i.name}" is ${i.severity} with impact ${i.impact_on_score}`);
  }
  // The score is 100 plus the impacts, less at most NEAR_LIMIT_MAX for passing close to a limit
  // (rules/near-limit.ts), which is less than the smallest impact: so an attempt with any issue,
  // minor too, scores below every clean attempt.
  const clean = reps.filter((r) => r.issues.length === 0).map((r) => r.quality_score);
  for (const r of reps) {
    const full = Math.max(0, 100 + r.issues.reduce((a, i) => a + i.impact_on_score, 0));
    if (r.quality_score > full || r.quality_score < Math.max(0, full - NEAR_LIMIT_MAX)) out.push(`attempt ${r.attempt_number} scores ${r.quality_score}, not 100 plus its impacts less at most ${NEAR_LIMIT_MAX} near a limit (${full})`);
    if (r.issues.length && clean.some((c) => r.quality_score >= c)) out.push(`attempt ${r.attempt_number} has a ${r.issues[0]!.severity} issue but scores ${r.quality_score}, not below every clean attempt`);
  }
  const anyIssue = reps.some((r) => r.issues.length > 0);
  const first = fb.key_improvement_areas[0];
  if (anyIssue && /No major form faults were found/.test(fb.brief_summary)) out.push('the summary finds no fault while attempts carry issues');
  if (anyIssue && !(first && first.affected_reps.length && fb.brief_summary.includes(`Main focus: ${first.name.toLowerCase()} (`))) {
    out.push('the summary\'s main focus is not the first area, or that area is not a fault of the attempts');
  }
  if (!anyIssue && fb.brief_summary.includes('Main focus:')) out.push('the summary names a focus while no attempt carries an issue');
  if (reps.length) {
    const valid = reps.filter((r) => r.is_valid_rep).length;
    if (!fb.brief_summary.startsWith(`${valid} valid `) || !fb.brief_summary.includes(` out of ${reps.length} attempt`)) out.push('the summary miscounts the attempts');
    const avg = Math.round(reps.reduce((a, r) => a + r.quality_score, 0) / reps.length);
    if (!fb.brief_summary.includes(`average quality ${avg}/100`)) out.push(`the summary's average quality is not the attempts' (${avg})`);
  }
  // The counts the words give: "on k of n attempts" for an area, "(k of n valid reps)" for a strength.
  for (const a of fb.key_improvement_areas) {
    if (a.affected_reps.length && !a.description.startsWith(`${a.name} on ${a.affected_reps.length} of ${reps.length} attempts.`)) out.push(`area "${a.name}" miscounts the attempts it lists`);
  }
  const valid = reps.filter((r) => r.is_valid_rep);
  for (const s of fb.strengths) {
    const name = s.slice(0, s.indexOf(':'));
    const held = valid.filter((r) => r.strengths.some((x) => x.name === name)).length;
    if (!s.endsWith(`(${held} of ${valid.length} valid reps).`)) out.push(`set strength "${name}" miscounts the reps that held it (${held} of ${valid.length})`);
  }
  return out;
}

/**
 * Severity and score follow how far past the limit a rep went: within one set, a rep that went
 * further past a rule's limit (the margin the rule recorded, rules/common.ts pastLimit) loses at
 * least as many points for it and is no less severe than a rep that went less far; no rep carries
 * a rule's issue inside the limit that rule recorded for it. `judgedOn[i]` is what attempt i + 1
 * was judged on (PipelineOutput.reps). [] when the scores follow the excess.
 */
export function excessContradictions(result: AnalysisResult, def: ExerciseDef, judgedOn: readonly RepView[]): string[] {
  const out: string[] = [];
  const reps = result.repetitions;
  if (judgedOn.length !== reps.length) return [`${reps.length} attempts but ${judgedOn.length} judged reps`];
  const rank = { minor: 0, moderate: 1, major: 2 } as Record<string, number>;
  for (const rule of def.rules) {
    const faulted = reps.flatMap((r, i) => {
      const issue = r.issues.find((x) => x.name === rule.name);
      const margin = marginOf(judgedOn[i]!, rule.id);
      return issue && Number.isFinite(margin) ? [{ n: r.attempt_number, issue, margin }] : [];
    });
    for (const a of faulted) {
      if (a.margin <= 0) out.push(`attempt ${a.n} carries "${rule.name}" ${(-a.margin).toFixed(2)} bands inside the limit it recorded`);
      for (const b of faulted) {
        // Past b by more than rounding: a's loss for this rule is at least b's, its severity no lower.
        if (a.margin <= b.margin + 1e-6) continue;
        if (a.issue.impact_on_score > b.issue.impact_on_score) out.push(`attempt ${a.n} went further past "${rule.name}" (${a.margin.toFixed(2)} bands) than attempt ${b.n} (${b.margin.toFixed(2)}) but loses ${-a.issue.impact_on_score} points against ${-b.issue.impact_on_score}`);
        if (rank[a.issue.severity]! < rank[b.issue.severity]!) out.push(`attempt ${a.n} went further past "${rule.name}" (${a.margin.toFixed(2)} bands) than attempt ${b.n} (${b.margin.toFixed(2)}) but is ${a.issue.severity} against ${b.issue.severity}`);
      }
    }
  }
  return out;
}
