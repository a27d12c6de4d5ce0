// `npm run bench:queue`: a deep queue must not stall the API (issue 22).
//  1. The pick's cost against the depth: queue/pick.ts at 10 and at N queued jobs of one key (same
//     process, same run), and the query it replaced at N (on a thread, given up after 60 s).
//  2. From outside, as an operator would see it: N jobs of one partner (a real 2 s clip each) are
//     queued on an API-only node (WORKER_CONCURRENCY=0); another partner's GET /v1/identity is timed
//     at a fixed rate for D seconds there (the baseline), then on the same DATA_DIR started as
//     `npm start` runs it (in-process worker, default WORKER_CONCURRENCY) while its worker drains
//     the queue. Prints both latency profiles, the ratio, and the jobs the worker ended in D s.
//     The check issue 22 sets: the busy p99 within 3x the API-only p99 plus 20 ms, no request over
//     500 ms, and at least 40 jobs ended in 20 s (counted from when the service answers, its engine
//     process starting in that window as it does after a real start).
// Env: BENCH_QUEUE_JOBS (1000 here: seeding 5,000 real uploads through the API takes ~10 minutes on
// this shared machine; the issue's check is BENCH_QUEUE_JOBS=5000), BENCH_SECONDS (20), BENCH_RATE
// (identity requests per second, 50), BENCH_SAME_FILE (below).
import { Worker } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { RecordedEvent } from '../src/events/store/port.js';
import { applyBatch, openReadModels } from '../src/projections/runner.js';
import { nextJobs } from '../src/queue/pick.js';
import { admin } from '../test/support/processes.js';
import { startService, stop } from './support/service.js';
import { distinctFile, shortClip } from './support/clip.js';
import { machineIdleMs, serviceCpuMs } from './support/cpu.js';

const JOBS = Number(process.env.BENCH_QUEUE_JOBS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 50);
/**
 * BENCH_SAME_FILE=1: every job the same bytes, so the worker reuses the poses after the first
 * (runner/pose-cache.ts): an extra, reported apart. By default each job is its own file.
 */
const SAME_FILE = process.env.BENCH_SAME_FILE === '1';
const dir = mkdtempSync(join(tmpdir(), 'rc-bench-queue-'));
const base = { DATA_DIR: dir, LOG_LEVEL: 'warn', SPOTS_PER_WINDOW: '1000000', UNCLAIMED_BYTES_CAP: '1000000000000' };

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const f = (n: number) => n.toFixed(1);

/** The read models with `depth` jobs queued on one key and one running (in memory). */
function syntheticQueue(depth: number): Database.Database {
  const db = openReadModels(':memory:');
  const at = '2026-01-01T00:00:00.000Z';
  let position = 0;
  const ev = (type: string, data: object) => ({ stream: 'ledger-key_big', revision: ++position, position, schemaVersion: 2, type, data: { ...data, at }, recordedAt: at }) as unknown as RecordedEvent;
  const batch: RecordedEvent[] = [];
  for (let i = 0; i < depth; i++) {
    batch.push(ev('JobQueued', { jobId: `job_${i}`, handle: `h_${i}`, exerciseId: 'squat' }));
    if (batch.length === 5000) applyBatch(db, batch.splice(0));
  }
  batch.push(ev('JobStarted', { jobId: 'job_0', worker: 'w', attempt: 1, leaseUntil: '2026-01-01T01:00:00.000Z' }));
  applyBatch(db, batch);
  return db;
}

/** Median of `runs` picks, ms. */
function pickCost(db: Database.Database, runs = 200): number {
  const now = new Date('2026-01-01T00:10:00.000Z');
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    nextJobs(db, now, 9);
    times.push(performance.now() - t0);
  }
  return pct(times, 50);
}

