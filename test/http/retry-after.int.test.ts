// Retry-After on every 429 and 503 (issue 11), computed from the key's ledger where it can be:
// spots_per_window_exceeded -> when the oldest mint leaves the window; unclaimed_bytes_exceeded ->
// when the earliest unclaimed spot expires. RateLimit-Policy and RateLimit on POST /v1/uploads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StoreUnavailableError } from '../../src/events/store/port.js';
import { StorageUnavailableError } from '../../src/storage/port.js';
import { startHarness } from '../support/harness.js';

const T0 = Date.parse('2026-03-01T12:00:00Z');

test('spots_per_window_exceeded: Retry-After is when the oldest mint leaves the window; RateLimit headers on every mint', async (t) => {
  let now = T0;
  const h = await startHarness(t, { clock: () => new Date(now), env: { SPOTS_PER_WINDOW: '2', SPOTS_WINDOW_SECONDS: '600' } });
  const { apiKey } = await h.createKey();
  const first = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get('ratelimit-policy'), '"spots";q=2;w=600');
  assert.equal(first.headers.get('ratelimit'), '"spots";r=1;t=600');
  now += 100_000;
  const second = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal(second.headers.get('ratelimit'), '"spots";r=0;t=500', 'the oldest mint leaves in 500 s');
  now += 100_000;
  const refused = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.deepEqual([refused.status, refused.body], [429, { error: { code: 'spots_per_window_exceeded', message: 'Upload spot limit for the rolling window reached; wait for the window to roll.' } }]);
  assert.equal(refused.headers.get('retry-after'), '400');
  assert.equal(refused.headers.get('ratelimit'), '"spots";r=0;t=400');
  assert.equal(refused.headers.get('ratelimit-policy'), '"spots";q=2;w=600');
  now += 400_000;
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey })).status, 201, 'at Retry-After the mint succeeds');
});

test('unclaimed_bytes_exceeded: Retry-After is when the earliest spot holding unclaimed bytes expires', async (t) => {
  let now = T0;
  const h = await startHarness(t, { clock: () => new Date(now), env: { UNCLAIMED_BYTES_CAP: '10', UPLOAD_SPOT_TTL_SECONDS: '900' } });
  const { apiKey } = await h.createKey();
  await h.request('POST', '/v1/uploads', { key: apiKey }); // an empty spot does not count
  now += 50_000;
  await h.upload(apiKey, Buffer.alloc(20, 1));
  now += 100_000;
  const refused = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.deepEqual([refused.status, refused.body.error.code], [429, 'unclaimed_bytes_exceeded']);
  assert.equal(refused.headers.get('retry-after'), '800', 'the 20-byte spot was minted 100 s ago with 900 s to live');
});

test('usage_limit_exceeded carries Retry-After too (it does not clear by waiting: a long hint)', async (t) => {
  const h = await startHarness(t, { env: { WORKER_CONCURRENCY: '0' } });
  const { apiKey } = await h.createKey({ limit: 0 });
  const res = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: 'squat' } });
  assert.equal(res.status, 429);
  assert.ok(Number(res.headers.get('retry-after')) >= 60);
});

test('503 store_unavailable and storage_stat_unavailable carry Retry-After', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const minted = await h.request('POST', '/v1/uploads', { key: apiKey });
  // Faults injected into this test's service only: the storage and the ledger become unreachable.
  h.svc.storage.stat = async () => { throw new StorageUnavailableError('injected'); };
  const storage = await h.request('GET', `/v1/uploads/${minted.body.handle}`, { key: apiKey });
  assert.deepEqual([storage.status, storage.body.error.code], [503, 'storage_stat_unavailable']);
  assert.match(String(storage.headers.get('retry-after')), /^[1-9]\d*$/);
  h.svc.ledger.load = async () => { throw new StoreUnavailableError('injected'); };
  const store = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.deepEqual([store.status, store.body.error.code], [503, 'store_unavailable']);
  assert.match(String(store.headers.get('retry-after')), /^[1-9]\d*$/);
});
