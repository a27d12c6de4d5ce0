// Crashes: the real server process (`node --import tsx src/http/server.ts`, as `npm start` runs it)
// under a submission and polling load, killed with SIGKILL at random moments and restarted on the
// same DATA_DIR. Nothing acknowledged may be lost, and the read models and the usage must always
// equal a replay of the ledger.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fold, remaining } from '../../src/commands/state.js';
import { keyIdOfStream } from '../../src/events/ledger.js';
import type { EventStore, RecordedEvent } from '../../src/events/store/port.js';
import { PostgresEventStore } from '../../src/events/store/postgres.js';
import { NO_POSTGRES, startPostgres } from '../support/postgres.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { applyBatch, checkpointOf, openReadModels } from '../../src/projections/runner.js';
import { paths } from '../../src/service.js';
import { admin, freePort, repoRoot } from '../support/processes.js';
import { budget, LONG, tally } from './support/budget.js';
import { dumpReadModels } from './support/fixtures.js';

const counts = tally();
const LEASE_SECONDS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rand = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

interface Server { child: ChildProcess; exited: Promise<number | null>; output: () => string }

async function boot(env: Record<string, string>, base: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/http/server.ts')], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out = (out + d).slice(-20_000)));
  child.stderr!.on('data', (d) => (out = (out + d).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  for (const deadline = Date.now() + 30_000; ; await sleep(50)) {
    if (child.exitCode !== null) throw new Error(`server exited at boot: ${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL'); // never left running (it would hold DATA_DIR and keep the test process alive)
      throw new Error(`server did not boot in 30 s: ${out}`);
    }
    try {
      if ((await fetch(`${base}/livez`)).ok) return { child, exited, output: () => out };
    } catch {
      /* not listening yet */
    }
  }
}

/** Where the ledger lives: DATA_DIR/ledger.db (the default) or a PostgreSQL database (EVENT_STORE=postgres). */
interface LedgerUnderTest {
  /** Env knobs every process gets. */
  env: Record<string, string>;
  open(dataDir: string): Promise<EventStore>;
  /** The SQLite ledger's path, where the service leaves completed jobs' results (projections/job-results.ts). */
  resultsIn?(dataDir: string): string;
}

async function allEvents(ledger: LedgerUnderTest, dataDir: string): Promise<RecordedEvent[]> {
  const store = await ledger.open(dataDir);
  try {
    return await store.readAll(0, Number.MAX_SAFE_INTEGER);
  } finally {
    await store.close();
  }
}

/** Usage of every key as a fresh fold of its stream says. */
function replayUsage(events: readonly RecordedEvent[]) {
  const byKey = new Map<string, RecordedEvent[]>();
  for (const e of events) byKey.set(keyIdOfStream(e.stream), [...(byKey.get(keyIdOfStream(e.stream)) ?? []), e]);
  return new Map([...byKey].map(([keyId, stream]) => {
    const state = fold(stream);
    return [keyId, { limit: state.limit, used: state.used, remaining: remaining(state), held: state.held }];
  }));
}

/**
 * With no process running: the read models must be exactly the projection of the events up to
 * their checkpoint (the checkpoint and the rows commit together), and their usage a replay.
 */
async function checkAtRest(ledger: LedgerUnderTest, dataDir: string, scratch: string) {
  const files = paths(dataDir);
  const events = await allEvents(ledger, dataDir);
  const live = openReadModels(files.readModels);
  const freshPath = join(scratch, `rebuild-${randomBytes(4).toString('hex')}.db`);
  const fresh = openReadModels(freshPath, undefined, ledger.resultsIn?.(dataDir));
  try {
    const checkpoint = checkpointOf(live);
    assert.ok(checkpoint <= (events.at(-1)?.position ?? 0), 'the checkpoint never runs ahead of the ledger');
    const projected = events.filter((e) => e.position <= checkpoint);
    applyBatch(fresh, projected);
    assert.deepEqual(dumpReadModels(live), dumpReadModels(fresh), `the read models equal a rebuild from the events up to ${checkpoint}`);
    const keys = live.prepare('SELECT key_id, limit_n, used, held FROM keys').all() as { key_id: string; limit_n: number | null; used: number; held: number }[];
    const replay = replayUsage(projected);
    for (const k of keys) {
      const r = replay.get(k.key_id)!;
      assert.deepEqual({ limit: k.limit_n, used: k.used, held: k.held }, { limit: r.limit, used: r.used, held: r.held }, `usage of ${k.key_id} equals a replay`);
    }
  } finally {
    live.close();
    fresh.close();
    rmSync(freshPath, { force: true });
    rmSync(`${freshPath}-wal`, { force: true });
    rmSync(`${freshPath}-shm`, { force: true });
  }
}

function crashTest(name: string, skip: string | undefined, setup: () => Promise<LedgerUnderTest & { stop(): Promise<void> }>) {
  test(`${name}: SIGKILL at random moments under load: nothing acknowledged is lost; usage and read models equal a replay of the ledger`, { skip: skip ?? false, timeout: LONG ? 1_800_000 : 170_000 }, async (t) => {
    const ledger = await setup();
    t.after(() => ledger.stop());
    const kills = budget(3, 40);
    const dataDir = mkdtempSync(join(tmpdir(), 'rc-crash-'));
    const scratch = mkdtempSync(join(tmpdir(), 'rc-crash-scratch-'));
    t.after(() => {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    });
    const [port, storagePort] = [await freePort(), await freePort()];
    const env = {
      ...ledger.env, DATA_DIR: dataDir, PORT: String(port), STORAGE_PORT: String(storagePort), LOG_LEVEL: 'warn',
      WORKER_CONCURRENCY: '1', JOB_LEASE_SECONDS: String(LEASE_SECONDS), PROVIDER_RETRIES: '0', SPOTS_PER_WINDOW: '1000000',
    };
    const base = `http://127.0.0.1:${port}`;
    // A capped key that runs out under load (429s, and cancels giving units back) and an uncapped one.
    const keys = [
      admin({ ...ledger.env, DATA_DIR: dataDir }, 'keys', 'create', '--partner-name', 'Capped', '--limit', String(budget(30, 300))).json() as { api_key: string; key_id: string },
      admin({ ...ledger.env, DATA_DIR: dataDir }, 'keys', 'create', '--partner-name', 'Uncapped').json() as { api_key: string; key_id: string },
    ];

    // What the partners were told: these must survive every crash.
    const acked = new Map<string, { key: number; handle: string }>();
    const uploaded = new Map<string, number>();
    const problems: string[] = [];
    let requests = 0;
    let stop = false;

    async function call(key: number, method: string, path: string, body?: unknown) {
      requests++;
      const res = await fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${keys[key]!.api_key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      if (res.status >= 500) problems.push(`${method} ${path}: ${res.status} ${text}`);
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    }

    async function partner(key: number) {
      while (!stop) {
        try {
          const spot = await call(key, 'POST', '/v1/uploads');
          if (spot.status !== 201) {
            await sleep(50);
            continue;
          }
          const put = await fetch(spot.body.upload_url, { method: 'PUT', body: randomBytes(rand(1, 4096)), headers: { 'content-type': 'video/mp4' }, signal: AbortSignal.timeout(10_000) });
          if (put.status !== 200) continue;
          uploaded.set(spot.body.handle, key);
          const submission = { upload_handle: spot.body.handle, exercise_id: Math.random() < 0.5 ? 'squat' : 'push-up' };
          const job = await call(key, 'POST', '/v1/jobs', submission);
          if (job.status === 201) acked.set(job.body.job_id, { key, handle: spot.body.handle });
          // Resubmit (as a partner whose first answer was lost would): the same job, never a second.
          const again = await call(key, 'POST', '/v1/jobs', submission);
          if (again.status === 201 && job.status === 201 && again.body.job_id !== job.body.job_id) problems.push(`handle ${spot.body.handle} got two jobs`);
          if (again.status === 201) acked.set(again.body.job_id, { key, handle: spot.body.handle });
          const mine = [...acked].filter(([, a]) => a.key === key);
          const [someJob] = mine[rand(0, mine.length - 1)] ?? [];
          if (someJob && Math.random() < 0.3) await call(key, 'POST', `/v1/jobs/${someJob}/cancel`);
          if (someJob) {
            const polled = await call(key, 'GET', `/v1/jobs/${someJob}`);
            if (polled.status === 404) problems.push(`job ${someJob} got a 201 and then a 404`);
          }
        } catch {
          await sleep(20); // the server is down: a partner retries
        }
      }
    }

    let server = await boot(env, base);
    t.after(() => {
      stop = true;
      if (server.child.exitCode === null) server.child.kill('SIGKILL'); // a failed assertion must not leave it running
    });
    const load = [0, 0, 0, 1, 1, 1].map((k) => partner(k));
    try {
      for (let i = 0; i < kills; i++) {
        await sleep(rand(200, 1500));
        server.child.kill('SIGKILL');
        await server.exited;
        await checkAtRest(ledger, dataDir, scratch);
        server = await boot(env, base);
      }
    } finally {
      stop = true;
      await Promise.all(load);
    }

    // Quiet: every job leaves processing once its lease is over and the restarted runner takes it.
    const deadline = Date.now() + (LEASE_SECONDS * 4 + 60) * 1000;
    let live: { job_id: string; status: string }[] = [];
    for (; Date.now() < deadline; await sleep(250)) {
      live = [];
      for (const key of [0, 1]) {
        for (const status of ['queued', 'processing']) live.push(...(await call(key, 'GET', `/v1/jobs?status=${status}&limit=1000`)).body.jobs);
      }
      if (live.length === 0) break;
    }
    assert.deepEqual(live, [], `no job stays queued or processing after its lease (WORKER_CONCURRENCY=1 takes every job): ${live.length} of ${acked.size} acknowledged left`);

    let lost = 0;
    for (const [jobId, { key, handle }] of acked) {
      const job = await call(key, 'GET', `/v1/jobs/${jobId}`);
      if (job.status !== 200) (lost++, problems.push(`job ${jobId} got a 201, now ${job.status}`));
      const upload = await call(key, 'GET', `/v1/uploads/${handle}`);
      if (upload.body?.state !== 'claimed') problems.push(`handle ${handle} of job ${jobId} is ${upload.body?.state}`);
    }
    for (const [handle, key] of uploaded) {
      const upload = await call(key, 'GET', `/v1/uploads/${handle}`);
      if (!['uploaded', 'claimed'].includes(upload.body?.state)) (lost++, problems.push(`upload ${handle} got a 200, now ${upload.status} ${JSON.stringify(upload.body)}`));
    }

    const replay = replayUsage(await allEvents(ledger, dataDir));
    for (const [i, key] of keys.entries()) {
      const identity = await call(i, 'GET', '/v1/identity');
      const { held: _held, ...usage } = replay.get(key.key_id)!;
      assert.deepEqual(identity.body.usage, usage, `identity usage of key ${i} equals a fresh replay of the ledger`);
    }

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, `graceful stop: ${server.output()}`);
    await checkAtRest(ledger, dataDir, scratch);
    const checkpoint = (() => {
      const db = openReadModels(paths(dataDir).readModels);
      try {
        return checkpointOf(db);
      } finally {
        db.close();
      }
    })();
    assert.equal(checkpoint, (await allEvents(ledger, dataDir)).at(-1)?.position, 'after a graceful stop the read models hold every event');

    counts.add({ kills, steps: requests, lost, violations: problems.length });
    t.diagnostic(`kills ${kills}, requests ${requests}, jobs acknowledged ${acked.size}, uploads acknowledged ${uploaded.size}`);
    assert.deepEqual(problems, [], 'nothing acknowledged was lost, no 5xx, no second job for a handle');
    assert.ok(acked.size > 0 && uploaded.size > 0, 'the load did acknowledge work');

    // What the operator runs on what the crashes left: the chain and the read models verify.
    const operator = { ...ledger.env, DATA_DIR: dataDir };
    const chain = admin(operator, 'audit', 'verify');
    assert.equal(chain.status, 0, `audit verify: ${chain.stdout}${chain.stderr}`);
    const models = admin(operator, 'projections', 'verify');
    assert.equal(models.status, 0, `projections verify: ${models.stdout}${models.stderr}`);
  });
}

crashTest('sqlite', undefined, async () => ({
  env: {},
  open: async (dataDir) => new SqliteEventStore(paths(dataDir).ledger),
  resultsIn: (dataDir) => paths(dataDir).ledger,
  stop: async () => {},
}));

crashTest('postgres', NO_POSTGRES, async () => {
  const server = await startPostgres();
  const url = await server.freshDatabase();
  return {
    env: { EVENT_STORE: 'postgres', POSTGRES_URL: url },
    open: () => PostgresEventStore.open(url),
    stop: () => server.stop(),
  };
});
