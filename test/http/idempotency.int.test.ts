// Idempotency-Key (issue 11) on POST /v1/uploads, POST /v1/jobs and POST /v1/jobs/{job_id}/cancel:
// the same key replays the first answer with Idempotent-Replayed: true, across service instances
// on the same store; a different request is 409 idempotency_key_reused; 24 h; retryable answers
// are not kept; without the header nothing changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ledgerStream } from '../../src/events/ledger.js';
import { startHarness, type Harness } from '../support/harness.js';
import { removeDir } from '../support/remove-dir.js';

const idem = (key: string) => ({ 'idempotency-key': key });
const mints = async (h: Harness, keyId: string) => (await h.svc.store.readStream(ledgerStream(keyId))).filter((e) => e.type === 'SpotMinted').length;

test('POST /v1/uploads: the same Idempotency-Key replays the first spot (status, body, Idempotent-Replayed: true) and mints no second spot', async (t) => {
  const h = await startHarness(t);
  const { apiKey, keyId } = await h.createKey();
  const first = await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem('mint-1') });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get('idempotent-replayed'), null, 'the first answer is not a replay');
  const again = await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem('mint-1') });
  assert.equal(again.status, 201);
  assert.equal(again.text, first.text, 'byte-for-byte the first body');
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.match(String(again.headers.get('content-type')), /^application\/json/);
  assert.equal(await mints(h, keyId), 1, 'one spot in the ledger');
  const other = await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem('mint-2') });
  assert.notEqual(other.body.handle, first.body.handle);
  const plain = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal(plain.headers.get('idempotent-replayed'), null);
  assert.equal(await mints(h, keyId), 3);
});

test('the same key from another API key is a different record (keys are per API key)', async (t) => {
  const h = await startHarness(t);
  const a = await h.createKey();
  const b = await h.createKey();
  const ra = await h.request('POST', '/v1/uploads', { key: a.apiKey, headers: idem('shared') });
  const rb = await h.request('POST', '/v1/uploads', { key: b.apiKey, headers: idem('shared') });
  assert.equal(rb.status, 201);
  assert.notEqual(rb.body.handle, ra.body.handle);
  assert.equal(rb.headers.get('idempotent-replayed'), null);
});

test('POST /v1/jobs: a replay returns the same job; the same key with a different body is 409 idempotency_key_reused; concurrent twins give one answer', async (t) => {
  const h = await startHarness(t, { env: { WORKER_CONCURRENCY: '0' } });
  const { apiKey } = await h.createKey({ limit: 5 });
  const handle = await h.upload(apiKey);
  const body = { upload_handle: handle, exercise_id: 'squat' };
  const first = await h.request('POST', '/v1/jobs', { key: apiKey, body, headers: idem('job-1') });
  assert.equal(first.status, 201);
  // Key order in the body does not matter: the same request.
  const again = await h.request('POST', '/v1/jobs', { key: apiKey, raw: JSON.stringify({ exercise_id: 'squat', upload_handle: handle }), headers: { ...idem('job-1'), 'content-type': 'application/json' } });
  assert.deepEqual([again.status, again.text, again.headers.get('idempotent-replayed')], [201, first.text, 'true']);
  const reused = await h.request('POST', '/v1/jobs', { key: apiKey, body: { ...body, exercise_id: 'lunge' }, headers: idem('job-1') });
  assert.deepEqual([reused.status, reused.body.error.code], [409, 'idempotency_key_reused']);
  const elsewhere = await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem('job-1') });
  assert.deepEqual([elsewhere.status, elsewhere.body.error.code], [409, 'idempotency_key_reused'], 'another route is another request');

  const spare = await h.upload(apiKey);
  const twins = await Promise.all([0, 1, 2].map(() => h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: spare, exercise_id: 'squat' }, headers: idem('job-2') })));
  assert.deepEqual(twins.map((r) => r.status), [201, 201, 201]);
  assert.equal(new Set(twins.map((r) => r.text)).size, 1, 'one answer for all three');
  assert.equal(twins.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 2);
  assert.deepEqual((await h.request('GET', '/v1/identity', { key: apiKey })).body.usage, { limit: 5, used: 0, remaining: 3 }, 'two jobs held, no more');
});

