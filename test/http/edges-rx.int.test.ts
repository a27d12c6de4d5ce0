// Edges found by issue rx's outside review, over real HTTP sockets. Each test failed on the code
// before the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonical } from '../../src/http/idempotency.js';
import { startHarness } from '../support/harness.js';

/** The fingerprint's canonical JSON as it was (recursive): records made before must still match. */
function recursive(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(recursive).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${recursive((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

test('the fingerprint\'s canonical JSON is the recursive version\'s text, byte for byte, for any JSON value', () => {
  fc.assert(fc.property(fc.jsonValue(), (v) => canonical(v) === recursive(v)), { numRuns: 2000 });
  for (const v of [null, 0, -0, 1e21, 'a"b', [], {}, [[]], { b: 1, a: [1, { d: null, c: 'x' }] }, ['\u2028', { '': 1 }]]) assert.equal(canonical(v), recursive(v));
});

test('a body nested 30,000 levels deep in a field POST /v1/jobs ignores: the same 404 with and without Idempotency-Key (it was 500 internal_error with the key), and the key replays it', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const deep = `{"upload_handle":"nope","exercise_id":"squat","extra":${'['.repeat(30_000)}${']'.repeat(30_000)}}`;
  const plain = await h.request('POST', '/v1/jobs', { key: apiKey, raw: deep, headers: { 'content-type': 'application/json' } });
  assert.equal(plain.status, 404, plain.text);
  assert.equal(plain.body.error.code, 'upload_not_found');
  const keyed = await h.request('POST', '/v1/jobs', { key: apiKey, raw: deep, headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' } });
  assert.equal(keyed.status, 404, keyed.text);
  assert.deepEqual(keyed.body, plain.body);
  const again = await h.request('POST', '/v1/jobs', { key: apiKey, raw: deep, headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' } });
  assert.equal(again.status, 404);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  // The server keeps serving.
  assert.equal((await h.request('GET', '/v1/identity', { key: apiKey })).status, 200);
});
