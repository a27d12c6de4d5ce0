// SPEC "POST /v1/jobs", "GET /v1/jobs", "GET /v1/jobs/{job_id}" and their errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decideKey } from '../../src/commands/keys.js';
import { ProviderUnavailableError, VideoProcessingError } from '../../src/analysis/engine.js';
import { failingEngine, fixedEngine, sampleResult, until } from '../support/engines.js';
import { startHarness, type Harness } from '../support/harness.js';
import { runAdmin } from '../cli/run.js';

const submit = (h: Harness, key: string, body: unknown) => h.request('POST', '/v1/jobs', { key, body });
const usage = async (h: Harness, key: string) => (await h.request('GET', '/v1/identity', { key })).body.usage;
const terminal = (h: Harness, key: string, jobId: string) =>
  until(async () => {
    const res = await h.request('GET', `/v1/jobs/${jobId}`, { key });
    return ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
  });

test('POST /v1/jobs: 201 with a UUID job_id and status; GET shows only job_id and status while queued', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const handle = await h.upload(apiKey);
  const res = await submit(h, apiKey, { upload_handle: handle, exercise_id: 'squat' });
  assert.equal(res.status, 201);
  assert.match(res.body.job_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.equal(res.body.status, 'queued');
  assert.deepEqual((await h.request('GET', `/v1/jobs/${res.body.job_id}`, { key: apiKey })).body, { job_id: res.body.job_id, status: 'queued' });
});

test('GET /v1/jobs/{job_id}: a queued job polled again and again shows a cancel by another process on the very next poll (issue 22: rows are reused only while the read models are unchanged)', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const jobId = (await submit(h, apiKey, { upload_handle: await h.upload(apiKey), exercise_id: 'squat' })).body.job_id;
  const poll = async () => (await h.request('GET', `/v1/jobs/${jobId}`, { key: apiKey })).body.status;
  for (let i = 0; i < 3; i++) assert.equal(await poll(), 'queued');
  const cancel = await runAdmin(h.config.dataDir, 'jobs', 'cancel', jobId);
  assert.equal(cancel.code, 0, cancel.stderr);
  assert.equal(await poll(), 'cancelled');
});

test('Rule 1: the same handle with the same exercise_id returns 201 with the original job_id and holds nothing new', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey({ limit: 1 });
  const handle = await h.upload(apiKey);
  const first = await submit(h, apiKey, { upload_handle: handle, exercise_id: 'squat' });
  const again = await submit(h, apiKey, { upload_handle: handle, exercise_id: 'squat' });
  assert.equal(again.status, 201);
  assert.equal(again.body.job_id, first.body.job_id);
  assert.deepEqual(await usage(h, apiKey), { limit: 1, used: 0, remaining: 0 });
  assert.equal((await h.request('GET', '/v1/jobs', { key: apiKey })).body.jobs.length, 1, 'no second job');
});

test('Rule 2: the same handle with a different exercise_id is 409 upload_already_claimed', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const handle = await h.upload(apiKey);
  await submit(h, apiKey, { upload_handle: handle, exercise_id: 'squat' });
  const res = await submit(h, apiKey, { upload_handle: handle, exercise_id: 'lunge' });
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, 'upload_already_claimed');
});

test('Rule 3: 429 usage_limit_exceeded when the budget is used up; nothing is created or consumed', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey({ limit: 1 });
  assert.equal((await submit(h, apiKey, { upload_handle: await h.upload(apiKey), exercise_id: 'squat' })).status, 201);
  const spare = await h.upload(apiKey);
  const res = await submit(h, apiKey, { upload_handle: spare, exercise_id: 'squat' });
  assert.equal(res.status, 429);
  assert.equal(res.body.error.code, 'usage_limit_exceeded');
  assert.deepEqual(await usage(h, apiKey), { limit: 1, used: 0, remaining: 0 });
  assert.equal((await h.request('GET', `/v1/uploads/${spare}`, { key: apiKey })).body.state, 'uploaded', 'the spot is not claimed');
  assert.equal((await h.request('GET', '/v1/jobs', { key: apiKey })).body.jobs.length, 1);
});

test('Rule 3: a key capped at zero is refused; an uncapped key never gets usage_limit_exceeded', async (t) => {
  const h = await startHarness(t);
  const zero = await h.createKey({ limit: 0 });
  assert.deepEqual(await usage(h, zero.apiKey), { limit: 0, used: 0, remaining: 0 });
  const refused = await submit(h, zero.apiKey, { upload_handle: await h.upload(zero.apiKey), exercise_id: 'squat' });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, 'usage_limit_exceeded');
  const open = await h.createKey();
  for (let i = 0; i < 5; i++) assert.equal((await submit(h, open.apiKey, { upload_handle: await h.upload(open.apiKey), exercise_id: 'squat' })).status, 201);
  assert.deepEqual(await usage(h, open.apiKey), { limit: null, used: 0, remaining: null });
});

