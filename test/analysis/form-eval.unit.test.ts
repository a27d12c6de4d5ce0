// The form evaluation's own arithmetic and its never-tuned split: the split must be what the
// documented rule picks (so nobody can quietly move a clip between the halves), and the AUC and
// balanced accuracy must be the textbook ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { auc, flaggedAt, formFigures, formHoldout, goodHeadroom, leaveOneSourceOut, leaveOneSourceOutAuc, loadFormClips, minQualityAt, nearLimitInSe, pickFormHoldout, ruleSeparation, sourceSpread, verdictFlips, type FormRow } from '../../bench/form-eval.js';
import { COMFORT_BANDS, pointsFor } from '../../src/analysis/rules/near-limit.js';
import { formVideosDir } from '../../bench/shared-videos.js';

const root = join(import.meta.dirname, '..', '..');

test('AUC: perfect, inverted, and ties counting half', () => {
  assert.equal(auc([3, 4], [1, 2]), 1);
  assert.equal(auc([1], [2]), 0);
  assert.equal(auc([1, 1], [1]), 0.5);
  assert.equal(auc([2, 0], [1]), 0.5);
  assert.ok(Number.isNaN(auc([], [1])));
});

test('balanced accuracy is the mean of the hit rate on bad clips and the pass rate on good ones', () => {
  const row = (form: 'good' | 'bad', flagged: boolean, minQuality: number): FormRow => ({
    file: 'x', exercise: 'squat', form, fault: null, view: 'side', attempts: 1, valid: 1, flagged, minQuality, issues: {}, contradictions: 0,
  });
  const f = formFigures([row('bad', true, 80), row('bad', false, 100), row('good', false, 100), row('good', false, 100), row('good', true, 90), row('good', false, 100)]);
  assert.equal(f.badFlagged, 1);
  assert.equal(f.goodFlagged, 1);
  assert.equal(f.balancedAccuracy, (1 / 2 + 3 / 4) / 2);
  // bad scores 20, 0; good 0, 0, 10, 0: 20 beats all 4; 0 ties three and loses to one.
  assert.equal(f.auc, (4 + 1.5) / 8);
});

test('the committed form holdout is exactly what its seeded rule picks', { skip: !existsSync(formVideosDir) && `no form clips at ${formVideosDir}` }, () => {
  const count = new Set((JSON.parse(readFileSync(join(root, 'bench', 'holdout.json'), 'utf8')) as { clips: string[] }).clips);
  const clips = loadFormClips();
  assert.deepEqual(formHoldout.clips, pickFormHoldout(clips, count, formHoldout.seed));
  // About a third of every group of two or more.
  assert.ok(formHoldout.clips.length >= clips.length / 4 && formHoldout.clips.length <= clips.length / 2.5);
});

test('leave one source out: the strictness fitted on the other sources judges the held-out one', () => {
  // One bad and one good clip per source; `bad` and `good` are the largest margin past a limit
  // (moderate bands) on the clip's one rep, faulted when positive.
  const pair = (repository: string, bad: number, good: number, exercise = 'squat'): FormRow[] => [['bad', bad], ['good', good]].map(([form, m]) => ({
    file: `${repository}-${form}`, exercise, form: form as 'good' | 'bad', fault: null, repository, view: 'side', attempts: 1, valid: 1,
    flagged: (m as number) > 0, minQuality: (m as number) > 0 ? 90 : 100, issues: {}, contradictions: 0,
    reps: [{ margins: { 'squat-depth': m as number }, faulted: (m as number) > 0 ? ['squat-depth'] : [], other: false }],
  }));
  // Sources a, b and d have good clips that just cross the limit: looser limits (+0.25) serve them.
  // Source c's bad clip crosses it only just, so what the others chose misses it there.
  // Push-up sources e and f ask for stricter limits (-1); they neither set nor follow the squats'.
  const rows = [...pair('a', 1.5, 0.1), ...pair('b', 2, 0.2), ...pair('c', 0.2, -1), ...pair('d', 1, 0.15),
    ...pair('e', -0.5, -2, 'push-up'), ...pair('f', -0.8, -3, 'push-up'), ...pair('g', 0.5, -1, 'lunge')];
  assert.equal(flaggedAt(rows[1]!, 0), true);
  assert.equal(flaggedAt(rows[1]!, 0.25), false);
  assert.equal(flaggedAt(rows[5]!, -1.5), true, 'stricter limits fault a rep that passed');
  const l = leaveOneSourceOut(rows);
  assert.deepEqual(l.map((x) => [x.source, x.shift, x.ba, x.baAsIs]), [
    ['a squat', 0.25, 1, 0.5], ['b squat', 0.25, 1, 0.5], ['c squat', 0.25, 0.5, 1], ['d squat', 0.25, 1, 0.5],
    ['e push-up', -1, 1, 0.5], ['f push-up', -1, 1, 0.5], ['g lunge', 0, 1, 1],
  ]);
  // Each source once: the spread shows the source the pooled figure hides.
  const s = sourceSpread(rows);
  assert.equal(s.ba.min, 0.5);
  assert.equal(s.ba.max, 1);
});

