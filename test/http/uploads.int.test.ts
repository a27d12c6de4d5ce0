// SPEC "POST /v1/uploads", "PUT {upload_url}", "GET /v1/uploads/{handle}" and the upload Limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startHarness } from '../support/harness.js';

function movableClock() {
  const clock = { now: Date.now(), fn: () => new Date(clock.now), advance: (s: number) => (clock.now += s * 1000) };
  return clock;
}

test('POST /v1/uploads: 201 with handle, a signed URL off the API host naming the handle, and expires_at 900 s out', async (t) => {
  const clock = movableClock();
  const h = await startHarness(t, { clock: clock.fn });
  const { apiKey } = await h.createKey();
  const res = await h.request('POST', '/v1/uploads', { key: apiKey, raw: 'ignored body', headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 201);
  assert.deepEqual(Object.keys(res.body).sort(), ['expires_at', 'handle', 'upload_url']);
  const url = new URL(res.body.upload_url);
  assert.notEqual(url.origin, h.base, 'the upload URL points at the storage host, not the API');
  assert.ok(url.pathname.endsWith(`/${res.body.handle}`), 'the handle is the object name inside upload_url');
  assert.ok(url.searchParams.get('signature'));
  assert.equal(Date.parse(res.body.expires_at) - clock.now, 900_000);
  assert.match(res.body.expires_at, /(Z|[+-]\d\d:\d\d)$/);
});

test('PUT {upload_url}: 200 with an empty body and no Authorization header; state minted -> uploaded', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const minted = await h.request('POST', '/v1/uploads', { key: apiKey });
  const before = await h.request('GET', `/v1/uploads/${minted.body.handle}`, { key: apiKey });
  assert.deepEqual(before.body, { handle: minted.body.handle, state: 'minted', expires_at: minted.body.expires_at });
  const put = await fetch(minted.body.upload_url, { method: 'PUT', body: new Uint8Array([1, 2, 3]), headers: { 'content-type': 'video/mp4' } });
  assert.equal(put.status, 200);
  assert.equal(await put.text(), '');
  const after = await h.request('GET', `/v1/uploads/${minted.body.handle}`, { key: apiKey });
  assert.equal(after.body.state, 'uploaded');
});

test('PUT {upload_url}: a tampered signature, another handle, an expired URL and a claimed spot are refused with 403', async (t) => {
  const clock = movableClock();
  const h = await startHarness(t, { clock: clock.fn });
  const { apiKey } = await h.createKey();
  const a = (await h.request('POST', '/v1/uploads', { key: apiKey })).body;
  const b = (await h.request('POST', '/v1/uploads', { key: apiKey })).body;
  const tampered = a.upload_url.replace(/signature=([0-9a-f])/, (_: string, c: string) => `signature=${c === '0' ? '1' : '0'}`);
  assert.equal((await fetch(tampered, { method: 'PUT', body: 'x' })).status, 403);
  const foreign = a.upload_url.replace(a.handle, b.handle);
  assert.equal((await fetch(foreign, { method: 'PUT', body: 'x' })).status, 403);
  assert.equal((await fetch(a.upload_url, { method: 'GET' })).status, 405);

  assert.equal((await fetch(a.upload_url, { method: 'PUT', body: 'bytes' })).status, 200);
  const job = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: a.handle, exercise_id: 'squat' } });
  assert.equal(job.status, 201);
  assert.equal((await fetch(a.upload_url, { method: 'PUT', body: 'other bytes' })).status, 403, 'single use: no PUT after the claim');

  clock.advance(901);
  assert.equal((await fetch(b.upload_url, { method: 'PUT', body: 'late' })).status, 403, 'expired URL');
});

test('GET /v1/uploads/{handle}: claimed after a job takes it, expired after 900 s unclaimed', async (t) => {
  const clock = movableClock();
  const h = await startHarness(t, { clock: clock.fn });
  const { apiKey } = await h.createKey();
  const claimed = await h.upload(apiKey);
  const idle = (await h.request('POST', '/v1/uploads', { key: apiKey })).body.handle;
  await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: claimed, exercise_id: 'squat' } });
  assert.equal((await h.request('GET', `/v1/uploads/${claimed}`, { key: apiKey })).body.state, 'claimed');
  clock.advance(900);
  assert.equal((await h.request('GET', `/v1/uploads/${idle}`, { key: apiKey })).body.state, 'expired');
  assert.equal((await h.request('GET', `/v1/uploads/${claimed}`, { key: apiKey })).body.state, 'claimed', 'a claim outlives the window');
});

