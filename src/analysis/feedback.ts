// Turns judged repetitions into SPEC's result object: quality scores, key improvement areas by
// priority (always 2 or 3), overall strengths and the visibility context. Pure.
import type { AnalysisResult, Issue, KeyImprovementArea, RepStrength, Repetition } from './result.js';
import type { ExerciseDef, Severity } from './exercise.js';
import { judgedFrom, type ViewAngle } from './view.js';

export const impactOf: Record<Severity, number> = { minor: -5, moderate: -10, major: -20 };

/** What the pipeline knows about one attempt before it becomes a Repetition. */
export interface JudgedRep {
  startMs: number;
  endMs: number;
  valid: boolean;
  issues: (Issue & { ruleId: string })[];
  strengths: RepStrength[];
  durationS: number;
  /**
   * Cut off by the end of the set (the clip or the posture ended mid-rep): invalid; judged on the
   * part seen when its bottom was (then `checked` is set), else not judged.
   */
  endsSet?: boolean;
  /** Opened by the start of the clip mid-rep: invalid; judged on the part seen as `endsSet` is. */
  startsSet?: boolean;
  /** Ids of the rules that gave this rep a verdict (a fault or a pass); the rest were not checked. */
  checked?: string[];
  /**
   * Points off the score for passing some rule close to its limit (0 to 4, rules/near-limit.ts):
   * not an issue, so it is listed nowhere but in the score.
   */
  nearLimit?: number;
}

export interface SetContext {
  def: ExerciseDef;
  view: ViewAngle | 'unknown';
  /**
   * Rules not assessed in this set: `view` when this view cannot show them at all, `unseen` when
   * the view could but no repetition showed what they read (the body turned past the angle the
   * rule needs, or the joints hidden): either way "Not checked", never a pass.
   */
  unjudgedRules: { name: string; views: ViewAngle[]; reason?: 'view' | 'unseen' }[];
  personSeen: boolean;
}

/**
 * 100 plus the issues' impacts, minus the points for passing close to a limit (`nearLimit`, at most
 * 4: less than the smallest issue, so every rep with an issue scores below every rep without one).
 */
export function qualityScore(issues: Pick<Issue, 'impact_on_score'>[], nearLimit = 0): number {
  const s = 100 + issues.reduce((a, i) => a + i.impact_on_score, 0) - nearLimit;
  return Math.max(0, Math.min(100, Math.round(s * 10) / 10));
}

export function toRepetitions(reps: JudgedRep[]): Repetition[] {
  return reps.map((r, i) => ({
    attempt_number: i + 1,
    start_time_ms: Math.max(0, Math.round(r.startMs)),
    end_time_ms: Math.max(0, Math.round(r.endMs)),
    is_valid_rep: r.valid,
    quality_score: qualityScore(r.issues, r.nearLimit),
    issues: r.issues.map(({ ruleId: _id, ...issue }) => issue),
    strengths: r.strengths,
  }));
}

/** How a fault is spread over the set, from the attempt numbers it affected. */
export function patternOf(affected: number[], attempts: number): string {
  if (attempts === 0 || affected.length === 0) return 'not_applicable';
  if (affected.length === 1 && attempts > 1) return 'single_rep';
  if (affected.length === attempts) return 'every_rep';
  const third = attempts / 3;
  if (attempts >= 3 && affected.every((a) => a > attempts - third)) return 'late_reps';
  if (attempts >= 3 && affected.every((a) => a <= third)) return 'early_reps';
  if (affected.length / attempts >= 0.6) return 'most_reps';
  return 'some_reps';
}

const impactWord = (total: number, attempts: number): string => {
  const perRep = attempts > 0 ? total / attempts : total;
  return perRep >= 10 ? 'high' : perRep >= 5 ? 'medium' : 'low';
};