/** The query queue/pick.ts replaced, timed once on a thread (it can take minutes at depth). */
const OLD_QUERY = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { readonly: true });
const t0 = performance.now();
db.prepare(\`WITH runnable AS (SELECT * FROM jobs WHERE status = 'queued' OR (status = 'processing' AND lease_until <= @now)),
  keyed AS (SELECT k.key_id,
    (SELECT COUNT(*) FROM jobs p WHERE p.key_id = k.key_id AND p.status = 'processing' AND p.lease_until > @now) AS busy,
    (SELECT MAX(s.started_seq) FROM jobs s WHERE s.key_id = k.key_id) AS last_start
    FROM (SELECT DISTINCT key_id FROM runnable) k),
  turned AS (SELECT r.*, keyed.busy + ROW_NUMBER() OVER (PARTITION BY r.key_id ORDER BY r.seq) AS turn, COALESCE(keyed.last_start, -1) AS last_start
    FROM runnable r JOIN keyed ON keyed.key_id = r.key_id)
  SELECT * FROM turned ORDER BY turn, last_start, seq LIMIT 9\`).all({ now: '2026-01-01T00:10:00.000Z' });
parentPort.postMessage(performance.now() - t0);`;

async function oldQueryMs(path: string): Promise<number | undefined> {
  const worker = new Worker(OLD_QUERY, { eval: true, workerData: { path, driver: import.meta.resolve('better-sqlite3').replace('file://', '') } });
  const timeout = new Promise<undefined>((r) => (setTimeout(r, 60_000) as unknown as NodeJS.Timeout).unref());
  const ms = await Promise.race([new Promise<number>((r) => worker.once('message', r)), timeout]);
  await worker.terminate();
  return ms;
}

/** GET /v1/identity at a fixed rate for SECONDS (open loop: a slow answer does not slow the schedule). */
async function probe(url: string, key: string): Promise<{ latencies: number[]; errors: number; slow: string[] }> {
  const latencies: number[] = [];
  const slow: string[] = []; // when (s into the window) the requests over 200 ms were sent
  let errors = 0;
  const inflight: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < SECONDS * RATE; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inflight.push((async () => {
      const t0 = performance.now();
      try {
        const res = await fetch(`${url}/v1/identity`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        if (res.status !== 200) errors++;
      } catch {
        errors++;
      }
      const ms = performance.now() - t0;
      latencies.push(ms);
      if (ms > 200) slow.push(`${((t0 - start) / 1000).toFixed(1)}s:${ms.toFixed(0)}ms`);
    })());
  }
  await Promise.all(inflight);
  return { latencies, errors, slow };
}

const ended = (path: string): number => {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare<[], { status: string; n: number }>("SELECT status, n FROM job_counts WHERE status IN ('completed', 'failed', 'cancelled')").all();
    return rows.reduce((s, r) => s + r.n, 0);
  } finally {
    db.close();
  }
};