test('GET /v1/uploads/{handle}: 404 upload_not_found for a handle never minted and for another key\'s handle', async (t) => {
  const h = await startHarness(t);
  const mine = await h.createKey();
  const theirs = await h.createKey();
  const handle = (await h.request('POST', '/v1/uploads', { key: theirs.apiKey })).body.handle;
  const never = await h.request('GET', '/v1/uploads/up_doesnotexist', { key: mine.apiKey });
  const foreign = await h.request('GET', `/v1/uploads/${handle}`, { key: mine.apiKey });
  assert.equal(never.status, 404);
  assert.equal(never.body.error.code, 'upload_not_found');
  assert.deepEqual(foreign.body, never.body, 'the two cases are indistinguishable');
});

test('Limits: 429 spots_per_window_exceeded at the cap, cleared when the rolling window rolls', async (t) => {
  const clock = movableClock();
  const h = await startHarness(t, { clock: clock.fn, env: { SPOTS_PER_WINDOW: '2', SPOTS_WINDOW_SECONDS: '60' } });
  const { apiKey } = await h.createKey();
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey })).status, 201);
  clock.advance(30);
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey })).status, 201);
  const refused = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, 'spots_per_window_exceeded');
  clock.advance(31); // the first mint leaves the window
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey })).status, 201);
  const other = await h.createKey();
  assert.equal((await h.request('POST', '/v1/uploads', { key: other.apiKey })).status, 201, 'the window is per key');
});

test('Limits: 429 unclaimed_bytes_exceeded once unclaimed bytes exceed the cap; claiming or expiry frees them', async (t) => {
  const clock = movableClock();
  const h = await startHarness(t, { clock: clock.fn, env: { UNCLAIMED_BYTES_CAP: '10' } });
  const { apiKey } = await h.createKey();
  const handle = await h.upload(apiKey, Buffer.alloc(11));
  const refused = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal(refused.status, 429);
  assert.equal(refused.body.error.code, 'unclaimed_bytes_exceeded');
  assert.equal((await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } })).status, 201);
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey })).status, 201, 'claimed bytes no longer count');
  await h.upload(apiKey, Buffer.alloc(20));
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey })).status, 429);
  clock.advance(901);
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey })).status, 201, 'expired spots no longer count');
});

test('Errors: 503 store_unavailable when the ledger cannot be written; the server keeps serving', async (t) => {
  const h = await startHarness(t, { env: { STORE_BUSY_TIMEOUT_MS: '50' } });
  const { apiKey } = await h.createKey();
  const locker = new Database(join(h.config.dataDir, 'ledger.db'));
  locker.exec('BEGIN IMMEDIATE');
  try {
    const res = await h.request('POST', '/v1/uploads', { key: apiKey });
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, 'store_unavailable');
  } finally {
    locker.exec('ROLLBACK');
    locker.close();
  }
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey })).status, 201);
});

test('Errors: 503 storage_stat_unavailable when video storage cannot be queried', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const handle = (await h.request('POST', '/v1/uploads', { key: apiKey })).body.handle;
  const live = join(h.config.dataDir, 'storage', 'live');
  renameSync(live, `${live}.away`);
  writeFileSync(live, 'not a directory'); // every stat below it now fails with ENOTDIR
  const mint = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal(mint.status, 503);
  assert.equal(mint.body.error.code, 'storage_stat_unavailable');
  const submit = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
  assert.equal(submit.status, 503);
  assert.equal(submit.body.error.code, 'storage_stat_unavailable');
});

test('the sweeper records SpotExpired and deletes the bytes of expired, unclaimed spots; claimed bytes stay frozen', async (t) => {
  const { sweepOnce } = await import('../../src/runner/sweeper.js');
  const { existsSync, readFileSync } = await import('node:fs');
  const clock = movableClock();
  const h = await startHarness(t, { clock: clock.fn });
  const { apiKey, keyId } = await h.createKey();
  const idle = await h.upload(apiKey, 'idle bytes');
  const kept = await h.upload(apiKey, 'analyzed bytes');
  const job = (await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: kept, exercise_id: 'squat' } })).body;
  const live = join(h.config.dataDir, 'storage', 'live');
  assert.ok(existsSync(join(live, idle)));
  clock.advance(901);
  assert.equal(await sweepOnce(h.svc), 1);
  assert.equal(existsSync(join(live, idle)), false, 'expired bytes are deleted');
  const events = await h.svc.store.readStream(`ledger-${keyId}`);
  assert.ok(events.some((e) => e.type === 'SpotExpired' && e.data.handle === idle));
  assert.equal(await sweepOnce(h.svc), 0, 'sweeping again does nothing');
  const frozen = await h.svc.storage.openFrozen(job.job_id);
  assert.equal(readFileSync(frozen.path, 'utf8'), 'analyzed bytes', 'the job keeps the bytes it claimed');
});
