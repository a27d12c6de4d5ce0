// One story per result (src/analysis/story.ts): no rep praised for what it is faulted on, and the
// summary, key improvement areas and set strengths agreeing with the reps. Checked over any mix of
// judged reps (fast-check), over whole synthetic sets through the pipeline, and over real results
// of the engine on shared clips whose form people judged (skipped by name when absent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { overallFeedback, toRepetitions, type JudgedRep } from '../../src/analysis/feedback.js';
import { consistentStrengths, analyzePoses } from '../../src/analysis/pipeline.js';
import { excessContradictions, storyContradictions } from '../../src/analysis/story.js';
import { pastLimit } from '../../src/analysis/rules/common.js';
import type { RepView } from '../../src/analysis/exercise.js';
import { exerciseDef, exercises } from '../../src/analysis/rules/index.js';
import { createPoseEngine } from '../../src/analysis/index.js';
import { loadFormClips } from '../../bench/form-eval.js';
import { formVideosDir } from '../../bench/shared-videos.js';
import { cycle, frontSquatter, series, sidePushUp, sideSquatter } from './synthetic.js';

const categories = ['range_of_motion', 'posture', 'alignment', 'tempo', 'stability'] as const;
const severities = ['minor', 'moderate', 'major'] as const;

const issueArb = fc.record({
  ruleId: fc.constantFrom('depth', 'lean', 'knees', 'bounce', 'heels'),
  category: fc.constantFrom(...categories),
  // An impact inside its severity's band, as rules/common.ts graded gives it.
  band: fc.constantFrom(...severities).chain((severity) => fc.integer({ min: { minor: -9, moderate: -19, major: -30 }[severity], max: { minor: -5, moderate: -10, major: -20 }[severity] })
    .map((impact_on_score) => ({ severity, impact_on_score }))),
}).map(({ band, ...i }) => ({ ...i, ...band, name: `Fault ${i.ruleId}`, description: `${i.ruleId} seen`, correction: `fix ${i.ruleId}`, evidence_timestamp_ms: 0 }));
// A strength's name always belongs to one category, as in the rule files.
const strengthArb = fc.constantFrom(
  { category: 'range_of_motion', name: 'Full depth' }, { category: 'posture', name: 'Upright torso' },
  { category: 'tempo', name: 'Controlled tempo' }, { category: 'stability', name: 'Heels grounded' },
).map((s) => ({ ...s, description: `${s.name}.` }));
const repArb = fc.record({
  valid: fc.boolean(),
  issues: fc.array(issueArb, { maxLength: 3 }),
  strengths: fc.array(strengthArb, { maxLength: 4 }),
  durationS: fc.double({ min: 0.5, max: 4, noNaN: true }),
}).map((r): JudgedRep => ({ startMs: 0, endMs: r.durationS * 1000, valid: r.valid, durationS: r.durationS, issues: r.issues, strengths: consistentStrengths(r.issues, r.strengths) }));

test('any set of judged reps gives a result that tells one story', () => {
  const def = exerciseDef('squat')!;
  fc.assert(fc.property(fc.array(repArb, { maxLength: 8 }), fc.constantFrom('side', 'front', 'diagonal', 'unknown'), (reps, view) => {
    const result = { repetitions: toRepetitions(reps), overall_feedback: overallFeedback(reps, { def, view: view as 'side', unjudgedRules: [], personSeen: true }) };
    assert.deepEqual(storyContradictions(result), []);
  }), { numRuns: 300 });
});

test('a rep faulted in a category keeps no strength in it (a shallow rep is not praised for its range)', () => {
  const kept = consistentStrengths(
    [{ category: 'range_of_motion' }],
    [{ category: 'range_of_motion', name: 'Full range of motion', description: '' }, { category: 'posture', name: 'Upright torso', description: '' }],
  );
  assert.deepEqual(kept.map((s) => s.name), ['Upright torso']);
});