function issueAreas(reps: JudgedRep[]): KeyImprovementArea[] {
  const groups = new Map<string, { sample: Issue; total: number; affected: number[]; worst: Issue }>();
  reps.forEach((r, i) => {
    for (const issue of r.issues) {
      const g = groups.get(issue.ruleId) ?? { sample: issue, total: 0, affected: [], worst: issue };
      g.total += -issue.impact_on_score;
      if (!g.affected.includes(i + 1)) g.affected.push(i + 1);
      if (issue.impact_on_score < g.worst.impact_on_score) g.worst = issue;
      groups.set(issue.ruleId, g);
    }
  });
  return [...groups.values()]
    .sort((a, b) => b.total - a.total || b.affected.length - a.affected.length || a.sample.name.localeCompare(b.sample.name))
    .map((g) => ({
      priority: 1,
      category: g.sample.category,
      name: g.sample.name,
      description: `${g.sample.name} on ${g.affected.length} of ${reps.length} attempts. Worst: ${g.worst.description}`,
      correction: g.sample.correction,
      impact: impactWord(g.total, reps.length),
      pattern_of_occurrence: patternOf(g.affected, reps.length),
      affected_reps: g.affected,
    }));
}

/** Advice that stays true whatever was seen, used to reach the two areas SPEC always requires. */
function fillerAreas(ctx: SetContext, reps: JudgedRep[]): KeyImprovementArea[] {
  const { def, view } = ctx;
  const out: KeyImprovementArea[] = [];
  const base = { impact: 'low', pattern_of_occurrence: 'not_applicable', affected_reps: [] as number[] };
  if (def.formNotChecked && reps.length) {
    out.push({ ...base, priority: 1, category: 'setup', name: 'Not checked: form faults', description: def.formNotChecked,
      correction: 'Choose the exercise from the catalog when it is listed; its form rules then judge every repetition.' });
  }
  if (!ctx.personSeen || reps.length === 0) {
    out.push({ ...base, priority: 1, category: 'setup', name: 'Person not analysable',
      impact: 'high',
      description: ctx.personSeen
        ? `The person was seen but no ${def.name.toLowerCase()} repetition could be judged (required posture: ${def.gateDescription}).`
        : 'No person could be tracked clearly enough to judge the movement.',
      correction: def.filmingAdvice });
  }
  if (view !== def.recommendedAngle) {
    out.push({ ...base, priority: 1, category: 'setup', name: 'Camera angle',
      description: view === 'unknown'
        ? `The camera angle could not be determined; ${def.name.toLowerCase()} is best judged from the ${def.recommendedAngle}.`
        : `Filmed from the ${view}; ${def.name.toLowerCase()} is best judged from the ${def.recommendedAngle}.`,
      correction: def.angleAdvice });
  }
  for (const r of ctx.unjudgedRules.slice(0, 2)) {
    out.push({ ...base, priority: 1, category: 'setup', name: `Not checked: ${r.name.toLowerCase()}`,
      description: r.reason === 'unseen'
        ? `${r.name} could not be measured on any repetition of this video (the body turned away from the angle it needs, the joints it reads hidden, or no complete repetition), so it was not assessed.`
        : `${r.name} cannot be judged from a ${view} view, so it was not assessed.`,
      correction: `Record a set from the ${r.views.join(' or ')} to have it checked.` });
  }
  const valid = reps.filter((r) => r.valid);
  if (valid.length >= 3) {
    const d = valid.map((r) => r.durationS);
    const mean = d.reduce((a, b) => a + b, 0) / d.length;
    const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / d.length);
    out.push({ ...base, priority: 1, category: 'tempo', name: 'Tempo consistency',
      description: `Repetitions took ${mean.toFixed(1)} s on average (spread ${sd.toFixed(1)} s).`,
      correction: 'Keep a steady, controlled tempo: about two seconds down and one to two seconds up on every rep.' });
  }
  // Nothing (more) to fix: the checks that passed are still what to protect as load or fatigue grows.
  // Only what held on every rep is worth keeping: a rule in a category some rep was faulted in is
  // not held up as a strength of the set.
  const faultedCategories = new Set(reps.flatMap((r) => r.issues.map((i) => i.category)));
  // A rule no rep was checked by is "Not checked", never something to keep: only a rule that
  // passed on some judged rep is (a set whose only attempt was cut off by its end judged none).
  const notChecked = new Set(ctx.unjudgedRules.map((r) => r.name));
  const passed = (id: string) => reps.some((x) => x.checked?.includes(id) && !x.issues.some((i) => i.ruleId === id));
  const judged = ctx.def.rules.filter((r) => view !== 'unknown' && judgedFrom(r, view) && !notChecked.has(r.name) &&
    passed(r.id) && !faultedCategories.has(r.category) && !faultedCategories.has(r.strength.category));
  for (const r of reps.length ? judged.slice(0, 2) : []) {
    out.push({ ...base, priority: 1, category: r.category, name: `Keep: ${r.strength.name.toLowerCase()}`,
      description: `${r.name} was not a problem in this set; it is the first thing to slip as the load or the rep count grows.`,
      correction: r.correction });
  }
  out.push({ ...base, priority: 1, category: 'setup', name: 'Full body in frame',
    description: 'Keeping the whole body in frame and well lit makes every check reliable.',
    correction: def.filmingAdvice });
  // Last, for a set that leaves nothing else to say (one attempt, filmed from the recommended
  // angle, no rule passed on a judged rep): SPEC asks for two areas at least.
  out.push({ ...base, priority: 1, category: 'setup', name: 'Film the whole set',
    description: 'A whole set, several repetitions recorded from the first to the last, lets each rep be judged against the others.',
    correction: 'Start recording before the first repetition and stop after the last one.' });
  return out;
}

