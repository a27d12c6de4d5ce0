// The SPEC's partner flow on both storage drivers: mint a spot, PUT the bytes to the signed URL
// (no Authorization header), see the spot as uploaded, submit, poll to a terminal status. Nothing a
// partner sees depends on the driver.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness } from '../support/harness.js';
import { fixedEngine, sampleResult, until } from '../support/engines.js';
import { admin, startServer } from '../support/processes.js';
import { startS3rver } from '../support/s3rver.js';
import { StorageUnavailableError } from '../../src/storage/port.js';
import { removeDir } from '../support/remove-dir.js';

type Req = (method: string, url: string, opts?: { body?: unknown }) => Promise<{ status: number; body: any }>;

/** The partner's side of the flow, through HTTP only; returns the terminal job. */
async function partnerFlow(request: Req, bytes: string) {
  const minted = await request('POST', '/v1/uploads');
  assert.equal(minted.status, 201);
  assert.equal(new Date(minted.body.expires_at).getTime() - Date.now() <= 900_000, true);
  assert.equal((await request('GET', `/v1/uploads/${minted.body.handle}`)).body.state, 'minted');
  const put = await fetch(minted.body.upload_url, { method: 'PUT', body: bytes, headers: { 'content-type': 'video/mp4' } });
  assert.equal(put.status, 200);
  assert.equal(await put.text(), '', 'an empty body on success');
  const state = await request('GET', `/v1/uploads/${minted.body.handle}`);
  assert.deepEqual(state.body, { handle: minted.body.handle, state: 'uploaded', expires_at: minted.body.expires_at });
  const job = await request('POST', '/v1/jobs', { body: { upload_handle: minted.body.handle, exercise_id: 'squat' } });
  assert.equal(job.status, 201);
  const again = await request('POST', '/v1/jobs', { body: { upload_handle: minted.body.handle, exercise_id: 'squat' } });
  assert.equal(again.body.job_id, job.body.job_id, 'the same handle and exercise give the original job');
  assert.equal((await request('GET', `/v1/uploads/${minted.body.handle}`)).body.state, 'claimed');
  return until(async () => {
    const got = await request('GET', `/v1/jobs/${job.body.job_id}`);
    return ['completed', 'failed', 'cancelled'].includes(got.body.status) ? got.body : undefined;
  }, 60_000);
}

for (const storage of ['disk', 's3'] as const) {
  test(`partner flow on the ${storage} driver: mint, PUT to the signed URL, uploaded, submit, completed`, async (t) => {
    const engine = fixedEngine();
    const h = await startHarness(t, { storage, engine });
    assert.equal(h.svc.storage.driver, storage);
    const { apiKey } = await h.createKey({ limit: 2 });
    const done = await partnerFlow((m, p, o) => h.request(m, p, { key: apiKey, ...o }), 'the uploaded clip');
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.result, sampleResult);
    assert.deepEqual(engine.calls, ['squat'], 'analyzed once');
    assert.deepEqual((await h.request('GET', '/v1/identity', { key: apiKey })).body.usage, { limit: 2, used: 1, remaining: 1 });
  });
}

test('an object store outage while a worker fetches the frozen video is retried, not a failed job', async (t) => {
  const engine = fixedEngine();
  const h = await startHarness(t, { storage: 's3', engine });
  const storage = h.svc.storage;
  const openFrozen = storage.openFrozen.bind(storage);
  let outages = 1;
  storage.openFrozen = async (jobId) => {
    if (outages-- > 0) throw new StorageUnavailableError('S3 GetObject failed: socket hang up');
    return openFrozen(jobId);
  };
  const { apiKey } = await h.createKey();
  const done = await partnerFlow((m, p, o) => h.request(m, p, { key: apiKey, ...o }), 'bytes');
  assert.equal(done.status, 'completed');
  assert.equal(outages, -1, 'fetched again after the outage');
});

const kurrentdb = process.env.KURRENTDB_URL;

test('two nodes on KurrentDB + S3: a job submitted on one node is run by the other\'s runner and seen by both', { skip: kurrentdb ? false : 'KURRENTDB_URL not set' }, async (t) => {
  const s3 = await startS3rver(t);
  const env = { ...s3.env, EVENT_STORE: 'kurrentdb', KURRENTDB_URL: kurrentdb! };
  const api = await startHarness(t, { env });
  const engine = fixedEngine();
  const worker = await startHarness(t, { env, engine });
  const { apiKey } = await api.createKey({ limit: 1 });
  const done = await partnerFlow((m, p, o) => api.request(m, p, { key: apiKey, ...o }), 'bytes on S3');
  assert.equal(done.status, 'completed');
  assert.deepEqual(engine.calls, ['squat'], 'the other node\'s runner took the job');
  const seenThere = await until(async () => {
    const got = await worker.request('GET', `/v1/jobs/${done.job_id}`, { key: apiKey });
    return got.body?.status === 'completed' ? got.body : undefined;
  });
  assert.deepEqual(seenThere, done);
});

test('npm start with STORAGE_DRIVER=s3: signed URLs point at S3, the worker reads the frozen copy, the job ends failed on non-video bytes', { timeout: 120_000 }, async (t) => {
  const s3 = await startS3rver(t);
  const dir = mkdtempSync(join(tmpdir(), 'rc-e2e-s3-'));
  const env = { DATA_DIR: dir, ...s3.env };
  const server = await startServer(env);
  t.after(() => server.stop());
  t.after(() => removeDir(dir)); // after the stop: the server writes there until it exits
  const key = admin(env, 'keys', 'create', '--partner-name', 'S3 Partner').json();
  const request: Req = async (method, path, { body } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key.api_key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(server.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const minted = await request('POST', '/v1/uploads');
  assert.ok(minted.body.upload_url.startsWith(`${s3.endpoint}/${s3.bucket}/uploads/${minted.body.handle}?`), 'the handle is the object name in the URL');
  const done = await partnerFlow(request, 'these bytes are not a video');
  // SPEC: a file that cannot be decoded fails the job; nothing is invented.
  assert.deepEqual(done, { job_id: done.job_id, status: 'failed', error_code: 'video_processing_failed', message: 'The video could not be processed for analysis.' });
});
