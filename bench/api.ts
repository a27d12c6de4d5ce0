// `npm run bench:api`: the service against bare baselines, measured side by side in one run.
//  1. Reads, driven by autocannon at 1, 10 and 64 connections: GET /v1/jobs/{id} of a queued job
//     and of a completed one (its real result), and GET /v1/identity. The service runs as
//     `npm start` runs it (default LOG_LEVEL, logs drained from a pipe, API-only so no job runs);
//     the baseline is bare fastify + better-sqlite3 over a copy of the same tables doing the same
//     point reads and answering the same bodies (support/baseline-server.ts). Each round runs the
//     two back to back per case; the figure is the median over BENCH_ROUNDS rounds. A load client
//     that tops out below the server would flatter the service: the baseline's rate, higher than the
//     service's, shows the client drives faster than the service is measured at.
//  2. Submissions (mint, PUT, submit) vs raw SQLite appends of the same events, same durability.
//  3. The same submissions with EVENT_STORE=postgres (a throwaway local server the bench starts,
//     test/support/postgres.ts) vs raw PostgreSQL INSERTs of the same events in the same
//     transactions from as many clients; skipped, saying why, without PostgreSQL binaries.
// Env: BENCH_SECONDS (per run, 3), BENCH_ROUNDS (3), BENCH_CONNECTIONS (1,10,64).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { admin, freePort, repoRoot } from '../test/support/processes.js';
import { start, startService, stop } from './support/service.js';
import pg from 'pg';
import { load } from './support/load.js';
import { NO_POSTGRES, startPostgres } from '../test/support/postgres.js';
import { shortClip } from './support/clip.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,10,64').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'rc-bench-'));
const env = { DATA_DIR: dir, SPOTS_PER_WINDOW: '1000000', UNCLAIMED_BYTES_CAP: '1000000000000' };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f = (n: number) => n.toFixed(1);