test('Rule 4: a spot with no bytes yet is 409 upload_incomplete', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const handle = (await h.request('POST', '/v1/uploads', { key: apiKey })).body.handle;
  const res = await submit(h, apiKey, { upload_handle: handle, exercise_id: 'squat' });
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, 'upload_incomplete');
  assert.deepEqual(await usage(h, apiKey), { limit: null, used: 0, remaining: null });
});

test('Rule 5: a spot past its window is 410 upload_spot_expired', async (t) => {
  let now = Date.now();
  const h = await startHarness(t, { clock: () => new Date(now), env: { UPLOAD_SPOT_TTL_SECONDS: '60' } });
  const { apiKey } = await h.createKey();
  const handle = await h.upload(apiKey);
  now += 60_000;
  const res = await submit(h, apiKey, { upload_handle: handle, exercise_id: 'squat' });
  assert.equal(res.status, 410);
  assert.equal(res.body.error.code, 'upload_spot_expired');
});

test('Rule 6: an unknown or foreign handle is 404 upload_not_found', async (t) => {
  const h = await startHarness(t);
  const mine = await h.createKey();
  const theirs = await h.createKey();
  const foreign = await h.upload(theirs.apiKey);
  for (const handle of ['up_unknown', foreign]) {
    const res = await submit(h, mine.apiKey, { upload_handle: handle, exercise_id: 'squat' });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'upload_not_found');
  }
});

test('Rule 7: an exercise id not in the catalog is 404 unknown_exercise', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const res = await submit(h, apiKey, { upload_handle: await h.upload(apiKey), exercise_id: 'underwater-basket-weaving' });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.code, 'unknown_exercise');
});

test('Rule 8: a body that is not JSON, not an object, missing a field, or the legacy video_url shape is 400 malformed_request', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const handle = await h.upload(apiKey);
  const bodies: Record<string, string | undefined> = {
    'invalid JSON': '{"upload_handle": ',
    'empty body': '',
    array: '[]',
    string: '"squat"',
    'missing upload_handle': '{"exercise_id":"squat"}',
    'missing exercise_id': `{"upload_handle":"${handle}"}`,
    'empty upload_handle': '{"upload_handle":"","exercise_id":"squat"}',
    'number for a string': '{"upload_handle":42,"exercise_id":"squat"}',
    'legacy video_url': '{"video_url":"https://example.com/v.mp4","exercise_id":"squat"}',
  };
  for (const [name, raw] of Object.entries(bodies)) {
    const res = await h.request('POST', '/v1/jobs', { key: apiKey, raw, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400, name);
    assert.equal(res.body.error.code, 'malformed_request', name);
    assert.ok(res.body.error.message.length > 0, name);
  }
  assert.equal((await h.request('GET', `/v1/uploads/${handle}`, { key: apiKey })).body.state, 'uploaded', 'nothing was claimed');
});

test('Rule 9: video retained but the job record write not confirmed is 500 internal_error; the handle stays claimable', async (t) => {
  const h = await startHarness(t, { env: { STORE_BUSY_TIMEOUT_MS: '50' } });
  const { apiKey } = await h.createKey({ limit: 1 });
  const handle = await h.upload(apiKey);
  const locker = new Database(join(h.config.dataDir, 'ledger.db'));
  locker.exec('BEGIN IMMEDIATE');
  let res;
  try {
    res = await submit(h, apiKey, { upload_handle: handle, exercise_id: 'squat' });
  } finally {
    locker.exec('ROLLBACK');
    locker.close();
  }
  assert.equal(res.status, 500);
  assert.equal(res.body.error.code, 'internal_error');
  assert.deepEqual(await usage(h, apiKey), { limit: 1, used: 0, remaining: 1 }, 'no unit held');
  assert.equal((await submit(h, apiKey, { upload_handle: handle, exercise_id: 'squat' })).status, 201);
});

test('GET /v1/jobs: lists only the caller\'s jobs as job_id and status, never a result; empty is 200 []', async (t) => {
  const h = await startHarness(t, { engine: fixedEngine() });
  const mine = await h.createKey();
  const theirs = await h.createKey();
  assert.deepEqual((await h.request('GET', '/v1/jobs', { key: mine.apiKey })).body, { jobs: [] });
  const job = (await submit(h, mine.apiKey, { upload_handle: await h.upload(mine.apiKey), exercise_id: 'squat' })).body;
  await submit(h, theirs.apiKey, { upload_handle: await h.upload(theirs.apiKey), exercise_id: 'squat' });
  await terminal(h, mine.apiKey, job.job_id);
  const list = await h.request('GET', '/v1/jobs', { key: mine.apiKey });
  assert.deepEqual(list.body, { jobs: [{ job_id: job.job_id, status: 'completed' }] });
});

test('GET /v1/jobs pages newest first with limit and next_cursor', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await submit(h, apiKey, { upload_handle: await h.upload(apiKey), exercise_id: 'squat' })).body.job_id);
  const first = (await h.request('GET', '/v1/jobs?limit=2', { key: apiKey })).body;
  assert.deepEqual(first.jobs.map((j: { job_id: string }) => j.job_id), [ids[4], ids[3]]);
  const second = (await h.request('GET', `/v1/jobs?limit=2&cursor=${first.next_cursor}`, { key: apiKey })).body;
  assert.deepEqual(second.jobs.map((j: { job_id: string }) => j.job_id), [ids[2], ids[1]]);
  const bad = await h.request('GET', '/v1/jobs?limit=lots', { key: apiKey });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, 'malformed_request');
});