test('rule separation: each rule\'s largest margin ranks bad above good per source; a rule that never measured a source says nothing there', () => {
  // Two sources, two clips each; depth ranks bad above good on both, lean on one and inverted on the other.
  const row = (repository: string, form: 'good' | 'bad', margins: Record<string, number>[]): FormRow => ({
    file: `${repository}-${form}`, exercise: 'squat', form, fault: null, repository, view: 'side', attempts: margins.length, valid: margins.length,
    flagged: false, minQuality: 100, issues: {}, contradictions: 0, reps: margins.map((m) => ({ margins: m, faulted: [], other: false })),
  });
  const rows = [
    row('a', 'bad', [{ 'squat-depth': -2, 'squat-torso-lean': 0.5 }, { 'squat-depth': 0.4 }]), row('a', 'good', [{ 'squat-depth': -0.5, 'squat-torso-lean': -1 }]),
    row('b', 'bad', [{ 'squat-depth': 1, 'squat-torso-lean': -3 }]), row('b', 'good', [{ 'squat-depth': -1, 'squat-torso-lean': -0.2 }]),
    row('c', 'bad', [{ 'squat-depth': 1 }]), row('c', 'good', [{ 'squat-depth': 2 }]),
  ];
  const s = ruleSeparation(rows.slice(0, 4));
  assert.deepEqual(s.map((r) => [r.rule, r.bySource.map((b) => [b.source, b.auc]), r.min]), [
    ['squat-depth', [['a squat', 1], ['b squat', 1]], 1],
    ['squat-torso-lean', [['a squat', 1], ['b squat', 0]], 0],
  ]);
  // A source where the rule never measured a clip is left out, not counted as chance.
  const withC = ruleSeparation(rows);
  assert.deepEqual(withC.find((r) => r.rule === 'squat-torso-lean')!.bySource.map((b) => b.source), ['a squat', 'b squat']);
  assert.equal(withC.find((r) => r.rule === 'squat-depth')!.min, 0);
  // The good clips' headroom: the largest margin of a good clip per source and rule, bad clips and
  // sources the rule never measured left out; a source of good clips only counts too.
  const h = goodHeadroom([...rows, row('d', 'good', [{ 'squat-depth': -0.3 }, { 'squat-depth': -1.5 }])]);
  assert.deepEqual(h.map((r) => [r.rule, r.bySource.map((b) => [b.source, b.closest, b.clips])]), [
    ['squat-depth', [['a squat', -0.5, 1], ['b squat', -1, 1], ['c squat', 2, 1], ['d squat', -0.3, 1]]],
    ['squat-torso-lean', [['a squat', -1, 1], ['b squat', -0.2, 1]]],
  ]);
});

test('leave one source out, for the ranking: the room scale fitted on the other sources scores the held-out one, pooled too', () => {
  // Clean one-rep clips: `ms` are the rep's margins (moderate bands) on the rules it passed.
  const row = (repository: string, form: 'good' | 'bad', ms: number[]): FormRow => {
    const margins = Object.fromEntries(ms.map((m, i) => [`rule-${i}`, m]));
    const r: FormRow = {
      file: `${repository}-${form}-${ms.join(',')}`, exercise: 'squat', form, fault: null, repository, view: 'side', attempts: 1, valid: 1,
      flagged: false, minQuality: 100, issues: {}, contradictions: 0, reps: [{ margins, faulted: [], other: false, impacts: 0 }],
    };
    return { ...r, minQuality: minQualityAt(r, COMFORT_BANDS) };
  };
  // Re-scored exactly as the engine scores: 4 points at the limit, e^-1 of them COMFORT_BANDS inside.
  assert.equal(row('a', 'good', [0]).minQuality, 96);
  assert.equal(row('a', 'good', [-COMFORT_BANDS]).minQuality, 100 - pointsFor([-COMFORT_BANDS]));
  assert.equal(100 - pointsFor([-COMFORT_BANDS]), 98.5);
  assert.equal(minQualityAt(row('a', 'good', [-3]), 4), 100 - pointsFor([-3], 4));
  // One limit close against two further inside: which ranks lower depends on the scale. a: its bad
  // clip 1 band inside one limit, its good one 2 inside two: ranked at scales up to 1.5, tied at
  // 2. c likewise up to 2. b: its bad clip 3 inside three limits, its good one 2 inside one: ranked
  // from a scale of 1. Held out, a gets the engine's 2 (b and c agree from 1 to 2) and ties: a fold
  // can fail; b and c get 1.5.
  const rows = [row('a', 'bad', [-1]), row('a', 'good', [-2, -2]), row('b', 'bad', [-3, -3, -3]), row('b', 'good', [-2]),
    row('c', 'bad', [-0.5]), row('c', 'good', [-1.5, -1.5])];
  const l = leaveOneSourceOutAuc(rows);
  assert.deepEqual(l.folds.map((f) => [f.source, f.bands, f.auc, f.aucAsIs]), [
    ['a squat', 2, 0.5, 0.5], ['b squat', 1.5, 1, 1], ['c squat', 1.5, 1, 1],
  ]);
  const p = pointsFor;
  assert.equal(l.pooledAsIs, auc([p([-1]), p([-3, -3, -3]), p([-0.5])], [p([-2, -2]), p([-2]), p([-1.5, -1.5])]));
  assert.equal(l.pooled, auc([p([-1]), p([-3, -3, -3], 1.5), p([-0.5], 1.5)], [p([-2, -2]), p([-2], 1.5), p([-1.5, -1.5], 1.5)]));
});

