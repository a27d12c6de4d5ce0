// SPEC "POST /v1/jobs/{job_id}/cancel" and the job state table, including the operator's cancel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cancelJob } from '../../src/commands/partner.js';
import { fixedEngine, gatedEngine, until } from '../support/engines.js';
import { startHarness, type Harness } from '../support/harness.js';

async function queuedJob(h: Harness, key: string) {
  const handle = await h.upload(key);
  return (await h.request('POST', '/v1/jobs', { key, body: { upload_handle: handle, exercise_id: 'squat' } })).body.job_id as string;
}
const cancel = (h: Harness, key: string, id: string) => h.request('POST', `/v1/jobs/${id}/cancel`, { key, raw: 'ignored', headers: { 'content-type': 'text/plain' } });
const status = async (h: Harness, key: string, id: string) => (await h.request('GET', `/v1/jobs/${id}`, { key })).body.status;
const usage = async (h: Harness, key: string) => (await h.request('GET', '/v1/identity', { key })).body.usage;

test('cancel a queued job: 200, cancelled, and the unit of the analysis limit is returned', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey({ limit: 1 });
  const id = await queuedJob(h, apiKey);
  assert.deepEqual(await usage(h, apiKey), { limit: 1, used: 0, remaining: 0 });
  const res = await cancel(h, apiKey, id);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { job_id: id, status: 'cancelled' });
  assert.deepEqual((await h.request('GET', `/v1/jobs/${id}`, { key: apiKey })).body, { job_id: id, status: 'cancelled' });
  assert.deepEqual(await usage(h, apiKey), { limit: 1, used: 0, remaining: 1 });
});

test('cancel is not idempotent: a cancelled, completed or failed job is 409 job_already_finished', async (t) => {
  const h = await startHarness(t, { engine: fixedEngine() });
  const { apiKey } = await h.createKey();
  const done = await queuedJob(h, apiKey);
  await until(async () => ((await status(h, apiKey, done)) === 'completed' ? true : undefined));
  const res = await cancel(h, apiKey, done);
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, 'job_already_finished');
  assert.equal(await status(h, apiKey, done), 'completed', 'a completed job stays completed');
});

test('cancel twice: the second is 409 job_already_finished', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const id = await queuedJob(h, apiKey);
  assert.equal((await cancel(h, apiKey, id)).status, 200);
  const again = await cancel(h, apiKey, id);
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'job_already_finished');
});

test('cancel a processing job: 409 job_already_started, and it runs to completion', async (t) => {
  const engine = gatedEngine();
  const h = await startHarness(t, { engine });
  const { apiKey } = await h.createKey({ limit: 5 });
  const id = await queuedJob(h, apiKey);
  await engine.started;
  await until(async () => ((await status(h, apiKey, id)) === 'processing' ? true : undefined));
  const res = await cancel(h, apiKey, id);
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, 'job_already_started');
  engine.release();
  await until(async () => ((await status(h, apiKey, id)) === 'completed' ? true : undefined));
  assert.deepEqual(await usage(h, apiKey), { limit: 5, used: 1, remaining: 4 });
});

test('cancel a missing or foreign job: 404 job_not_found, and the foreign job is never touched', async (t) => {
  const h = await startHarness(t);
  const mine = await h.createKey();
  const theirs = await h.createKey();
  const foreign = await queuedJob(h, theirs.apiKey);
  for (const id of [foreign, '00000000-0000-4000-8000-000000000000']) {
    const res = await cancel(h, mine.apiKey, id);
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'job_not_found');
  }
  assert.equal(await status(h, theirs.apiKey, foreign), 'queued');
});

test('operator cancel: any non-terminal job, processing included, becomes cancelled and returns its unit; never completed after', async (t) => {
  const engine = gatedEngine();
  const h = await startHarness(t, { engine });
  const { apiKey } = await h.createKey({ limit: 2 });
  const id = await queuedJob(h, apiKey);
  await engine.started;
  await until(async () => ((await status(h, apiKey, id)) === 'processing' ? true : undefined));
  assert.deepEqual(await cancelJob(h.svc, id, 'operator'), { job_id: id, status: 'cancelled' });
  engine.release();
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await status(h, apiKey, id), 'cancelled', 'a cancelled job never becomes completed');
  assert.deepEqual(await usage(h, apiKey), { limit: 2, used: 0, remaining: 2 });
});