test('GET /v1/jobs/{job_id}: a completed job carries the result, retrievable later; used counts it', async (t) => {
  const h = await startHarness(t, { engine: fixedEngine() });
  const { apiKey } = await h.createKey({ limit: 2 });
  const job = (await submit(h, apiKey, { upload_handle: await h.upload(apiKey), exercise_id: 'squat' })).body;
  const done = await terminal(h, apiKey, job.job_id);
  assert.deepEqual(done, { job_id: job.job_id, status: 'completed', result: sampleResult });
  assert.deepEqual(await usage(h, apiKey), { limit: 2, used: 1, remaining: 1 });
  assert.deepEqual((await h.request('GET', `/v1/jobs/${job.job_id}`, { key: apiKey })).body, done);
});

test('GET /v1/jobs/{job_id}: a completed job answered again is the same bytes; another key still gets 404 and a revoked key 401 (issue 22: the answer is held serialized)', async (t) => {
  const h = await startHarness(t, { engine: fixedEngine() });
  const owner = await h.createKey();
  const other = await h.createKey();
  const job = (await submit(h, owner.apiKey, { upload_handle: await h.upload(owner.apiKey), exercise_id: 'squat' })).body;
  await terminal(h, owner.apiKey, job.job_id);
  const first = await h.request('GET', `/v1/jobs/${job.job_id}`, { key: owner.apiKey });
  const again = await h.request('GET', `/v1/jobs/${job.job_id}`, { key: owner.apiKey });
  assert.equal(again.text, first.text);
  assert.deepEqual(again.body, { job_id: job.job_id, status: 'completed', result: sampleResult });
  for (const name of ['content-type', 'content-length', 'cache-control', 'x-content-type-options']) assert.equal(again.headers.get(name), first.headers.get(name), name);
  const foreign = await h.request('GET', `/v1/jobs/${job.job_id}`, { key: other.apiKey });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.error.code, 'job_not_found');
  await h.svc.ledger.handle(owner.keyId, (s) => decideKey({ type: 'RevokeKey', keyId: owner.keyId, now: new Date().toISOString() }, s));
  assert.equal((await h.request('GET', `/v1/jobs/${job.job_id}`, { key: owner.apiKey })).status, 401, 'revocation takes effect at once');
});

test('GET /v1/jobs/{job_id}: 404 job_not_found for a missing job and another partner\'s job', async (t) => {
  const h = await startHarness(t);
  const mine = await h.createKey();
  const theirs = await h.createKey();
  const foreign = (await submit(h, theirs.apiKey, { upload_handle: await h.upload(theirs.apiKey), exercise_id: 'squat' })).body.job_id;
  for (const id of ['00000000-0000-4000-8000-000000000000', foreign, 'not-a-uuid']) {
    const res = await h.request('GET', `/v1/jobs/${id}`, { key: mine.apiKey });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'job_not_found');
  }
});

test('failed jobs: an undecodable video is video_processing_failed, still a 200, and counts as used', async (t) => {
  const h = await startHarness(t, { engine: failingEngine(() => new VideoProcessingError('moov atom not found')) });
  const { apiKey } = await h.createKey({ limit: 3 });
  const job = (await submit(h, apiKey, { upload_handle: await h.upload(apiKey), exercise_id: 'squat' })).body;
  const failed = await terminal(h, apiKey, job.job_id);
  assert.deepEqual(failed, { job_id: job.job_id, status: 'failed', error_code: 'video_processing_failed', message: 'The video could not be processed for analysis.' });
  assert.deepEqual(await usage(h, apiKey), { limit: 3, used: 1, remaining: 2 });
});

test('failed jobs: provider faults are retried, then provider_temporarily_unavailable', async (t) => {
  const engine = failingEngine(() => new ProviderUnavailableError('model load failed'));
  const h = await startHarness(t, { engine });
  const { apiKey } = await h.createKey();
  const job = (await submit(h, apiKey, { upload_handle: await h.upload(apiKey), exercise_id: 'squat' })).body;
  const failed = await terminal(h, apiKey, job.job_id);
  assert.equal(failed.error_code, 'provider_temporarily_unavailable');
  assert.equal(failed.message, 'The analysis provider was temporarily unavailable and retries were exhausted.');
  assert.equal(engine.calls, 3, 'one try and two retries (PROVIDER_RETRIES in the harness)');
});

test('failed jobs: any other reason gives the generic message', async (t) => {
  const h = await startHarness(t, { engine: failingEngine(() => new Error('boom')) });
  const { apiKey } = await h.createKey();
  const job = (await submit(h, apiKey, { upload_handle: await h.upload(apiKey), exercise_id: 'squat' })).body;
  const failed = await terminal(h, apiKey, job.job_id);
  assert.equal(failed.message, 'The analysis job failed.');
  assert.equal(failed.error_code, 'analysis_failed');
});