try {
  // --- 1. the pick's cost against the depth ---------------------------------------------------
  const shallow = syntheticQueue(10);
  const deep = syntheticQueue(JOBS);
  const atTen = pickCost(shallow);
  const atDepth = pickCost(deep);
  shallow.close();
  const synthetic = join(dir, 'synthetic.db');
  deep.exec(`VACUUM INTO '${synthetic}'`);
  deep.close();
  const old = await oldQueryMs(synthetic);
  console.log(`bench:queue  (${JOBS} queued jobs of one key)\n`);
  console.log('Picking the next jobs (9 candidates), median of 200');
  console.log(`  queue/pick.ts, 10 queued           ${atTen.toFixed(3)} ms`);
  console.log(`  queue/pick.ts, ${String(JOBS).padEnd(6)} queued       ${atDepth.toFixed(3)} ms   ratio ${(atDepth / atTen).toFixed(2)} (flat: ~1)`);
  console.log(`  the query it replaced, ${String(JOBS).padEnd(6)}       ${old === undefined ? '> 60000' : old.toFixed(0)} ms (one run)\n`);

  // --- 2. the service, from outside ---------------------------------------------------------
  const clip = await shortClip(2);
  const apiOnly = await startService(base, { WORKER_CONCURRENCY: '0' });
  const bulk = admin(base, 'keys', 'create', '--partner-name', 'Bulk').json();
  const other = admin(base, 'keys', 'create', '--partner-name', 'Other').json();
  const auth = { authorization: `Bearer ${bulk.api_key}` };
  let queued = 0;
  const seedStart = performance.now();
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (queued < JOBS) {
      const n = queued++;
      const bytes = SAME_FILE ? clip.bytes : distinctFile(clip.bytes, `bench:queue ${process.pid} ${n}`);
      const spot = await (await fetch(`${apiOnly.base}/v1/uploads`, { method: 'POST', headers: auth })).json();
      await (await fetch(spot.upload_url, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'video/mp4' } })).arrayBuffer();
      const job = await fetch(`${apiOnly.base}/v1/jobs`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ upload_handle: spot.handle, exercise_id: clip.exercise }) });
      if (job.status !== 201) throw new Error(`submit: ${job.status} ${await job.text()}`);
      await job.arrayBuffer();
    }
  }));
  console.log(`Queued ${JOBS} jobs of one partner (${clip.name}, ${clip.bytes.length} bytes each, ${SAME_FILE ? 'the same file in every job: poses reused after the first (an extra)' : 'each job its own file'}) in ${f((performance.now() - seedStart) / 1000)} s\n`);

  const idle = await probe(apiOnly.base, other.api_key);
  await stop(apiOnly.child);

  // As `npm start` runs it: WORKER_CONCURRENCY unset (its default), the worker in this process.
  const readModels = join(dir, 'read-models.db');
  const before = ended(readModels);
  const spawned = performance.now();
  const full = await startService(base);
  const answering = performance.now();
  // CPU over the window: the service's processes by role, this bench (the identity client), and
  // what the machine left idle (a core idle while jobs wait is time the worker could have used).
  const cpu0 = { ...serviceCpuMs(full.child.pid!), bench: process.cpuUsage(), idle: machineIdleMs() };
  // Jobs ended over the window, read from the read models (WAL: a reader beside the service).
  // Also counted from the spawn (the service's own start and its engines' inside the 20 s), when
  // that window ends inside this one.
  let firstEnd: number | undefined;
  let fromSpawn: number | undefined = answering - spawned >= SECONDS * 1000 ? 0 : undefined;
  const watch = setInterval(() => {
    if (firstEnd === undefined && ended(readModels) > before) firstEnd = performance.now() - answering;
    if (fromSpawn === undefined && performance.now() - spawned >= SECONDS * 1000) fromSpawn = ended(readModels) - before;
  }, 250);
  const busy = await probe(full.base, other.api_key);
  clearInterval(watch);
  const drained = ended(readModels) - before;
  const cpu1 = serviceCpuMs(full.child.pid!);
  const windowMs = performance.now() - answering;
  const idleMs = machineIdleMs() - cpu0.idle;
  const benchCpu = process.cpuUsage(cpu0.bench);
  await stop(full.child);

  const row = (label: string, r: { latencies: number[]; errors: number; slow: string[] }) =>
    console.log(`  ${label.padEnd(36)} ${f(pct(r.latencies, 50)).padStart(7)} ${f(pct(r.latencies, 99)).padStart(8)} ${f(Math.max(...r.latencies)).padStart(8)}   ${r.errors}`);
  console.log(`GET /v1/identity of another partner, ${RATE}/s for ${SECONDS} s      p50 ms   p99 ms   max ms   errors`);
  row('API-only node (WORKER_CONCURRENCY=0)', idle);
  row('npm start, worker draining the queue', busy);
  const bound = 3 * pct(idle.latencies, 99) + 20;
  const over500 = busy.latencies.filter((l) => l > 500).length;
  const target = Math.ceil((40 * SECONDS) / 20);
  console.log(`  p99 ratio ${(pct(busy.latencies, 99) / pct(idle.latencies, 99)).toFixed(2)}; bound 3x + 20 ms = ${f(bound)} ms: ${pct(busy.latencies, 99) <= bound ? 'within' : 'OVER'}; requests over 500 ms: ${over500}`);
  if (busy.slow.length) console.log(`  requests over 200 ms with the worker (sent at, took): ${busy.slow.slice(0, 30).join(' ')}`);
  console.log(`  npm start answered ${f((answering - spawned) / 1000)} s after it was started (CPU until then, ms: its own process ${cpu0.api.toFixed(0)}, ` +
    `engine processes ${cpu0.engines.toFixed(0)}, decoders ${cpu0.decoders.toFixed(0)}); its first job ended ${firstEnd === undefined ? 'after the window' : `${f(firstEnd / 1000)} s after that`}`);
  console.log(`  jobs the worker ended in those ${SECONDS} s: ${drained} (${f(drained / SECONDS)}/s; the check asks ${target}); ` +
    `in the first ${SECONDS} s from npm start's spawn: ${fromSpawn ?? '-'}`);
  const perJob = (ms: number) => (drained ? (ms / drained).toFixed(0) : '-');
  const [api, engines, decoders] = (['api', 'engines', 'decoders'] as const).map((k) => cpu1[k] - cpu0[k]);
  console.log(`  CPU in the window, ms (per job ended): npm start's own process ${api!.toFixed(0)} (${perJob(api!)}), engine processes ${engines!.toFixed(0)} (${perJob(engines!)}), ` +
    `decoders ${decoders!.toFixed(0)} (${perJob(decoders!)}); this bench's client ${((benchCpu.user + benchCpu.system) / 1000).toFixed(0)}; ` +
    `the machine idle ${((100 * idleMs) / (cpus().length * windowMs)).toFixed(0)}% of its ${cpus().length} cores' time`);
  console.log(`  check: p99 ${pct(busy.latencies, 99) <= bound ? 'pass' : 'FAIL'}, none over 500 ms ${over500 === 0 ? 'pass' : 'FAIL'}, jobs ${drained >= target ? 'pass' : 'FAIL'} ` +
    `(load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
