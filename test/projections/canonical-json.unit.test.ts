// completedFields() copies a JobCompleted result's text instead of JSON.parse + JSON.stringify. The
// rebuild is only right if, whenever it answers, JSON.parse would have succeeded and given the same
// strings: checked on generated events (canonical and plain JSON.stringify forms, with the values that
// change on a round trip), on texts mutated at random, and on the cases it must leave to JSON.parse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalJson } from '../../src/events/chain.js';
import { completedFields } from '../../src/projections/canonical-json.js';

/** What the jobs projection writes from the text, or undefined where JSON.parse throws. */
function reference(text: string) {
  let d: any;
  try {
    d = JSON.parse(text);
  } catch {
    return undefined;
  }
  return d;
}

function agrees(text: string): boolean {
  const fast = completedFields(text);
  if (!fast) return false;
  const d = reference(text);
  assert.ok(d !== undefined, `accepted text JSON.parse rejects: ${text}`);
  assert.equal(fast.resultJson, JSON.stringify(d.result), text);
  assert.equal(fast.jobId, d.jobId);
  assert.equal(fast.engineVersion, d.engineVersion);
  assert.equal(fast.at, d.at);
  return true;
}

// Values a round trip can change: numbers in other forms, escapes, integer-like and duplicate keys.
const tricky = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 1e21, 1e-7, 0.000001, 123456789012345, 1234567890123456, 0.1 + 0.2, -1.5e-10, 2 ** 53),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('a"b', 'a\\b', 'line\nbreak', '\u2028', '\u00e9', '\ud83d\ude00', '\ud800', '\ufffd', ''),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, tricky, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('0', '7', '10', '__proto__', 'a')), tie('v'), { maxKeys: 4 })),
})).v;
const event = fc.record({ jobId: fc.uuid(), engineVersion: fc.string(), at: fc.constant('2026-01-01T00:00:00.000Z'), result: value });

test('on generated events, in both stored forms, the copied result is exactly what JSON.parse + JSON.stringify give', () => {
  let taken = 0;
  fc.assert(
    fc.property(event, (e) => {
      for (const text of [canonicalJson(e), JSON.stringify(e)]) if (agrees(text)) taken++;
    }),
    { numRuns: 3000 },
  );
  assert.ok(taken > 1000, `the fast path is taken for most events (${taken})`);
});

test('on texts mutated at random (bytes deleted, replaced, inserted), it answers only when JSON.parse agrees', () => {
  const base = JSON.stringify({ jobId: 'j1', result: { repetitions: [{ n: 1, score: 88.5, ok: true, issues: [] }], text: 'Sit back.', none: null }, engineVersion: 'e/1', at: 't' });
  const edit = fc.tuple(fc.nat(base.length - 1), fc.constantFrom('', ' ', '"', ',', ':', '{', '}', '[', ']', '0', '1', '.', '-', 'e', 'E', '+', '\\', 'n', 't', '\u0001'), fc.boolean());
  fc.assert(
    fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
      let text = base;
      for (const [at, ch, replace] of edits) text = text.slice(0, at) + ch + text.slice(replace ? at + 1 : at);
      agrees(text);
    }),
    { numRuns: 5000 },
  );
});

test('what it leaves to JSON.parse', () => {
  const wrap = (result: string) => `{"at":"t","engineVersion":"e","jobId":"j","result":${result}}`;
  assert.ok(agrees(wrap('{"a":[1,2.5,-3,0.000001,true,false,null,"x"],"b":{}}')));
  for (const result of [
    '{"a":1,"a":2}', // duplicate key: JSON.parse keeps the last
    '{"b":1,"1":2}', // integer-like key: JavaScript lists it first
    '{"a":1.0}', '{"a":1e3}', '{"a":-0}', '{"a":0.0000001}', '{"a":12345678901234567}', // numbers JavaScript prints otherwise
    '{"a":"\\u0041"}', '{"a":"\\n"}', // escapes
    '{"a": 1}', // whitespace
    '{"a":1,}', '{"a":01}', '{"a":tru}', '[1 2]', // not JSON
  ]) assert.equal(completedFields(wrap(result)), undefined, result);
  assert.equal(completedFields('{"at":"t","engineVersion":"e","jobId":"j","result":{},"result":{}}'), undefined);
  assert.equal(completedFields('{"at":"t","engineVersion":null,"jobId":"j","result":{}}'), undefined);
  assert.equal(completedFields(`${wrap('{}')} `), undefined);
});
