// One story per result: what a result says in one place must not be contradicted in another. Used
// by the tests (over synthetic and real results) and by the form eval, which counts the breaks.
import type { AnalysisResult } from './result.js';

/** Every contradiction in a result, as a sentence; [] when the result tells one story. */
export function storyContradictions(result: AnalysisResult): string[] {
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
  }
  return out;
}