test('verdict flips: a variant\'s verdicts and issues against the clips as filmed, by issue', () => {
  const row = (file: string, form: 'good' | 'bad', issues: Record<string, number>, minQuality = 100): FormRow => ({
    file, exercise: 'push-up', form, fault: null, view: 'side', attempts: 2, valid: 2, flagged: Object.keys(issues).length > 0, minQuality, issues, contradictions: 0,
  });
  const filmed = [row('a', 'good', {}), row('b', 'bad', { 'Shallow push-up': 2 }, 80), row('c', 'bad', { 'Head dropping': 1 }, 90), row('d', 'good', {})];
  const variant = [row('a', 'good', { 'Shallow push-up': 1 }, 90), row('b', 'bad', { 'Shallow push-up': 1, 'Head dropping': 1 }, 84), row('c', 'bad', { 'Head dropping': 1 }, 90), row('d', 'good', {}), row('e', 'good', {})];
  const f = verdictFlips('pose:x', variant, new Map(filmed.map((r) => [r.file, r])));
  // 'e' was not judged as filmed: left out.
  assert.equal(f.clips, 4);
  assert.equal(f.flagChanged, 1, 'a: clean as filmed, flagged as the variant');
  assert.equal(f.rulesChanged, 2, 'a gained Shallow; b gained Head dropping (its verdict stayed)');
  assert.equal(f.repIssuesChanged, 1 + 1 + 1, 'a +1 shallow, b -1 shallow +1 head');
  assert.equal(f.minQualityChange, (10 + 4) / 4);
  assert.deepEqual(f.byRule, [{ rule: 'push-up: Head dropping', gained: 1, lost: 0 }, { rule: 'push-up: Shallow push-up', gained: 1, lost: 0 }]);
  assert.deepEqual(f.moved, [{ file: 'a', gained: ['Shallow push-up'], lost: [] }, { file: 'b', gained: ['Head dropping'], lost: [] }]);
  assert.equal(f.figures.goodFlagged, 1);
  // The clips as filmed against themselves: nothing moves.
  const same = verdictFlips('none', filmed, new Map(filmed.map((r) => [r.file, r])));
  assert.deepEqual([same.flagChanged, same.rulesChanged, same.repIssuesChanged, same.byRule.length], [0, 0, 0, 0]);
});

test('readings against their standard error: faults within one, past it, and passes within one, by good and bad clips', () => {
  const row = (form: 'good' | 'bad', reps: { m: number; u: number }[]): FormRow => ({
    file: 'x', exercise: 'push-up', form, fault: null, view: 'side', attempts: reps.length, valid: reps.length, flagged: reps.some((r) => r.m > 0),
    minQuality: 100, issues: {}, contradictions: 0,
    reps: reps.map(({ m, u }) => ({ margins: { 'push-up-hips': m }, faulted: m > 0 ? ['push-up-hips'] : [], other: false, uncertain: { 'push-up-hips': u } })),
  });
  const [hips] = nearLimitInSe([
    row('good', [{ m: 0.05, u: 0.1 }, { m: -0.05, u: 0.1 }, { m: -0.5, u: 0.1 }]),
    row('bad', [{ m: 0.3, u: 0.1 }, { m: 0.1, u: 0.1 }, { m: 2, u: 0.4 }]),
  ]);
  assert.deepEqual(hips!.good, { past: 1, withinOne: 1, passWithinOne: 1 });
  assert.deepEqual(hips!.bad, { past: 3, withinOne: 1, passWithinOne: 0 });
  assert.equal(hips!.medianSe, 0.1);
});
