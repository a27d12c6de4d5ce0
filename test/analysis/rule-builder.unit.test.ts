// rules/common.ts `rule()`: a rule's id is written once, and its check records the rep's margin past
// the limit under that id (near-limit.ts and set-relative.ts read it back by the rule's id).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RepView } from '../../src/analysis/exercise.js';
import { marginOf, renamed, rule, type RuleSpec } from '../../src/analysis/rules/common.js';
import { bicepCurl } from '../../src/analysis/rules/bicep-curl.js';
import { hammerCurl } from '../../src/analysis/rules/hammer-curl.js';

const repOf = (): RepView => ({ frames: [], peak: 0, peakProgress: 1, valid: true, durationS: 1, view: 'side' });

/** The same rule body under two ids: what a copied rule that forgot to change its id would be. */
function twins(excess: number): [ReturnType<typeof rule>, ReturnType<typeof rule>] {
  const spec = (id: string): RuleSpec => ({
    id, category: 'posture', name: id, correction: 'c', views: ['side'],
    check(rep, judge) {
      const past = judge.verdict(excess, 0.5, 1);
      return past && { ...past, evidence: rep.peak, description: 'past' };
    },
    strength: { category: 'posture', name: 'ok', description: 'ok' },
  });
  return [rule(spec('twin-a')), rule(spec('twin-b'))];
}

test('a rule built with rule() records its margin under its own id, not under a rule with the same body', () => {
  const [a, b] = twins(0.75);
  const ra = repOf(), rb = repOf();
  const fault = a.check(ra);
  assert.equal(fault?.severity, 'moderate');
  assert.equal(marginOf(ra, 'twin-a'), 1.5);
  assert.ok(Number.isNaN(marginOf(ra, 'twin-b')), 'checking twin-a recorded nothing under twin-b');
  b.check(rb);
  assert.equal(marginOf(rb, 'twin-b'), 1.5);
  assert.ok(Number.isNaN(marginOf(rb, 'twin-a')), 'checking twin-b recorded nothing under twin-a');
});

test('a pass records its margin too, and pastLimit divides by the unit it is given', () => {
  const [a] = twins(-0.25);
  const rep = repOf();
  assert.equal(a.check(rep), null);
  assert.equal(marginOf(rep, 'twin-a'), -0.5);
  const hips = rule({
    id: 'two-readings', category: 'alignment', name: 'n', correction: 'c', views: ['side'],
    check(r, judge) { return judge.pastLimit(3, 2) > 0 ? { severity: 'minor', impact: -5, evidence: r.peak, description: 'd' } : null; },
    strength: { category: 'alignment', name: 'ok', description: 'ok' },
  });
  const r2 = repOf();
  assert.equal(hips.check(r2)?.severity, 'minor');
  assert.equal(marginOf(r2, 'two-readings'), 1.5);
});

test('rule() keeps the rule\'s fields and their order, with check(rep) as the public signature', () => {
  const [a] = twins(0);
  assert.deepEqual(Object.keys(a), ['id', 'category', 'name', 'correction', 'views', 'check', 'strength']);
  assert.equal(a.check.length, 1);
});

test('renamed() rebinds a built rule to its new id: the copy records its margins under its own id', () => {
  const [a] = twins(0.75);
  const copy = renamed(a, 'twin-copy');
  const rep = repOf();
  assert.equal(copy.id, 'twin-copy');
  assert.equal(copy.check(rep)?.severity, 'moderate');
  assert.equal(marginOf(rep, 'twin-copy'), 1.5);
  assert.ok(Number.isNaN(marginOf(rep, 'twin-a')), 'the copy recorded nothing under the rule it came from');
});

test('every hammer-curl rule records its margins under a hammer-curl id (the catalog reuses the curl as data)', () => {
  for (const r of hammerCurl.rules) assert.match(r.id, /^hammer-curl-/);
  const rep = repOf();
  for (const r of hammerCurl.rules) r.check(rep);
  for (const r of bicepCurl.rules) assert.ok(Number.isNaN(marginOf(rep, r.id)), `${r.id} recorded by a hammer-curl rule`);
});
