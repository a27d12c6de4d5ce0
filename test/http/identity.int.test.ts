// SPEC "GET /v1/identity", "GET /v1/exercises" and the usage rows of "Identity" and "Limits".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideKey } from '../../src/commands/keys.js';
import { fixedEngine, until } from '../support/engines.js';
import { startHarness } from '../support/harness.js';

test('GET /v1/identity: partner_id, partner_name, status active and usage for capped, uncapped and zero keys', async (t) => {
  const h = await startHarness(t);
  const capped = await h.createKey({ limit: 10, partnerName: 'Acme Fitness' });
  const res = await h.request('GET', '/v1/identity', { key: capped.apiKey });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { partner_id: capped.partnerId, partner_name: 'Acme Fitness', status: 'active', usage: { limit: 10, used: 0, remaining: 10 } });
  const uncapped = await h.createKey();
  assert.deepEqual((await h.request('GET', '/v1/identity', { key: uncapped.apiKey })).body.usage, { limit: null, used: 0, remaining: null });
  const zero = await h.createKey({ limit: 0 });
  assert.deepEqual((await h.request('GET', '/v1/identity', { key: zero.apiKey })).body.usage, { limit: 0, used: 0, remaining: 0 });
});

test('Limits 2-3: live jobs hold a unit (used + remaining < limit in flight); completed jobs count in used', async (t) => {
  const h = await startHarness(t);
  const { apiKey, keyId } = await h.createKey({ limit: 3 });
  for (let i = 0; i < 2; i++) {
    await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: 'squat' } });
  }
  assert.deepEqual((await h.request('GET', '/v1/identity', { key: apiKey })).body.usage, { limit: 3, used: 0, remaining: 1 });
  const now = new Date().toISOString();
  await h.svc.ledger.handle(keyId, (s) => decideKey({ type: 'SetLimit', keyId, limit: 1, now }, s));
  assert.deepEqual((await h.request('GET', '/v1/identity', { key: apiKey })).body.usage, { limit: 1, used: 0, remaining: 0 }, 'remaining never goes negative');
  await h.svc.ledger.handle(keyId, (s) => decideKey({ type: 'SetLimit', keyId, limit: null, now }, s));
  assert.deepEqual((await h.request('GET', '/v1/identity', { key: apiKey })).body.usage, { limit: null, used: 0, remaining: null }, 'same shape uncapped');
});

test('Limits 2: completed and failed jobs count in used once the engine ran', async (t) => {
  const h = await startHarness(t, { engine: fixedEngine() });
  const { apiKey } = await h.createKey({ limit: 4 });
  const job = (await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: 'push-up' } })).body;
  await until(async () => ((await h.request('GET', `/v1/jobs/${job.job_id}`, { key: apiKey })).body.status === 'completed' ? true : undefined));
  assert.deepEqual((await h.request('GET', '/v1/identity', { key: apiKey })).body.usage, { limit: 4, used: 1, remaining: 3 });
});

test('GET /v1/exercises: the full catalog, each with exercise_id, name and description; every listed id is accepted', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const res = await h.request('GET', '/v1/exercises', { key: apiKey });
  assert.equal(res.status, 200);
  const ids = res.body.exercises.map((e: { exercise_id: string }) => e.exercise_id);
  for (const id of ['squat', 'push-up', 'lunge', 'side-lunge', 'bicep-curl', 'shoulder-press', 'jumping-jack', 'glute-bridge', 'sit-up',
    'deadlift', 'lateral-raise', 'front-raise']) {
    assert.ok(ids.includes(id), id);
  }
  for (const e of res.body.exercises) {
    assert.deepEqual(Object.keys(e).sort(), ['description', 'exercise_id', 'name']);
    const job = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: e.exercise_id } });
    assert.equal(job.status, 201, e.exercise_id);
  }
});

test('GET /v1/exercises and POST /v1/jobs: 500 catalog_error when the catalog cannot be read', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const handle = await h.upload(apiKey);
  h.svc.catalog = () => {
    throw new Error('catalog source unreadable');
  };
  const list = await h.request('GET', '/v1/exercises', { key: apiKey });
  assert.equal(list.status, 500);
  assert.equal(list.body.error.code, 'catalog_error');
  const submit = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
  assert.equal(submit.status, 500);
  assert.equal(submit.body.error.code, 'catalog_error');
  assert.doesNotMatch(list.text, /unreadable/, '5xx never leak internals');
});