test('the contradiction finder finds what it is meant to find', () => {
  const def = exerciseDef('push-up')!;
  const reps: JudgedRep[] = [{
    startMs: 0, endMs: 1000, valid: true, durationS: 1,
    issues: [{ ruleId: 'push-up-range', category: 'range_of_motion', name: 'Shallow push-up', description: 'x', correction: 'y', severity: 'minor', impact_on_score: -5, evidence_timestamp_ms: 0 }],
    strengths: [{ category: 'range_of_motion', name: 'Full range of motion', description: 'Completed the full push-up movement.' }],
  }];
  const result = { repetitions: toRepetitions(reps), overall_feedback: overallFeedback(reps, { def, view: 'side', unjudgedRules: [], personSeen: true }) };
  assert.ok(storyContradictions(result).some((s) => s.includes('praised for "Full range of motion"')));
});

test('synthetic sets of every exercise, through the whole pipeline, tell one story', () => {
  const sets = [
    { id: 'squat', poses: series(12, 13, (t) => sideSquatter({ knee: 178 - 98 * cycle(t, 3, 1), lean: 10 + 25 * cycle(t, 3, 1) })) },
    { id: 'shallow squat', poses: series(12, 13, (t) => sideSquatter({ knee: 178 - 50 * cycle(t, 3, 1), lean: 10 + 45 * cycle(t, 3, 1) })) },
    { id: 'push-up', poses: series(12, 8, (t) => sidePushUp(170 - 90 * cycle(t, 2, 0.5))) },
    { id: 'shallow sagging push-up', poses: series(12, 8, (t) => sidePushUp(170 - 45 * cycle(t, 2, 0.5), 20)) },
  ];
  for (const { id, poses } of sets) {
    for (const def of exercises) {
      const { result } = analyzePoses(def, poses, 12);
      assert.deepEqual(storyContradictions(result), [], `${def.id} judged on a ${id}`);
    }
  }
});

// Real results: bad and good clips of each exercise people judged, through the real engine.
const clips = loadFormClips().filter((c) => c.repository !== 'shared');
const pick = ['push-up', 'squat', 'jumping-jack'].flatMap((ex) => (['bad', 'good'] as const)
  .map((form) => clips.find((c) => c.exercise === ex && c.form === form)).filter((c) => c !== undefined));

test('real results of the engine on clips people judged tell one story', { skip: !existsSync(formVideosDir) && `form clips not found at ${formVideosDir}`, timeout: 600_000 }, async () => {
  const engine = createPoseEngine();
  for (const c of pick) {
    const result = await engine.analyze({ videoPath: c.path, exerciseId: c.exercise });
    assert.deepEqual(storyContradictions(result), [], c.file);
  }
});

test('the contradiction finder also finds a "Keep:" no attempt earned, a fault named "Not checked", an impact outside its severity and a faulted rep scoring like a clean one', () => {
  const def = exerciseDef('squat')!;
  const depth = def.rules.find((r) => r.id === 'squat-depth')!;
  const issue = { ruleId: depth.id, category: depth.category, name: depth.name, description: 'x', correction: 'y', severity: 'moderate', impact_on_score: -10, evidence_timestamp_ms: 0 };
  const clean: JudgedRep = { startMs: 0, endMs: 1000, valid: true, durationS: 1, issues: [], strengths: [] };
  const result = (reps: JudgedRep[]) => ({ repetitions: toRepetitions(reps), overall_feedback: overallFeedback(reps, { def, view: 'side', unjudgedRules: [], personSeen: true }) });
  const has = (r: ReturnType<typeof result>, re: RegExp) => assert.ok(storyContradictions(r, def).some((s) => re.test(s)), `${re} in ${JSON.stringify(storyContradictions(r, def))}`);
  const keep = result([clean]);
  keep.overall_feedback.key_improvement_areas[0] = { ...keep.overall_feedback.key_improvement_areas[0]!, name: 'Keep: full depth' };
  has(keep, /keeps what no attempt was judged to have/);
  const named = result([{ ...clean, issues: [issue] }]);
  named.overall_feedback.key_improvement_areas[1] = { ...named.overall_feedback.key_improvement_areas[1]!, name: `Not checked: ${depth.name.toLowerCase()}` };
  has(named, /which an area says was not checked/);
  has(result([{ ...clean, issues: [{ ...issue, impact_on_score: -5 }] }]), /is moderate with impact -5/);
  const scored = result([{ ...clean, issues: [issue] }, clean]);
  scored.repetitions[0]!.quality_score = 100;
  has(scored, /not below every clean attempt/);
  // The counts the words give must be the reps': the summary's average, an area's "k of n".
  const counted = result([{ ...clean, issues: [issue] }, clean]);
  assert.deepEqual(storyContradictions(counted, def), []);
  counted.overall_feedback.brief_summary = counted.overall_feedback.brief_summary.replace(/average quality \d+/, 'average quality 99');
  counted.overall_feedback.key_improvement_areas[0] = { ...counted.overall_feedback.key_improvement_areas[0]!, affected_reps: [1, 2] };
  counted.repetitions[1]!.issues = [{ ...issue, impact_on_score: -10 }];
  has(counted, /summary's average quality is not the attempts'/);
  has(counted, /area "Squat depth" miscounts the attempts it lists/);
  const strong = { ...clean, strengths: [depth.strength] };
  const held = result([strong, strong]);
  assert.equal(held.overall_feedback.strengths.length, 1);
  held.overall_feedback.strengths[0] = held.overall_feedback.strengths[0]!.replace('(2 of 2', '(1 of 2');
  has(held, /set strength ".*" miscounts the reps that held it \(2 of 2\)/);
});

