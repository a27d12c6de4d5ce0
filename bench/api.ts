// `npm run bench:api`: the service against bare baselines, measured side by side in one run.
//  1. GET /v1/jobs/{id}: the real server (auth, schemas, read model) vs bare fastify + better-sqlite3.
//  2. Submissions (mint, small PUT, submit) vs raw SQLite appends of the same events, same durability.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { admin, freePort, repoRoot, startServer } from '../test/support/processes.js';
import { load } from './support/load.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const dir = mkdtempSync(join(tmpdir(), 'rc-bench-'));
const env = { DATA_DIR: dir, WORKER_CONCURRENCY: '0', LOG_LEVEL: 'warn', SPOTS_PER_WINDOW: '1000000', UNCLAIMED_BYTES_CAP: '1000000000000' };

try {
  const server = await startServer(env);
  const key = admin(env, 'keys', 'create', '--partner-name', 'Bench').json();
  const auth = { authorization: `Bearer ${key.api_key}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const body = new Uint8Array(1024);

  async function submitOnce(): Promise<string> {
    const spot = await (await fetch(`${server.base}/v1/uploads`, { method: 'POST', headers: auth })).json();
    await (await fetch(spot.upload_url, { method: 'PUT', body, headers: { 'content-type': 'video/mp4' } })).arrayBuffer();
    const job = await fetch(`${server.base}/v1/jobs`, { method: 'POST', headers: json, body: JSON.stringify({ upload_handle: spot.handle, exercise_id: 'squat' }) });
    if (job.status !== 201) throw new Error(`submit: ${job.status}`);
    return (await job.json()).job_id;
  }

  // --- 1. point reads ---------------------------------------------------------------------------
  const jobId = await submitOnce();
  const basePort = await freePort();
  const baseline = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench/support/baseline-server.ts'), join(dir, 'read-models.db'), String(basePort)], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((ok) => baseline.stdout!.once('data', ok));
  const warm = () => load(1, CONCURRENCY, async () => (await fetch(`${server.base}/v1/jobs/${jobId}`, { headers: auth }).then((r) => r.arrayBuffer()), true));
  await warm();
  const ours = await load(SECONDS, CONCURRENCY, async () => {
    const res = await fetch(`${server.base}/v1/jobs/${jobId}`, { headers: auth });
    await res.arrayBuffer();
    return res.status === 200;
  });
  const bare = await load(SECONDS, CONCURRENCY, async () => {
    const res = await fetch(`http://127.0.0.1:${basePort}/jobs/${jobId}`);
    await res.arrayBuffer();
    return res.status === 200;
  });
  baseline.kill();

  // --- 2. submissions ---------------------------------------------------------------------------
  const subs = await load(SECONDS, 4, async () => (await submitOnce(), true));
  await server.stop();

  // Raw appends: the same events (SpotMinted; SpotUploaded; SpotClaimed + JobQueued) in the same
  // three transactions, WAL + synchronous=FULL, no HTTP, no projections, no file write.
  const raw = new Database(join(dir, 'raw.db'));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  raw.exec('CREATE TABLE events (position INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT, revision INTEGER, type TEXT, data TEXT, UNIQUE (stream, revision))');
  const insert = raw.prepare('INSERT INTO events (stream, revision, type, data) VALUES (?, ?, ?, ?)');
  const txn = raw.transaction((rows: [string, number, string, string][]) => rows.forEach((r) => insert.run(...r)));
  let rev = 0;
  let rawCount = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < SECONDS * 1000) {
    const data = JSON.stringify({ handle: `up_${rawCount}`, jobId: `job-${rawCount}`, at: new Date().toISOString() });
    txn([['ledger-bench', rev++, 'SpotMinted', data]]);
    txn([['ledger-bench', rev++, 'SpotUploaded', data]]);
    txn([['ledger-bench', rev++, 'SpotClaimed', data], ['ledger-bench', rev++, 'JobQueued', data]]);
    rawCount++;
  }
  const rawPerSecond = rawCount / ((performance.now() - t0) / 1000);
  raw.close();

  const f = (n: number) => n.toFixed(1);
  console.log(`bench:api  (${SECONDS}s per run, ${CONCURRENCY} concurrent readers, 4 concurrent submitters)\n`);
  console.log('GET /v1/jobs/{id}            req/s      p50 ms   p99 ms   errors');
  console.log(`  service                 ${f(ours.perSecond).padStart(8)}   ${f(ours.p50Ms).padStart(6)}   ${f(ours.p99Ms).padStart(6)}   ${ours.errors}`);
  console.log(`  bare fastify+sqlite     ${f(bare.perSecond).padStart(8)}   ${f(bare.p50Ms).padStart(6)}   ${f(bare.p99Ms).padStart(6)}   ${bare.errors}`);
  console.log(`  throughput ratio ${(ours.perSecond / bare.perSecond).toFixed(2)} (aim >= 0.8), p99 ratio ${(ours.p99Ms / bare.p99Ms).toFixed(2)}\n`);
  console.log('Submissions (mint + 1 KiB PUT + submit)   per second   errors');
  console.log(`  service                               ${f(subs.perSecond).padStart(8)}     ${subs.errors}`);
  console.log(`  raw SQLite appends, same durability    ${f(rawPerSecond).padStart(8)}`);
  console.log(`  ratio ${(subs.perSecond / rawPerSecond).toFixed(2)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
