// `npm run bench:api`: the service against bare baselines, measured side by side in one run.
//  1. Reads, driven by autocannon at 1, 10 and 64 connections: GET /v1/jobs/{id} of a queued job
//     and of a completed one (its real result), and GET /v1/identity. The service runs as
//     `npm start` runs it (default LOG_LEVEL, logs drained from a pipe, API-only so no job runs);
//     the baseline is bare fastify + better-sqlite3 over a copy of the same tables doing the same
//     point reads and answering the same bodies (support/baseline-server.ts). Each round runs the
//     two back to back per case; the figure is the median over BENCH_ROUNDS rounds. A load client
//     that tops out below the server would flatter the service: the baseline's rate, higher than the
//     service's, shows the client drives faster than the service is measured at. Each run also
//     reads both servers' CPU time from /proc (support/cpu.ts): CPU per request, all threads, is
//     what bounds the rate when the server is CPU-bound, and other sessions on a shared machine
//     inflate it far less than they inflate wall-clock rates; its ratio (bare / service) is
//     printed beside the rates' ratio.
//  2. Submissions: BENCH_SUBMITTERS clients of one partner at once (8), each mint, PUT the clip,
//     submit, back to back, vs raw SQLite appends of the same rows in the same three commits with
//     the same pragmas (support/raw-appends.ts), from one connection and from as many processes as
//     clients, the better of the two taken as the baseline.
//  3. Submit only (issue 22's measure, support/submit-only.ts): spots minted and uploaded before the
//     clock, then POST /v1/jobs alone from autocannon at BENCH_SUBMIT_CONNECTIONS (1,8,32), of one
//     partner and spread over BENCH_SUBMIT_KEYS (8), BENCH_SUBMIT_JOBS (600) per case, against raw
//     appends of the same rows (SpotClaimed + JobQueued and their hash rows, one transaction per
//     job, synchronous=FULL) from as many processes as connections, and a bare HTTP server doing
//     those appends driven by the same client. The service and the raw appends take turns
//     BENCH_SUBMIT_ROUNDS (3) times per case, BENCH_SECONDS of raw appends per turn.
//  4. The same submissions with EVENT_STORE=postgres (a throwaway local server the bench starts,
//     test/support/postgres.ts) vs raw PostgreSQL INSERTs of the same events in the same
//     transactions from as many clients; skipped, saying why, without PostgreSQL binaries.
// Env: BENCH_SECONDS (per run, 3), BENCH_ROUNDS (3), BENCH_CONNECTIONS (1,10,64), BENCH_SUBMITTERS (8),
// BENCH_PARTS (reads,submissions,submit,postgres: the parts to run).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { admin, freePort, repoRoot } from '../test/support/processes.js';
import { start, startService, stop } from './support/service.js';
import pg from 'pg';
import { load } from './support/load.js';
import { NO_POSTGRES, startPostgres } from '../test/support/postgres.js';
import { shortClip } from './support/clip.js';
import { submitOnly } from './support/submit-only.js';
import { cpuMsOf } from './support/cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,10,64').split(',').map(Number);
const SUBMITTERS = Number(process.env.BENCH_SUBMITTERS ?? 8);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'reads,submissions,submit,postgres').split(','));
const dir = mkdtempSync(join(tmpdir(), 'rc-bench-'));
const env = { DATA_DIR: dir, SPOTS_PER_WINDOW: '1000000', UNCLAIMED_BYTES_CAP: '1000000000000' };

/**
 * The raw-append baseline (support/raw-appends.ts): one client alone, then SUBMITTERS clients at
 * once, each a process of its own on its own connection; submissions per second.
 */
async function rawAppends(prefix: string): Promise<{ alone: number; concurrent: number }> {
  const script = join(repoRoot, 'bench/support/raw-appends.ts');
  const once = (file: string, client: number, startAt: number) =>
    new Promise<number>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', script, file, String(SECONDS), String(client), String(startAt), 'flow'], { cwd: repoRoot }, (err, stdout) =>
        err ? reject(err) : resolve(Number(stdout.trim()))),
    );
  // Processes start in about a second here; every client begins at the same instant after that.
  const alone = (await once(`${prefix}-alone.db`, 0, Date.now() + 3_000)) / SECONDS;
  const startAt = Date.now() + 3_000 + 200 * SUBMITTERS;
  const counts = await Promise.all(Array.from({ length: SUBMITTERS }, (_, c) => once(`${prefix}-concurrent.db`, c, startAt)));
  return { alone, concurrent: counts.reduce((a, b) => a + b, 0) / SECONDS };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const f = (n: number) => n.toFixed(1);