/** What became of an attempt the clip cut: judged on the part seen (its bottom was), or not at all. */
const partSeen = (r: JudgedRep) => (r.checked ? 'does not count; only the part seen was judged' : 'was not judged');

export function overallFeedback(reps: JudgedRep[], ctx: SetContext): AnalysisResult['overall_feedback'] {
  const areas = [...issueAreas(reps), ...fillerAreas(ctx, reps)]
    .filter((a, i, all) => all.findIndex((b) => b.name === a.name) === i)
    .slice(0, 3)
    .map((a, i) => ({ ...a, priority: i + 1 }));
  const valid = reps.filter((r) => r.valid).length;
  const scores = toRepetitions(reps).map((r) => r.quality_score);
  const avg = scores.length ? Math.round(scores.reduce((a, b) => a + b, 0) / scores.length) : 0;
  const name = ctx.def.name.toLowerCase();
  const summary = reps.length === 0
    ? `No ${name} repetitions could be analysed in this video. ${areas[0]!.correction}`
    : `${valid} valid ${name} repetition${valid === 1 ? '' : 's'} out of ${reps.length} attempt${reps.length === 1 ? '' : 's'}, average quality ${avg}/100. ` +
      (areas[0]!.affected_reps.length ? `Main focus: ${areas[0]!.name.toLowerCase()} (${areas[0]!.pattern_of_occurrence.replace('_', ' ')}).` : 'No major form faults were found.') +
      (reps[0]!.startsSet ? ` Attempt 1 was already under way when the video started, so it ${partSeen(reps[0]!)}.` : '') +
      (reps[reps.length - 1]!.endsSet ? ` Attempt ${reps.length} was cut off when the set ended mid-repetition, so it ${partSeen(reps[reps.length - 1]!)}.` : '');
  return {
    brief_summary: summary,
    key_improvement_areas: areas,
    strengths: overallStrengths(reps),
    visibility_context: {
      camera_angle: ctx.view,
      recommended_angle: ctx.def.recommendedAngle,
      angle_recommendation: ctx.def.angleAdvice,
    },
  };
}

/**
 * A strength is reported for the set when it held on at least half of the valid reps and no
 * attempt of the set was faulted in its category: the set's strengths never contradict its key
 * improvement areas.
 */
export function overallStrengths(reps: JudgedRep[]): string[] {
  const valid = reps.filter((r) => r.valid);
  if (valid.length === 0) return [];
  const faulted = new Set(reps.flatMap((r) => r.issues.map((i) => i.category)));
  const counts = new Map<string, { s: RepStrength; n: number }>();
  for (const r of valid) for (const s of r.strengths) {
    const c = counts.get(s.name) ?? { s, n: 0 };
    c.n++;
    counts.set(s.name, c);
  }
  return [...counts.values()]
    .filter((c) => c.n * 2 >= valid.length && !faulted.has(c.s.category))
    .sort((a, b) => b.n - a.n || a.s.name.localeCompare(b.s.name))
    .map((c) => `${c.s.name}: ${c.s.description.replace(/\.$/, '')} (${c.n} of ${valid.length} valid reps).`);
}