test('POST /v1/jobs/{job_id}/cancel: a replay answers the first 200, not job_already_finished', async (t) => {
  const h = await startHarness(t, { env: { WORKER_CONCURRENCY: '0' } });
  const { apiKey } = await h.createKey();
  const job = (await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: 'squat' } })).body;
  const first = await h.request('POST', `/v1/jobs/${job.job_id}/cancel`, { key: apiKey, headers: idem('cancel-1') });
  assert.equal(first.status, 200);
  const again = await h.request('POST', `/v1/jobs/${job.job_id}/cancel`, { key: apiKey, headers: idem('cancel-1') });
  assert.deepEqual([again.status, again.text, again.headers.get('idempotent-replayed')], [200, first.text, 'true']);
  const without = await h.request('POST', `/v1/jobs/${job.job_id}/cancel`, { key: apiKey });
  assert.deepEqual([without.status, without.body.error.code], [409, 'job_already_finished'], 'SPEC unchanged without the header');
  const terminal = await h.request('POST', `/v1/jobs/${job.job_id}/cancel`, { key: apiKey, headers: idem('cancel-2') });
  assert.equal(terminal.status, 409);
  const terminalAgain = await h.request('POST', `/v1/jobs/${job.job_id}/cancel`, { key: apiKey, headers: idem('cancel-2') });
  assert.deepEqual([terminalAgain.status, terminalAgain.text, terminalAgain.headers.get('idempotent-replayed')], [409, terminal.text, 'true'], 'a terminal 4xx is kept too');
});

test('records are shared by every service on the same DATA_DIR (another process, or after a restart)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-idem-'));
  t.after(() => removeDir(dataDir));
  const one = await startHarness(t, { dataDir });
  const { apiKey } = await one.createKey();
  const first = await one.request('POST', '/v1/uploads', { key: apiKey, headers: idem('restart') });
  const two = await startHarness(t, { dataDir });
  const again = await two.request('POST', '/v1/uploads', { key: apiKey, headers: idem('restart') });
  assert.deepEqual([again.status, again.text, again.headers.get('idempotent-replayed')], [201, first.text, 'true']);
});

test('retryable answers (429) are not kept: the same key runs again; a malformed key is 400 invalid_idempotency_key', async (t) => {
  const h = await startHarness(t, { env: { SPOTS_PER_WINDOW: '1' } });
  const { apiKey } = await h.createKey();
  await h.request('POST', '/v1/uploads', { key: apiKey });
  const limited = await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem('busy') });
  assert.equal(limited.status, 429);
  const again = await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem('busy') });
  assert.equal(again.status, 429);
  assert.equal(again.headers.get('idempotent-replayed'), null, 'ran again rather than replayed');
  for (const bad of ['x'.repeat(256), 'tab\there', 'é-not-ascii']) {
    const res = await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem(bad) });
    assert.deepEqual([res.status, res.body.error.code], [400, 'invalid_idempotency_key'], JSON.stringify(bad));
  }
});

test('after 24 hours the key is free again: a different request with it runs', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const h = await startHarness(t, { clock: () => new Date(now), env: { WORKER_CONCURRENCY: '0' } });
  const { apiKey } = await h.createKey();
  const first = await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem('daily') });
  now += 23 * 3600 * 1000;
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem('daily') })).text, first.text, 'replayed within 24 h');
  now += 2 * 3600 * 1000;
  const fresh = await h.request('POST', '/v1/uploads', { key: apiKey, headers: idem('daily') });
  assert.equal(fresh.status, 201);
  assert.notEqual(fresh.body.handle, first.body.handle);
  assert.equal(fresh.headers.get('idempotent-replayed'), null);
});
