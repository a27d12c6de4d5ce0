// Scale-out on PostgreSQL, as on separate machines: two API-only nodes and two `npm run worker`
// processes, each with its own DATA_DIR (its own SQLite read models, fed from the ledger's global
// order), one PostgreSQL ledger (a throwaway server the test starts) and an S3 stand-in for the
// videos. Partners mint on one node, upload to S3 and submit through the other; one worker is
// killed with SIGKILL mid-analysis. Every job ends exactly once, both nodes serve the same answers,
// and `audit verify` and `projections verify` pass on every node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresEventStore } from '../../src/events/store/postgres.js';
import { until } from '../support/engines.js';
import { admin, haveVideos, NO_VIDEOS, repoRoot, startServer, videosDir, type ServerProcess } from '../support/processes.js';
import { NO_POSTGRES, startPostgres, type TestPostgres } from '../support/postgres.js';
import { startS3rver } from '../support/s3rver.js';
import { removeDir } from '../support/remove-dir.js';

const LEASE_SECONDS = 5;
const CLIP = 'pushup_side_homegym.mp4';

let pgServer: TestPostgres | undefined;
before(async () => {
  if (!NO_POSTGRES && haveVideos) pgServer = await startPostgres();
});
after(() => pgServer?.stop());

function startWorker(env: Record<string, string>): { child: ChildProcess; output(): string } {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/runner/main.ts')], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'warn', METRICS_PORT: '0', ...env },
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

async function jobEvents(url: string): Promise<JobEvent[]> {
  const store = await PostgresEventStore.open(url);
  try {
    return (await store.readAll(0, 1_000_000))
      .filter((e) => e.type.startsWith('Job'))
      .map((e) => ({ type: e.type, ...(e.data as { jobId: string; worker?: string }) }));
  } finally {
    await store.close();
  }
}

test('postgres: two API nodes and two workers with separate DATA_DIRs: a worker killed mid-job loses nothing, every job ends once, both nodes answer the same', { skip: NO_POSTGRES ?? (haveVideos ? false : NO_VIDEOS), timeout: 400_000 }, async (t) => {
  const url = await pgServer!.freshDatabase();
  const s3 = await startS3rver(t);
  const dirs = [0, 1, 2, 3].map(() => mkdtempSync(join(tmpdir(), 'rc-pgscale-')));
  t.after(() => dirs.forEach(removeDir));
  const shared = { EVENT_STORE: 'postgres', POSTGRES_URL: url, ...s3.env, JOB_LEASE_SECONDS: String(LEASE_SECONDS) };
  const envOf = (i: number) => ({ ...shared, DATA_DIR: dirs[i]! });
  // Keys made on node 0's machine; node 1 learns them from the ledger.
  const keys = [admin(envOf(0), 'keys', 'create', '--partner-name', 'North').json(), admin(envOf(0), 'keys', 'create', '--partner-name', 'South').json()];

  const nodes: ServerProcess[] = await Promise.all([startServer({ ...envOf(0), WORKER_CONCURRENCY: '0' }), startServer({ ...envOf(1), WORKER_CONCURRENCY: '0' })]);
  t.after(() => Promise.all(nodes.map((n) => n.stop())));
  const workers = [startWorker(envOf(2)), startWorker(envOf(3))];
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

  const clip = readFileSync(join(videosDir, CLIP));
  async function submit(i: number, real: boolean) {
    const key = keys[i % 2].api_key;
    // The key must be known to the minting node's read models (auth): it follows the ledger.
    const minted = await until(async () => {
      const r = await call(nodes[i % 2]!, key, 'POST', '/v1/uploads');
      return r.status === 201 ? r : undefined;
    }, 10_000);
    const put = await fetch(minted.body.upload_url, { method: 'PUT', body: real ? new Uint8Array(clip) : 'not a video', headers: { 'content-type': 'video/mp4' } });
    assert.equal(put.status, 200, await put.text());
    const job = await call(nodes[(i + 1) % 2]!, key, 'POST', '/v1/jobs', { upload_handle: minted.body.handle, exercise_id: 'push-up' });
    assert.equal(job.status, 201, JSON.stringify(job.body));
    return { jobId: job.body.job_id as string, key, real };
  }
  const realJobs = await Promise.all(Array.from({ length: 4 }, (_, i) => submit(i, true)));
  const jobs = [...realJobs, ...(await Promise.all(Array.from({ length: 6 }, (_, i) => submit(4 + i, false))))];
  const realIds = new Set(jobs.filter((j) => j.real).map((j) => j.jobId));

  const victimPid = workers[0]!.child.pid!;
  const victimJob = await until(async () => {
    const events = await jobEvents(url);
    const ended = new Set(events.filter((e) => e.type === 'JobCompleted' || e.type === 'JobFailed').map((e) => e.jobId));
    return events.find((e) => e.type === 'JobStarted' && e.worker?.includes(`/${victimPid}/`) && realIds.has(e.jobId) && !ended.has(e.jobId))?.jobId;
  }, 120_000);
  workers[0]!.child.kill('SIGKILL');
  await exited(workers[0]!.child);

  // Every job reaches a terminal status on BOTH nodes.
  await until(async () => {
    for (const node of nodes) {
      const seen = await Promise.all(jobs.map((j) => call(node, j.key, 'GET', `/v1/jobs/${j.jobId}`)));
      if (!seen.every((s) => ['completed', 'failed'].includes(s.body.status))) return undefined;
    }
    return true;
  }, 200_000);

  const events = await jobEvents(url);
  for (const j of jobs) {
    const outcomes = events.filter((e) => e.jobId === j.jobId && (e.type === 'JobCompleted' || e.type === 'JobFailed'));
    assert.equal(outcomes.length, 1, `job ${j.jobId} ends exactly once`);
  }
  const victimStarts = events.filter((e) => e.jobId === victimJob && e.type === 'JobStarted');
  assert.ok(victimStarts.length >= 2, 'the killed worker\'s job was taken again after its lease');
  assert.ok(!victimStarts.at(-1)!.worker!.includes(`/${victimPid}/`), 'by another worker');

  // The same answers from both nodes, byte for byte: each job, each list, each usage.
  const answers = await Promise.all(nodes.map(async (node) => {
    const perJob = await Promise.all(jobs.map(async (j) => (await call(node, j.key, 'GET', `/v1/jobs/${j.jobId}`)).body));
    const lists = await Promise.all(keys.map(async (k) => (await call(node, k.api_key, 'GET', '/v1/jobs?limit=100')).body));
    const usage = await Promise.all(keys.map(async (k) => (await call(node, k.api_key, 'GET', '/v1/identity')).body.usage));
    return { perJob, lists, usage };
  }));
  assert.deepEqual(answers[1], answers[0], 'node 1 serves what node 0 serves');
  for (const [i, j] of jobs.entries()) {
    const body = answers[0]!.perJob[i];
    if (j.real) assert.equal(body.status, 'completed', `real clip ${j.jobId}: ${JSON.stringify(body)}`);
    else assert.equal(body.error_code, 'video_processing_failed');
  }
  assert.deepEqual(answers[0]!.usage, [{ limit: null, used: 5, remaining: null }, { limit: null, used: 5, remaining: null }]);
  assert.equal(workers[1]!.child.exitCode, null, `the surviving worker still runs: ${workers[1]!.output()}`);

  // Operators on each node: the chain verifies, and each node's read models equal a replay.
  for (const i of [0, 1]) {
    const chain = admin(envOf(i), 'audit', 'verify');
    assert.equal(chain.status, 0, chain.stdout + chain.stderr);
    const models = admin(envOf(i), 'projections', 'verify');
    assert.equal(models.status, 0, models.stdout + models.stderr);
  }
});
