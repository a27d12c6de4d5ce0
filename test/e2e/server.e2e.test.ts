// The service as an operator runs it: `npm start` (server.ts) and the admin CLI on the same
// DATA_DIR, a partner uploading a real clip through the storage host, the real engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, haveVideos, NO_VIDEOS, startServer, videosDir } from '../support/processes.js';
import { removeDir } from '../support/remove-dir.js';

function dataDir(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'rc-e2e-'));
  t.after(() => removeDir(dir));
  return dir;
}

test('admin CLI: keys create prints one JSON line; bad arguments exit non-zero with a message', (t) => {
  const env = { DATA_DIR: dataDir(t) };
  const created = admin(env, 'keys', 'create', '--partner-name', 'Acme', '--limit', '0');
  assert.equal(created.status, 0, created.stderr);
  const key = created.json();
  assert.deepEqual(Object.keys(key).sort(), ['api_key', 'key_id', 'partner_id', 'partner_name']);
  for (const args of [['keys', 'create'], ['keys', 'set-limit', key.key_id, 'lots'], ['keys', 'suspend', 'key_missing'], ['jobs', 'cancel', 'nope'], ['frobnicate']]) {
    const res = admin(env, ...args);
    assert.notEqual(res.status, 0, args.join(' '));
    assert.match(res.stderr, /error: /, args.join(' '));
  }
});

test('a bad env value stops the boot with a message naming it', async () => {
  await assert.rejects(startServer({ DATA_DIR: mkdtempSync(join(tmpdir(), 'rc-e2e-')), SPOTS_PER_WINDOW: 'many' }), /SPOTS_PER_WINDOW/);
});

test('the server process and the admin CLI share the ledger while it runs (suspend, set-limit, cancel)', async (t) => {
  const env = { DATA_DIR: dataDir(t), WORKER_CONCURRENCY: '0' };
  const server = await startServer(env);
  t.after(() => server.stop());
  const key = admin(env, 'keys', 'create', '--partner-name', 'Live').json();
  const auth = { authorization: `Bearer ${key.api_key}` };
  const usage = async () => (await (await fetch(`${server.base}/v1/identity`, { headers: auth })).json()).usage;
  assert.deepEqual(await usage(), { limit: null, used: 0, remaining: null });
  assert.equal(admin(env, 'keys', 'set-limit', key.key_id, '2').status, 0);
  assert.deepEqual(await usage(), { limit: 2, used: 0, remaining: 2 });

  const spot = await (await fetch(`${server.base}/v1/uploads`, { method: 'POST', headers: auth })).json();
  assert.equal((await fetch(spot.upload_url, { method: 'PUT', body: 'bytes', headers: { 'content-type': 'video/mp4' } })).status, 200);
  const job = await (await fetch(`${server.base}/v1/jobs`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ upload_handle: spot.handle, exercise_id: 'squat' }) })).json();
  assert.equal(job.status, 'queued', 'WORKER_CONCURRENCY=0: an API-only node leaves jobs queued');
  assert.deepEqual(await usage(), { limit: 2, used: 0, remaining: 1 });
  const cancelled = admin(env, 'jobs', 'cancel', job.job_id);
  assert.equal(cancelled.status, 0, cancelled.stderr);
  assert.equal((await (await fetch(`${server.base}/v1/jobs/${job.job_id}`, { headers: auth })).json()).status, 'cancelled');
  assert.deepEqual(await usage(), { limit: 2, used: 0, remaining: 2 });

  assert.equal(admin(env, 'keys', 'suspend', key.key_id).status, 0);
  assert.equal((await fetch(`${server.base}/v1/identity`, { headers: auth })).status, 401);
  assert.equal(await server.stop('SIGTERM'), 0, 'graceful shutdown exits 0');
});

test('partner flow on a real clip through the real engine: counts the labeled reps', { skip: haveVideos ? false : NO_VIDEOS, timeout: 180_000 }, async (t) => {
  const env = { DATA_DIR: dataDir(t) };
  const server = await startServer(env);
  t.after(() => server.stop());
  const key = admin(env, 'keys', 'create', '--partner-name', 'Coach', '--limit', '5').json();
  const auth = { authorization: `Bearer ${key.api_key}` };
  const labels = JSON.parse(readFileSync(join(videosDir, 'labels.json'), 'utf8')) as { file: string; exercise: string; reps: number }[];
  const clip = labels.find((l) => l.file === 'pushup_side_homegym.mp4')!;

  const spot = await (await fetch(`${server.base}/v1/uploads`, { method: 'POST', headers: auth })).json();
  const put = await fetch(spot.upload_url, { method: 'PUT', body: readFileSync(join(videosDir, clip.file)), headers: { 'content-type': 'video/mp4' } });
  assert.equal(put.status, 200);
  const state = await (await fetch(`${server.base}/v1/uploads/${spot.handle}`, { headers: auth })).json();
  assert.equal(state.state, 'uploaded');
  const job = await (await fetch(`${server.base}/v1/jobs`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ upload_handle: spot.handle, exercise_id: clip.exercise }) })).json();

  let body: any;
  for (const deadline = Date.now() + 170_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
    body = await (await fetch(`${server.base}/v1/jobs/${job.job_id}`, { headers: auth })).json();
    if (['completed', 'failed', 'cancelled'].includes(body.status)) break;
  }
  assert.equal(body.status, 'completed', JSON.stringify(body));
  const valid = body.result.repetitions.filter((r: { is_valid_rep: boolean }) => r.is_valid_rep).length;
  assert.equal(valid, clip.reps);
  const areas = body.result.overall_feedback.key_improvement_areas;
  assert.ok(areas.length >= 2 && areas.length <= 3);
  assert.deepEqual((await (await fetch(`${server.base}/v1/identity`, { headers: auth })).json()).usage, { limit: 5, used: 1, remaining: 4 });
  assert.doesNotMatch(server.output(), new RegExp(key.api_key), 'logs never contain the API key');
  assert.doesNotMatch(server.output(), /signature=/, 'logs never contain a signed URL');
});
