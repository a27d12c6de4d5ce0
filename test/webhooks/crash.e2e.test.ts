// Webhooks from the real server process (`npm start`'s server.ts): a server SIGKILLed between a
// job's end and its delivery loses nothing (the delivery is derived from the ledger and the restarted
// server sends it, with the same webhook-id); and on a real clip, job.completed carries the result
// and the pose track matches the frames it was judged from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, haveVideos, NO_VIDEOS, startServer, videosDir, type ServerProcess } from '../support/processes.js';
import { startReceiver } from '../support/receiver.js';
import { removeDir } from '../support/remove-dir.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function env(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'rc-webhooks-'));
  t.after(() => removeDir(dir));
  // A 1 s request timeout makes a dead attempt's lease 2 s; the retry schedule shrunk a thousandfold.
  return { DATA_DIR: dir, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_RETRY_SCALE: '0.001', WEBHOOK_TIMEOUT_SECONDS: '1', PROVIDER_RETRIES: '0' };
}

async function call(server: ServerProcess, apiKey: string, method: string, path: string, body?: unknown) {
  const res = await fetch(server.base + path, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function submit(server: ServerProcess, apiKey: string, bytes: Buffer, exerciseId: string): Promise<string> {
  const spot = (await call(server, apiKey, 'POST', '/v1/uploads')).body;
  assert.equal((await fetch(spot.upload_url, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'video/mp4' } })).status, 200);
  const job = await call(server, apiKey, 'POST', '/v1/jobs', { upload_handle: spot.handle, exercise_id: exerciseId });
  assert.equal(job.status, 201);
  return job.body.job_id;
}

async function terminal(server: ServerProcess, apiKey: string, jobId: string, timeoutMs: number) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(100)) {
    const job = await call(server, apiKey, 'GET', `/v1/jobs/${jobId}`);
    if (['completed', 'failed', 'cancelled'].includes(job.body.status)) return job.body;
  }
  throw new Error(`job ${jobId} did not finish in ${timeoutMs} ms`);
}

test('a server killed between a job\'s end and its delivery loses nothing: the restarted server delivers, signed, same webhook-id', { timeout: 120_000 }, async (t) => {
  const e = env(t);
  // The first request is held open and never answered: the server dies while it waits.
  const receiver = await startReceiver(t, (n) => (n === 1 ? 'hang' : 200));
  let server = await startServer(e);
  t.after(() => server.stop('SIGKILL'));
  const key = admin(e, 'keys', 'create', '--partner-name', 'Crash').json();
  const endpoint = await call(server, key.api_key, 'POST', '/v1/webhook-endpoints', { url: receiver.url });
  assert.equal(endpoint.status, 201);
  receiver.secret = endpoint.body.secret;

  // Not a video: the job fails at once (job.failed), no engine time needed.
  const first = await submit(server, key.api_key, Buffer.from('not a video at all'), 'squat');
  const failed = await terminal(server, key.api_key, first, 60_000);
  for (const deadline = Date.now() + 20_000; receiver.received.length === 0; await sleep(20)) if (Date.now() > deadline) throw new Error('no delivery attempt');
  await server.stop('SIGKILL');

  // A second job's end, and the server killed the moment the job is terminal.
  server = await startServer(e);
  const second = await submit(server, key.api_key, Buffer.from('still not a video'), 'lunge');
  const failedToo = await terminal(server, key.api_key, second, 60_000);
  await server.stop('SIGKILL');

  server = await startServer(e);
  const ok = await receiver.delivered(2, 30_000);
  const byJob = new Map(ok.map((r) => [JSON.parse(r.body).data.job_id, r]));
  assert.deepEqual([...byJob.keys()].sort(), [first, second].sort(), 'one delivery per finished job, none lost');
  for (const r of ok) assert.ok(r.verified.ok, `standardwebhooks verifies it: ${JSON.stringify(r.verified)}`);
  assert.deepEqual(JSON.parse(byJob.get(first)!.body).data, failed);
  assert.deepEqual(JSON.parse(byJob.get(second)!.body).data, failedToo);
  assert.equal(byJob.get(first)!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id'], 'the retry after the crash keeps the webhook-id');

  const deliveries = admin(e, 'webhooks', 'deliveries', key.key_id);
  assert.equal(deliveries.status, 0, deliveries.stderr);
  const rows = deliveries.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const crashed = rows.find((r) => r.job_id === first);
  assert.equal(crashed.state, 'succeeded');
  assert.equal(crashed.history[0].outcome, 'no outcome (dispatcher stopped or lease lost)', 'the attempt cut by the crash is in the ledger');
  assert.equal(crashed.history.at(-1).outcome, 'succeeded');
  assert.equal(admin(e, 'audit', key.key_id).status, 0, 'the audit accepts the history');
  assert.equal(await server.stop('SIGTERM'), 0);
});

test('a real clip: job.completed carries the result as GET shows it; the pose track has one row per analysed frame, 3 numbers per landmark', { skip: haveVideos ? false : NO_VIDEOS, timeout: 240_000 }, async (t) => {
  const e = env(t);
  const receiver = await startReceiver(t);
  const server = await startServer(e);
  t.after(() => server.stop());
  const key = admin(e, 'keys', 'create', '--partner-name', 'Coach').json();
  receiver.secret = (await call(server, key.api_key, 'POST', '/v1/webhook-endpoints', { url: receiver.url, events: ['job.completed'] })).body.secret;
  const jobId = await submit(server, key.api_key, readFileSync(join(videosDir, 'pushup_side_homegym.mp4')), 'push-up');
  const job = await terminal(server, key.api_key, jobId, 220_000);
  assert.equal(job.status, 'completed');
  const [got] = await receiver.delivered(1);
  assert.ok(got!.verified.ok);
  assert.deepEqual(JSON.parse(got!.body), { type: 'job.completed', timestamp: JSON.parse(got!.body).timestamp, data: job });

  const pose = await call(server, key.api_key, 'GET', `/v1/jobs/${jobId}/pose`);
  assert.equal(pose.status, 200);
  const { landmarks, frames_ms: frames, keypoints, width, height } = pose.body;
  assert.ok(landmarks.length >= 17 && landmarks.includes('left_shoulder') && landmarks.includes('right_knee'));
  assert.ok(width > 0 && height > 0);
  assert.equal(keypoints.length, frames.length, 'one row per frame');
  for (const row of keypoints) assert.equal(row.length, landmarks.length * 3);
  assert.ok(frames.every((ms: number, i: number) => i === 0 || ms > frames[i - 1]), 'frame times increase');
  const lastRep = job.result.repetitions.at(-1);
  assert.ok(!lastRep || lastRep.end_time_ms <= frames.at(-1) + 200, 'the reps lie inside the tracked frames');
});
