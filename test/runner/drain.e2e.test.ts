// Graceful drain, with real processes and the real engine on a real (generated) video: on SIGTERM
// a server stops taking jobs, lets a running analysis finish within SHUTDOWN_GRACE_SECONDS, and
// otherwise gives the lease back so another process takes the job at once, long before
// JOB_LEASE_SECONDS would have run out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { until } from '../support/engines.js';
import { admin, haveVideos, startServer, videosDir, type ServerProcess } from '../support/processes.js';
import { looped, makeVideo } from '../support/videos.js';
import { removeDir } from '../support/remove-dir.js';

/**
 * Long enough that an analysis is still running when the test sends SIGTERM, even on a fast engine:
 * a shared clip looped to 40 s when the clips are here (a person to track), else a made-up video.
 */
async function makeClip(): Promise<Buffer> {
  if (haveVideos) return looped(join(videosDir, 'pushup_side_homegym.mp4'), 40);
  return makeVideo({ width: 320, height: 240, fps: 12, frames: 12 * 60, paint: (i, px) => px.fill(40 + ((i * 7) % 180)) });
}

interface JobEvent { type: string; jobId: string; worker?: string; attempt?: number }

function jobEvents(dataDir: string, jobId: string): JobEvent[] {
  const db = new Database(join(dataDir, 'ledger.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare<[], { type: string; data: string }>("SELECT type, data FROM events WHERE type LIKE 'Job%' ORDER BY position").all()
      .map((r) => ({ type: r.type, ...(JSON.parse(r.data) as { jobId: string }) }))
      .filter((e) => e.jobId === jobId);
  } finally {
    db.close();
  }
}

async function call(node: ServerProcess, apiKey: string, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(node.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function submit(node: ServerProcess, apiKey: string, clip: Buffer): Promise<string> {
  const minted = await call(node, apiKey, 'POST', '/v1/uploads');
  assert.equal(minted.status, 201);
  const put = await fetch(minted.body.upload_url, { method: 'PUT', body: new Uint8Array(clip), headers: { 'content-type': 'video/mp4' } });
  assert.equal(put.status, 200);
  const job = await call(node, apiKey, 'POST', '/v1/jobs', { upload_handle: minted.body.handle, exercise_id: 'squat' });
  assert.equal(job.status, 201, JSON.stringify(job.body));
  return job.body.job_id;
}

async function setup(t: { after(fn: () => unknown): void }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-drain-'));
  t.after(() => removeDir(dataDir));
  // A lease far longer than the test: only a release can let another process take the job in time.
  const env = { DATA_DIR: dataDir, JOB_LEASE_SECONDS: '600', WORKER_CONCURRENCY: '1' };
  return { dataDir, env, key: admin(env, 'keys', 'create', '--partner-name', 'Drain').json().api_key as string, clip: await makeClip() };
}

test('SIGTERM past SHUTDOWN_GRACE_SECONDS gives the lease back and another process takes the job at once', { timeout: 240_000 }, async (t) => {
  const { dataDir, env, key, clip } = await setup(t);
  const first = await startServer({ ...env, SHUTDOWN_GRACE_SECONDS: '1' });
  t.after(() => first.stop('SIGKILL'));
  const jobId = await submit(first, key, clip);
  await until(async () => ((await call(first, key, 'GET', `/v1/jobs/${jobId}`)).body.status === 'processing' ? true : undefined), 60_000);

  const stoppedAt = Date.now();
  assert.equal(await first.stop('SIGTERM'), 0, first.output());
  assert.ok(Date.now() - stoppedAt < 15_000, 'the process exits soon after its grace');
  const afterStop = jobEvents(dataDir, jobId).map((e) => e.type);
  assert.deepEqual(afterStop, ['JobQueued', 'JobStarted', 'JobLeaseReleased'], `the lease was given back, no outcome: ${afterStop}`);

  const second = await startServer(env);
  t.after(() => second.stop('SIGKILL'));
  const done = await until(async () => {
    const job = (await call(second, key, 'GET', `/v1/jobs/${jobId}`)).body;
    return ['completed', 'failed'].includes(job.status) ? job : undefined;
  }, 150_000);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const events = jobEvents(dataDir, jobId);
  const starts = events.filter((e) => e.type === 'JobStarted');
  assert.equal(starts.length, 2);
  assert.notEqual(starts[1]!.worker, starts[0]!.worker, 'taken by the other process');
  assert.equal(events.filter((e) => e.type === 'JobCompleted').length, 1);
  assert.equal((await call(second, key, 'GET', '/v1/identity')).body.usage.used, 1, 'the released attempt used no unit');
});

test('SIGTERM within SHUTDOWN_GRACE_SECONDS lets the running analysis finish and takes no new job', { timeout: 240_000 }, async (t) => {
  const { dataDir, env, key, clip } = await setup(t);
  const node = await startServer({ ...env, SHUTDOWN_GRACE_SECONDS: '180' });
  t.after(() => node.stop('SIGKILL'));
  const running = await submit(node, key, clip);
  await until(async () => ((await call(node, key, 'GET', `/v1/jobs/${running}`)).body.status === 'processing' ? true : undefined), 60_000);
  const waiting = await submit(node, key, clip);

  assert.equal(await node.stop('SIGTERM'), 0, node.output());
  assert.deepEqual(jobEvents(dataDir, running).map((e) => e.type), ['JobQueued', 'JobStarted', 'JobCompleted'], 'finished before the exit');
  assert.deepEqual(jobEvents(dataDir, waiting).map((e) => e.type), ['JobQueued'], 'the queued job was left for another process');
});