try {
  // --- fixtures: a completed job (the real engine on a real 2 s clip) and a queued one -------------
  const key = admin(env, 'keys', 'create', '--partner-name', 'Bench').json();
  const auth = { authorization: `Bearer ${key.api_key}` };
  const clip = await shortClip(2);
  async function submit(base: string, headers = auth): Promise<string> {
    const minted = await fetch(`${base}/v1/uploads`, { method: 'POST', headers });
    if (minted.status !== 201) throw new Error(`mint: ${minted.status} ${await minted.text()}`);
    const spot = await minted.json();
    const put = await fetch(spot.upload_url, { method: 'PUT', body: new Uint8Array(clip.bytes), headers: { 'content-type': 'video/mp4' } });
    await put.arrayBuffer();
    if (put.status !== 200) throw new Error(`upload: ${put.status}`);
    const job = await fetch(`${base}/v1/jobs`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ upload_handle: spot.handle, exercise_id: clip.exercise }) });
    if (job.status !== 201) throw new Error(`submit: ${job.status} ${await job.text()}`);
    return (await job.json()).job_id;
  }
  const results = new Map<string, { ours: number[]; bare: number[]; oursP99: number[]; bareP99: number[]; oursCpu: number[]; bareCpu: number[] }>();
  const cases: { name: string; path: string }[] = [];
  let svc: Awaited<ReturnType<typeof startService>>;
  if (!PARTS.has('reads')) svc = await startService(env, { WORKER_CONCURRENCY: '0' });
  else {
    svc = await startService(env, { WORKER_CONCURRENCY: '1', LOG_LEVEL: 'warn' });
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
    // The service leaves a completed job's result in the SQLite ledger (projections/job-results.ts);
    // the baseline stays the bare server that reads it inline from the job's row, as before.
    const bareDb = new Database(copy);
    const ledgerDb = new Database(join(dir, 'ledger.db'), { readonly: true });
    const resultOf = ledgerDb.prepare<[number], { data: string }>('SELECT data FROM events WHERE position = ?');
    for (const { job_id, result_at } of bareDb.prepare<[], { job_id: string; result_at: number }>("SELECT job_id, result_at FROM jobs WHERE status = 'completed' AND result IS NULL").all()) {
      bareDb.prepare('UPDATE jobs SET result = ? WHERE job_id = ?').run(JSON.stringify(JSON.parse(resultOf.get(result_at)!.data).result), job_id);
    }
    bareDb.close();
    ledgerDb.close();
    const basePort = await freePort();
    const bare = await start(['--import', 'tsx', join(repoRoot, 'bench/support/baseline-server.ts'), copy, String(basePort)], {}, basePort);
    const bareBase = `http://127.0.0.1:${basePort}`;

    // --- 1. reads ------------------------------------------------------------------------------
    cases.push(
      { name: 'GET /v1/jobs/{id} queued', path: `/v1/jobs/${queued}` },
      { name: 'GET /v1/jobs/{id} completed', path: `/v1/jobs/${completed}` },
      { name: 'GET /v1/identity', path: '/v1/identity' },
    );
    const run = async (url: string, connections: number, duration: number) => {
      const r = await autocannon({ url, connections, duration, headers: auth });
      if (r.errors || r.timeouts || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
      return r;
    };
    for (const c of cases) {
      await run(svc.base + c.path, 10, 1);
      await run(bareBase + c.path, 10, 1);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of cases) {
        for (const n of CONNECTIONS) {
          const id = `${c.name}|${n}`;
          const slot = results.get(id) ?? { ours: [], bare: [], oursP99: [], bareP99: [], oursCpu: [], bareCpu: [] };
          results.set(id, slot);
          // Alternate which goes first, so a drift in the machine's load does not favour one side.
          const order = round % 2 === 0 ? ['ours', 'bare'] as const : ['bare', 'ours'] as const;
          for (const side of order) {
            const pid = (side === 'ours' ? svc.child : bare).pid!;
            const cpu0 = cpuMsOf(pid)!;
            const r = await run((side === 'ours' ? svc.base : bareBase) + c.path, n, SECONDS);
            slot[side].push(r.requests.average);
            slot[side === 'ours' ? 'oursP99' : 'bareP99'].push(r.latency.p99);
            // µs of the server's CPU per answered request
            slot[side === 'ours' ? 'oursCpu' : 'bareCpu'].push(((cpuMsOf(pid)! - cpu0) * 1000) / r.requests.total);
          }
        }
      }
    }
    await stop(bare);
  }

  // --- 2. submissions ---------------------------------------------------------------------------
  // SUBMITTERS clients of one partner (one key) at once, each mint + PUT + submit back to back.
  const subs = PARTS.has('submissions') ? await load(SECONDS, SUBMITTERS, async () => (await submit(svc.base), true)) : undefined;
  // --- 3. submit only -----------------------------------------------------------------------------
  const submitCases = PARTS.has('submit')
    ? await submitOnly({
      base: svc.base,
      pid: svc.child.pid!,
      env,
      dir,
      connections: (process.env.BENCH_SUBMIT_CONNECTIONS ?? '1,8,32').split(',').map(Number),
      keys: [1, Number(process.env.BENCH_SUBMIT_KEYS ?? 8)],
      jobs: Number(process.env.BENCH_SUBMIT_JOBS ?? 600),
      seconds: SECONDS,
      rounds: Number(process.env.BENCH_SUBMIT_ROUNDS ?? 3),
    })
    : [];
  await stop(svc.child);
  const rawSqlite = subs && (await rawAppends(join(dir, 'raw')));

  // --- 4. submissions on PostgreSQL -------------------------------------------------------------
  const onPostgres = NO_POSTGRES || !PARTS.has('postgres') ? undefined : await (async () => {
    const server = await startPostgres();
    try {
      const url = await server.freshDatabase();
      // The same limits as the SQLite node's (env): without them the default spot window (100 an
      // hour) refused most mints here, the 429s counted as errors (issue 22's "169 errors").
      const pgEnv = { ...env, DATA_DIR: join(dir, 'pg-node'), EVENT_STORE: 'postgres', POSTGRES_URL: url };
      const node = await startService({ ...pgEnv, WORKER_CONCURRENCY: '0' });
      const pgKey = admin(pgEnv, 'keys', 'create', '--partner-name', 'Bench').json();
      const pgAuth = { authorization: `Bearer ${pgKey.api_key}` };
      await load(1, SUBMITTERS, async () => (await submit(node.base, pgAuth), true));
      const service = await load(SECONDS, SUBMITTERS, async () => (await submit(node.base, pgAuth), true));
      await stop(node.child);
      // Raw INSERTs of the same events in the same three transactions per submission, from as many
      // clients as submitters, each on its own stream: no lock, no hashing, no HTTP, no projections.
      const pool = new pg.Pool({ connectionString: await server.freshDatabase(), max: SUBMITTERS });
      await pool.query('CREATE TABLE events (position bigserial PRIMARY KEY, stream text, revision integer, type text, data text, UNIQUE (stream, revision))');
      let count = 0;
      const t1 = performance.now();
      await Promise.all(Array.from({ length: SUBMITTERS }, (_, c) => c).map(async (c) => {
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

  if (cases.length > 0) {
    console.log(`bench:api  autocannon, ${SECONDS} s per run, median of ${ROUNDS} rounds; service as npm start runs it (API-only), baseline bare fastify + better-sqlite3 on a copy of the tables; load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
    console.log('                                   conns   service req/s  p99 ms    bare req/s  p99 ms    ratio   CPU µs/req service  bare  ratio');
    let clientAhead = 0;
    for (const c of cases) {
      for (const n of CONNECTIONS) {
        const s = results.get(`${c.name}|${n}`)!;
        const [o, b] = [median(s.ours), median(s.bare)];
        const [oc, bc] = [median(s.oursCpu), median(s.bareCpu)];
        if (b > o) clientAhead++;
        const cpu = `${f(oc).padStart(18)}  ${f(bc).padStart(5)}   ${(bc / oc).toFixed(2)}`;
        console.log(`  ${c.name.padEnd(32)} ${String(n).padStart(5)}   ${f(o).padStart(13)}  ${f(median(s.oursP99)).padStart(6)}   ${f(b).padStart(11)}  ${f(median(s.bareP99)).padStart(6)}    ${(o / b).toFixed(2)}${o / b < 0.8 ? '*' : ' '}  ${cpu}${bc / oc < 0.8 ? '*' : ''}`);
      }
    }
    console.log(`  * below the aim of 0.8. The client drove the baseline faster than the service in ${clientAhead} of ${cases.length * CONNECTIONS.length} cases (so the client is not what limits the service's figure)\n`);
  }
  if (subs && rawSqlite) {
    const rawBest = Math.max(rawSqlite.alone, rawSqlite.concurrent);
    console.log(`Submissions: mint + PUT of the ${clip.bytes.length.toLocaleString('en-US')}-byte clip + submit, ${SUBMITTERS} clients of one partner at once   per second`);
    console.log(`  service (npm start, API-only), every answer after its commit   ${f(subs.perSecond).padStart(8)}   p50 ${f(subs.p50Ms)} ms, p99 ${f(subs.p99Ms)} ms per submission (${subs.errors} errors)`);
    console.log(`  raw SQLite appends of the same 4 rows in the same 3 commits,`);
    console.log(`    WAL + synchronous=FULL, one connection                      ${f(rawSqlite.alone).padStart(8)}`);
    console.log(`    the same from ${SUBMITTERS} connections (processes) at once${' '.repeat(Math.max(0, 17 - String(SUBMITTERS).length))}${f(rawSqlite.concurrent).padStart(8)}`);
    console.log(`  ratio service / the better raw figure ${(subs.perSecond / rawBest).toFixed(2)} (aim >= 0.5)\n`);
  }
  if (submitCases.length > 0) {
    console.log(`Submit only: POST /v1/jobs of spots minted and uploaded before the clock, autocannon, jobs per second`);
    console.log('  keys  conns   service  p99 ms  errors  CPU ms/job   bare HTTP + raw append   client ceiling   raw appends (processes)   ratio service/raw');
    for (const c of submitCases) {
      console.log(`  ${String(c.keys).padStart(4)}  ${String(c.connections).padStart(5)}  ${f(c.service).padStart(8)}  ${f(c.p99Ms).padStart(6)}  ${String(c.errors).padStart(6)}  ${c.cpuMsPerJob.toFixed(2).padStart(10)}   ${f(c.bareHttp).padStart(22)}   ${f(c.client).padStart(14)}   ${f(c.raw).padStart(23)}   ${(c.service / c.raw).toFixed(2)}${c.service / c.raw < 0.5 ? '  (aim >= 0.5)' : ''}`);
    }
    console.log('  CPU ms a job by thread (main: the event loop; WorkerThread: the ledger\'s writer thread; V8Worker: V8\'s helpers; libuv-worker: the fs pool)');
    for (const c of submitCases) console.log(`  ${String(c.keys).padStart(4)}  ${String(c.connections).padStart(5)}  ${c.cpuByThread}`);
    const ahead = submitCases.filter((c) => c.client > c.service).length;
    console.log(`  the client's ceiling was above the service's rate in ${ahead} of ${submitCases.length} cases (so the client is not what limits the service's figure there)`);
    console.log('  the bare HTTP server commits each request alone (no group commit); the raw appends run one process per connection\n');
  }
  if (!onPostgres) console.log(`Submissions on PostgreSQL: skipped (${NO_POSTGRES ?? 'not in BENCH_PARTS'})`);
  else {
    console.log(`Submissions on PostgreSQL (EVENT_STORE=postgres, local server), ${SUBMITTERS} concurrent   per second`);
    console.log(`  service                                                  ${f(onPostgres.service.perSecond).padStart(8)}   (${onPostgres.service.errors} errors)`);
    for (const [what, n] of Object.entries(onPostgres.service.failures)) console.log(`    ${n} x ${what}`);
    console.log(`  raw PostgreSQL INSERTs of the same events, ${SUBMITTERS} clients     ${f(onPostgres.raw).padStart(8)}`);
    console.log(`  ratio ${(onPostgres.service.perSecond / onPostgres.raw).toFixed(2)}; service on PostgreSQL / on SQLite ${subs ? (onPostgres.service.perSecond / subs.perSecond).toFixed(2) : '-'}`);
  }
} finally {
  // A failed run may leave a server writing there: say so rather than hide the run's own error.
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (err) {
    console.error(`bench:api: could not remove ${dir}: ${String(err)}`);
  }
}