try {
  // --- fixtures: a completed job (the real engine on a real 2 s clip) and a queued one -------------
  const key = admin(env, 'keys', 'create', '--partner-name', 'Bench').json();
  const auth = { authorization: `Bearer ${key.api_key}` };
  const clip = await shortClip(2);
  async function submit(base: string, headers = auth): Promise<string> {
    const spot = await (await fetch(`${base}/v1/uploads`, { method: 'POST', headers })).json();
    await (await fetch(spot.upload_url, { method: 'PUT', body: new Uint8Array(clip.bytes), headers: { 'content-type': 'video/mp4' } })).arrayBuffer();
    const job = await fetch(`${base}/v1/jobs`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ upload_handle: spot.handle, exercise_id: clip.exercise }) });
    if (job.status !== 201) throw new Error(`submit: ${job.status} ${await job.text()}`);
    return (await job.json()).job_id;
  }
  let svc = await startService(env, { WORKER_CONCURRENCY: '1', LOG_LEVEL: 'warn' });
  const completed = await submit(svc.base);
  const deadline = Date.now() + 300_000;
  for (;;) {
    const status = (await (await fetch(`${svc.base}/v1/jobs/${completed}`, { headers: auth })).json()).status;
    if (status === 'completed') break;
    if (status === 'failed' || Date.now() > deadline) throw new Error(`the fixture job ended ${status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop(svc.child);
  svc = await startService(env, { WORKER_CONCURRENCY: '0' });
  const queued = await submit(svc.base);

  const copy = join(dir, 'baseline.db');
  const live = new Database(join(dir, 'read-models.db'), { readonly: true });
  live.exec(`VACUUM INTO '${copy}'`);
  live.close();
  const basePort = await freePort();
  const bare = await start(['--import', 'tsx', join(repoRoot, 'bench/support/baseline-server.ts'), copy, String(basePort)], {}, basePort);
  const bareBase = `http://127.0.0.1:${basePort}`;

  // --- 1. reads ------------------------------------------------------------------------------
  const cases = [
    { name: 'GET /v1/jobs/{id} queued', path: `/v1/jobs/${queued}` },
    { name: 'GET /v1/jobs/{id} completed', path: `/v1/jobs/${completed}` },
    { name: 'GET /v1/identity', path: '/v1/identity' },
  ];
  const run = async (url: string, connections: number, duration: number) => {
    const r = await autocannon({ url, connections, duration, headers: auth });
    if (r.errors || r.timeouts || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
    return r;
  };
  for (const c of cases) {
    await run(svc.base + c.path, 10, 1);
    await run(bareBase + c.path, 10, 1);
  }
  const results = new Map<string, { ours: number[]; bare: number[]; oursP99: number[]; bareP99: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      for (const n of CONNECTIONS) {
        const id = `${c.name}|${n}`;
        const slot = results.get(id) ?? { ours: [], bare: [], oursP99: [], bareP99: [] };
        results.set(id, slot);
        // Alternate which goes first, so a drift in the machine's load does not favour one side.
        const order = round % 2 === 0 ? ['ours', 'bare'] as const : ['bare', 'ours'] as const;
        for (const side of order) {
          const r = await run((side === 'ours' ? svc.base : bareBase) + c.path, n, SECONDS);
          slot[side].push(r.requests.average);
          slot[side === 'ours' ? 'oursP99' : 'bareP99'].push(r.latency.p99);
        }
      }
    }
  }
  await stop(bare);

  // --- 2. submissions ---------------------------------------------------------------------------
  const subs = await load(SECONDS, 4, async () => (await submit(svc.base), true));
  await stop(svc.child);

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

  // --- 3. submissions on PostgreSQL -------------------------------------------------------------
  const onPostgres = NO_POSTGRES ? undefined : await (async () => {
    const server = await startPostgres();
    try {
      const url = await server.freshDatabase();
      const pgEnv = { DATA_DIR: join(dir, 'pg-node'), EVENT_STORE: 'postgres', POSTGRES_URL: url };
      const node = await startService({ ...pgEnv, WORKER_CONCURRENCY: '0' });
      const pgKey = admin({ ...env, ...pgEnv }, 'keys', 'create', '--partner-name', 'Bench').json();
      const pgAuth = { authorization: `Bearer ${pgKey.api_key}` };
      await load(1, 4, async () => (await submit(node.base, pgAuth), true));
      const service = await load(SECONDS, 4, async () => (await submit(node.base, pgAuth), true));
      await stop(node.child);
      // Raw INSERTs of the same events in the same three transactions per submission, from as many
      // clients as submitters, each on its own stream: no lock, no hashing, no HTTP, no projections.
      const pool = new pg.Pool({ connectionString: await server.freshDatabase(), max: 4 });
      await pool.query('CREATE TABLE events (position bigserial PRIMARY KEY, stream text, revision integer, type text, data text, UNIQUE (stream, revision))');
      let count = 0;
      const t1 = performance.now();
      await Promise.all([0, 1, 2, 3].map(async (c) => {
        const client = await pool.connect();
        const txn = async (rows: [string, number, string, string][]) => {
          await client.query('BEGIN');
          for (const r of rows) await client.query('INSERT INTO events (stream, revision, type, data) VALUES ($1, $2, $3, $4)', r);
          await client.query('COMMIT');
        };
        for (let r = 0; performance.now() - t1 < SECONDS * 1000; count++) {
          const data = JSON.stringify({ handle: `up_${c}_${r}`, jobId: `job-${c}-${r}`, at: new Date().toISOString() });
          await txn([[`ledger-${c}`, r++, 'SpotMinted', data]]);
          await txn([[`ledger-${c}`, r++, 'SpotUploaded', data]]);
          await txn([[`ledger-${c}`, r++, 'SpotClaimed', data], [`ledger-${c}`, r++, 'JobQueued', data]]);
        }
        client.release();
      }));
      const raw = count / ((performance.now() - t1) / 1000);
      await pool.end();
      return { service, raw };
    } finally {
      await server.stop();
    }
  })();

  console.log(`bench:api  autocannon, ${SECONDS} s per run, median of ${ROUNDS} rounds; service as npm start runs it (API-only), baseline bare fastify + better-sqlite3 on a copy of the tables\n`);
  console.log('                                   conns   service req/s  p99 ms    bare req/s  p99 ms    ratio');
  let clientAhead = 0;
  for (const c of cases) {
    for (const n of CONNECTIONS) {
      const s = results.get(`${c.name}|${n}`)!;
      const [o, b] = [median(s.ours), median(s.bare)];
      if (b > o) clientAhead++;
      console.log(`  ${c.name.padEnd(32)} ${String(n).padStart(5)}   ${f(o).padStart(13)}  ${f(median(s.oursP99)).padStart(6)}   ${f(b).padStart(11)}  ${f(median(s.bareP99)).padStart(6)}    ${(o / b).toFixed(2)}${o / b < 0.8 ? '  (aim >= 0.8)' : ''}`);
    }
  }
  console.log(`  the client drove the baseline faster than the service in ${clientAhead} of ${cases.length * CONNECTIONS.length} cases (so the client is not what limits the service's figure)\n`);
  console.log('Submissions (mint + PUT of the 2 s clip + submit), 4 concurrent   per second');
  console.log(`  service                                                  ${f(subs.perSecond).padStart(8)}   (${subs.errors} errors)`);
  console.log(`  raw SQLite appends of the same events, same durability  ${f(rawPerSecond).padStart(8)}`);
  console.log(`  ratio ${(subs.perSecond / rawPerSecond).toFixed(2)} (aim >= 0.5)\n`);
  if (!onPostgres) console.log(`Submissions on PostgreSQL: skipped (${NO_POSTGRES})`);
  else {
    console.log('Submissions on PostgreSQL (EVENT_STORE=postgres, local server), 4 concurrent   per second');
    console.log(`  service                                                  ${f(onPostgres.service.perSecond).padStart(8)}   (${onPostgres.service.errors} errors)`);
    console.log(`  raw PostgreSQL INSERTs of the same events, 4 clients     ${f(onPostgres.raw).padStart(8)}`);
    console.log(`  ratio ${(onPostgres.service.perSecond / onPostgres.raw).toFixed(2)}; service on PostgreSQL / on SQLite ${(onPostgres.service.perSecond / subs.perSecond).toFixed(2)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
