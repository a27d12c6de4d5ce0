// Scale-out on one machine: two API-only nodes (`npm start` with WORKER_CONCURRENCY=0) and two
// `npm run worker` processes share one DATA_DIR (SQLite ledger). Partners submit through both
// nodes; one worker is killed with SIGKILL in the middle of a real analysis. Every job must end
// exactly once: one JobCompleted or JobFailed in the ledger, the killed one taken again after its
// lease ran out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { until } from '../support/engines.js';
import { admin, haveVideos, NO_VIDEOS, repoRoot, startServer, videosDir, type ServerProcess } from '../support/processes.js';
import { removeDir } from '../support/remove-dir.js';

const LEASE_SECONDS = 5;
const CLIP = 'pushup_side_homegym.mp4';

function startWorker(env: Record<string, string>): { child: ChildProcess; output(): string } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/runner/main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((ok) => (child.exitCode !== null || child.signalCode !== null ? ok() : child.once('exit', () => ok())));

interface JobEvent {
  type: string;
  jobId: string;
  worker?: string;
}

/** The job events as the ledger holds them (read-only: the processes keep writing). */
function jobEvents(dataDir: string): JobEvent[] {
  const db = new Database(join(dataDir, 'ledger.db'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare<[], { type: string; data: string }>("SELECT type, data FROM events WHERE type LIKE 'Job%' ORDER BY position")
      .all()
      .map((r) => ({ type: r.type, ...(JSON.parse(r.data) as { jobId: string; worker?: string }) }));
  } finally {
    db.close();
  }
}

test('two API nodes and two workers on one DATA_DIR: a worker killed mid-job loses nothing and every job ends exactly once', { skip: haveVideos ? false : NO_VIDEOS, timeout: 180_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-scale-'));
  t.after(() => removeDir(dataDir));
  const env = { DATA_DIR: dataDir, JOB_LEASE_SECONDS: String(LEASE_SECONDS) };
  const keys = [admin(env, 'keys', 'create', '--partner-name', 'North').json(), admin(env, 'keys', 'create', '--partner-name', 'South').json()];

  const nodes: ServerProcess[] = await Promise.all([startServer({ ...env, WORKER_CONCURRENCY: '0' }), startServer({ ...env, WORKER_CONCURRENCY: '0' })]);
  t.after(() => Promise.all(nodes.map((n) => n.stop())));
  const workers = [startWorker(env), startWorker(env)];
  t.after(async () => {
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => exited(w.child)));
  });

  const call = async (node: ServerProcess, apiKey: string, method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(node.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };

  // Storage ports of both nodes: a spot minted on one node may be uploaded through the other's
  // storage host (same DATA_DIR, same signing secret).
  const storageBases = await Promise.all(
    nodes.map(async (n) => new URL((await call(n, keys[0].api_key, 'POST', '/v1/uploads')).body.upload_url).origin),
  );

  const clip = readFileSync(join(videosDir, CLIP));
  async function submit(i: number, real: boolean) {
    const key = keys[i % 2].api_key;
    const minting = nodes[i % 2]!;
    const minted = await call(minting, key, 'POST', '/v1/uploads');
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    const url = new URL(minted.body.upload_url);
    const viaOther = new URL(url.pathname + url.search, storageBases[(i + 1) % 2]);
    const put = await fetch(viaOther, { method: 'PUT', body: real ? new Uint8Array(clip) : 'not a video', headers: { 'content-type': 'video/mp4' } });
    assert.equal(put.status, 200);
    const job = await call(nodes[(i + 1) % 2]!, key, 'POST', '/v1/jobs', { upload_handle: minted.body.handle, exercise_id: 'push-up' });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    return { jobId: job.body.job_id as string, key, real };
  }
  // Real clips first, so both workers are busy analyzing when the kill comes.
  const realJobs = await Promise.all(Array.from({ length: 4 }, (_, i) => submit(i, true)));
  const jobs = [...realJobs, ...(await Promise.all(Array.from({ length: 6 }, (_, i) => submit(4 + i, false))))];
  const realIds = new Set(jobs.filter((j) => j.real).map((j) => j.jobId));

  // Kill the first worker while it holds a real clip's job that has no outcome yet.
  const victimPid = workers[0]!.child.pid!;
  const victimJob = await until(async () => {
    const events = jobEvents(dataDir);
    const ended = new Set(events.filter((e) => e.type === 'JobCompleted' || e.type === 'JobFailed').map((e) => e.jobId));
    const held = events.find((e) => e.type === 'JobStarted' && e.worker?.includes(`/${victimPid}/`) && realIds.has(e.jobId) && !ended.has(e.jobId));
    return held?.jobId;
  }, 90_000);
  workers[0]!.child.kill('SIGKILL');
  await exited(workers[0]!.child);

  // Every job reaches a terminal status, seen through either node.
  const finals = await until(async () => {
    const seen = await Promise.all(jobs.map((j, i) => call(nodes[i % 2]!, j.key, 'GET', `/v1/jobs/${j.jobId}`)));
    return seen.every((s) => ['completed', 'failed'].includes(s.body.status)) ? seen.map((s) => s.body) : undefined;
  }, 150_000);

  const events = jobEvents(dataDir);
  for (const j of jobs) {
    const mine = events.filter((e) => e.jobId === j.jobId);
    const outcomes = mine.filter((e) => e.type === 'JobCompleted' || e.type === 'JobFailed');
    assert.equal(outcomes.length, 1, `job ${j.jobId} ends exactly once: ${mine.map((e) => e.type).join(',')}`);
  }
  const victimStarts = events.filter((e) => e.jobId === victimJob && e.type === 'JobStarted');
  assert.ok(victimStarts.length >= 2, 'the killed worker\'s job was taken again after its lease');
  assert.ok(!victimStarts.at(-1)!.worker!.includes(`/${victimPid}/`), 'by another worker');

  for (const [i, j] of jobs.entries()) {
    if (j.real) assert.equal(finals[i].status, 'completed', `real clip ${j.jobId}: ${JSON.stringify(finals[i])}`);
    else assert.equal(finals[i].error_code, 'video_processing_failed');
  }
  // Both nodes read the same usage: every job ran the engine once and counts once.
  for (const node of nodes) {
    const usage = await Promise.all(keys.map(async (k) => (await call(node, k.api_key, 'GET', '/v1/identity')).body.usage));
    assert.deepEqual(usage, [{ limit: null, used: 5, remaining: null }, { limit: null, used: 5, remaining: null }]);
  }
  assert.equal(workers[1]!.child.exitCode, null, `the surviving worker still runs: ${workers[1]!.output()}`);
});