test('a person who turns mid-set: a rule judged on the side-on reps is not called "Not checked" by the clip\'s front view', () => {
  // Four squats facing the camera, then two side-on: the clip is named front, whose view cannot
  // show "Squat too deep" or "Knees past the toes", but the side-on reps were judged (and passed)
  // by both. Before, the areas said both were not assessed while those reps were praised for them.
  const def = exerciseDef('squat')!;
  const poses = series(12, 24, (t) => (t < 16 ? frontSquatter(1.1 * cycle(t, 3, 1)) : sideSquatter({ knee: 178 - 130 * cycle(t, 3, 1), lean: 10 + 25 * cycle(t, 3, 1) })));
  const { result, view } = analyzePoses(def, poses, 12);
  assert.equal(view, 'front');
  assert.ok(result.repetitions.slice(4).every((r) => r.strengths.some((s) => s.name === 'Controlled depth')), 'the side-on reps were judged for depth');
  assert.deepEqual(storyContradictions(result, def), []);
  assert.ok(!result.overall_feedback.key_improvement_areas.some((a) => a.name === 'Not checked: squat too deep'));
});

test('severity and score follow the excess: the finder catches a rep further past a limit that loses less, is less severe, or is faulted inside it', () => {
  const def = exerciseDef('push-up')!;
  const hips = def.rules.find((r) => r.id === 'push-up-hips')!;
  const view = (margin: number) => {
    const v = { frames: [] } as unknown as RepView;
    pastLimit(v, hips.id, margin, 1);
    return v;
  };
  const rep = (severity: string, impact: number): JudgedRep => ({
    startMs: 0, endMs: 1000, valid: true, durationS: 1, strengths: [],
    issues: [{ ruleId: hips.id, category: hips.category, name: hips.name, description: 'x', correction: 'y', severity, impact_on_score: impact, evidence_timestamp_ms: 0 }],
  });
  const check = (reps: JudgedRep[], margins: number[]) => {
    const result = { repetitions: toRepetitions(reps), overall_feedback: overallFeedback(reps, { def, view: 'side', unjudgedRules: [], personSeen: true }) };
    return excessContradictions(result, def, margins.map(view));
  };
  assert.deepEqual(check([rep('minor', -6), rep('moderate', -12)], [0.3, 1.2]), []);
  assert.deepEqual(check([rep('minor', -6), rep('minor', -6)], [0.3, 0.5]), [], 'equal losses after rounding are no contradiction');
  assert.match(check([rep('minor', -8), rep('minor', -6)], [0.3, 0.5]).join('\n'), /attempt 2 went further past "Hips sagging or piking" \(0.50 bands\) than attempt 1 \(0.30\) but loses 6 points against 8/);
  assert.match(check([rep('moderate', -10), rep('minor', -9)], [1.0, 1.1]).join('\n'), /attempt 2 went further .* but is minor against moderate/);
  assert.match(check([rep('minor', -5)], [-0.2]).join('\n'), /attempt 1 carries "Hips sagging or piking" 0.20 bands inside the limit/);
});
