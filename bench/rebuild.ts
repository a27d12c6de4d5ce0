// npm run bench:rebuild [-- --events N] [--runs N] [--bulk sql,fold] [--threads 1,2]: how fast `projections rebuild`
// replays the ledger, against a raw better-sqlite3 scan of the same events table in the same run, and
// how long the API is unavailable while a rebuild (the real CLI, another process) swaps the file
// under a loaded server. Each way of replaying the bulk of the ledger named by --bulk (default both:
// 'sql', set-based inside SQLite, the default of the CLI; 'fold', the in-memory fold in JS it falls
// back to) is run in turn with the scans, on one thread and on two when --threads names both (default:
// as the CLI chooses, threadsToUse()). Beside each rebuild's CPU time, this thread's share: with two
// threads, the longer of the two shares bounds the wall time on an idle 2-core machine.
// Everything lives in a temp dir; nothing is written to the repo.
import { execFile } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { decideKey } from '../src/commands/keys.js';
import { buildApp } from '../src/http/app.js';
import { hashApiKey, newApiKey, newKeyId } from '../src/ids.js';
import { rebuild } from '../src/projections/rebuild.js';
import { openService, paths } from '../src/service.js';
import { writeLedger } from './ledger-fixture.js';

const { values } = parseArgs({ options: { events: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '2' }, bulk: { type: 'string', default: 'sql,fold' }, threads: { type: 'string' }, keep: { type: 'boolean' } } });
const EVENTS = Number(values.events);
const RUNS = Number(values.runs);
const BULKS = values.bulk.split(',') as ('sql' | 'fold')[];
if (BULKS.some((m) => m !== 'sql' && m !== 'fold')) throw new Error(`--bulk takes sql and/or fold, got ${values.bulk}`);
const THREADS = values.threads === undefined ? [undefined] : (values.threads.split(',').map(Number) as (1 | 2)[]);
if (THREADS.some((n) => n !== undefined && n !== 1 && n !== 2)) throw new Error(`--threads takes 1 and/or 2, got ${values.threads}`);
const MODES = BULKS.flatMap((bulk) => THREADS.map((threads) => ({ bulk, threads, name: threads ? `${bulk} ${threads}t` : bulk })));
// This thread's CPU time alone (Node 23.9+; @types/node here predates it).
const threadCpuUsage = (prev?: NodeJS.CpuUsage) => (process as unknown as { threadCpuUsage(p?: NodeJS.CpuUsage): NodeJS.CpuUsage }).threadCpuUsage(prev);
const dir = mkdtempSync(join(tmpdir(), 'rc-bench-rebuild-'));
const files = paths(dir);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const log = (s: string) => process.stdout.write(`${s}\n`);

try {
  let t = Date.now();
  const written = writeLedger(files.ledger, { events: EVENTS, keys: 2_000 });
  log(`ledger: ${fmt(written)} events over 2,000 keys written in ${((Date.now() - t) / 1000).toFixed(1)} s (${dir})`);

  // Baseline: the least any replay must do, read every row of the table in position order. Runs
  // alternate with the rebuilds so that noise from other processes hits both alike; best of each.
  const raw = new Database(files.ledger, { readonly: true });
  const scanOnce = (parse: boolean) => {
    const s = Date.now();
    let n = 0;
    for (const row of raw.prepare('SELECT * FROM events ORDER BY position').iterate() as IterableIterator<{ data: string }>) {
      n += parse ? (JSON.parse(row.data) ? 1 : 0) : row.data.length;
    }
    return Date.now() - s;
  };
  // CPU time too (this process, every thread): on a shared machine at a load of 10-40 the wall times
  // say mostly how much of a core each got; the CPU ratio is what the code itself costs.
  const cpuMs = <T>(run: () => T): [T, number] => {
    const before = process.cpuUsage();
    const out = run();
    const used = process.cpuUsage(before);
    return [out, (used.user + used.system) / 1000];
  };
  const scan = { ms: Infinity, cpu: Infinity };
  const scanParse = { ms: Infinity };
  const best = new Map(MODES.map((m) => [m.name, { ms: Infinity, cpu: Infinity, thisThread: 0, size: 0 }]));
  for (let i = 0; i < RUNS; i++) {
    const [ms, cpu] = cpuMs(() => scanOnce(false));
    scan.ms = Math.min(scan.ms, ms);
    scan.cpu = Math.min(scan.cpu, cpu);
    scanParse.ms = Math.min(scanParse.ms, scanOnce(true));
    for (const mode of MODES) {
      const before = process.cpuUsage();
      const beforeHere = threadCpuUsage();
      const r = await rebuild({ ledgerPath: files.ledger, readModelsPath: files.readModels, bulk: mode.bulk, threads: mode.threads });
      const used = process.cpuUsage(before);
      const here = threadCpuUsage(beforeHere);
      if (r.bulk !== mode.bulk) throw new Error(`asked for bulk ${mode.bulk}, the rebuild ran ${r.bulk}`);
      const b = best.get(mode.name)!;
      b.ms = Math.min(b.ms, r.elapsedMs);
      const cpu = (used.user + used.system) / 1000;
      if (cpu < b.cpu) [b.cpu, b.thisThread] = [cpu, (here.user + here.system) / 1000];
      b.size = statSync(realpathSync(files.readModels)).size;
    }
  }
  raw.close();

  const perSecond = (ms: number) => (written * 1000) / ms;
  log('');
  log(`raw scan (SELECT * ... ORDER BY position):        ${fmt(perSecond(scan.ms))} events/s  (${scan.ms} ms)`);
  log(`raw scan + JSON.parse of every event:              ${fmt(perSecond(scanParse.ms))} events/s  (${scanParse.ms} ms)`);
  for (const [mode, b] of best) {
    log(`projections rebuild, bulk ${mode.padEnd(7)} (3 read models): ${fmt(perSecond(b.ms))} events/s  (${b.ms} ms)`);
  }
  log(`(best of ${RUNS} runs each, interleaved)`);
  for (const [mode, b] of best) {
    const longest = Math.max(b.thisThread, b.cpu - b.thisThread);
    log(`bulk ${mode.padEnd(7)}: ratio rebuild / raw scan ${(scan.ms / b.ms).toFixed(2)} (aim >= 0.5), / raw scan + parse ${(scanParse.ms / b.ms).toFixed(2)}; ` +
      `CPU time: raw scan ${Math.round(scan.cpu)} ms, rebuild ${Math.round(b.cpu)} ms (all threads): ratio ${(scan.cpu / b.cpu).toFixed(2)}; ` +
      `this thread ${Math.round(b.thisThread)} ms, the others ${Math.round(b.cpu - b.thisThread)}: scan / the longer ${(scan.cpu / longest).toFixed(2)}; file ${(b.size / 1e6).toFixed(0)} MB`);
  }
  log(`ledger ${(statSync(files.ledger).size / 1e6).toFixed(0)} MB; load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  // Availability: a server in this process under a read + write load while the real CLI rebuilds.
  const config = loadConfig({ DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'silent', SPOTS_PER_WINDOW: '100000000', WORKER_CONCURRENCY: '0' });
  const svc = await openService(config);
  const app = await buildApp(svc, { wakeRunner: () => undefined });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const apiKey = newApiKey();
  const keyId = newKeyId();
  await svc.ledger.handle(keyId, (s) => decideKey({ type: 'IssueKey', keyId, partnerId: 'p_bench', partnerName: 'Bench', keyHash: hashApiKey(apiKey), limit: null, now: new Date().toISOString() }, s));
  const headers = { authorization: `Bearer ${apiKey}` };

  type Sample = { start: number; end: number; ok: boolean; write: boolean };
  const samples: Sample[] = [];
  let running = true;
  const loop = async (method: string, path: string, write: boolean) => {
    while (running) {
      const start = performance.now();
      let ok = false;
      try {
        const res = await fetch(base + path, { method, headers });
        await res.arrayBuffer();
        ok = res.status === 200 || res.status === 201;
      } catch {
        ok = false;
      }
      samples.push({ start, end: performance.now(), ok, write });
    }
  };
  const startLoad = () => {
    running = true;
    return [...Array.from({ length: 6 }, () => loop('GET', '/v1/identity', false)), loop('GET', '/v1/jobs', false), loop('POST', '/v1/uploads', true)];
  };
  const summarize = (from: number, to: number) => {
    const inWindow = samples.filter((s) => s.start >= from && s.end <= to);
    const ends = inWindow.filter((s) => s.ok).map((s) => s.end).sort((a, b) => a - b);
    let gap = 0;
    let gapEnd = 0;
    for (let i = 1; i < ends.length; i++) {
      if (ends[i]! - ends[i - 1]! > gap) [gap, gapEnd] = [ends[i]! - ends[i - 1]!, ends[i]!];
    }
    const lat = (w: boolean) => inWindow.filter((s) => s.write === w).map((s) => s.end - s.start).sort((a, b) => a - b);
    const p = (xs: number[], q: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!.toFixed(1) : '-');
    const reads = lat(false);
    const writes = lat(true);
    return { requests: inWindow.length, failed: inWindow.filter((s) => !s.ok).length, gap: gap.toFixed(1), gapEnd, readP99: p(reads, 0.99), readMax: p(reads, 1), writeP99: p(writes, 0.99), writeMax: p(writes, 1) };
  };

  // The same load without a rebuild first, for comparison.
  let load = startLoad();
  const quietFrom = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  const quietTo = performance.now();
  running = false;
  await Promise.all(load);

  load = startLoad();
  const busyFrom = performance.now();
  // When the live path starts naming the new file: the swap, seen from outside.
  const before = realpathSync(files.readModels);
  let swapAt = 0;
  const watcher = setInterval(() => {
    if (!swapAt && realpathSync(files.readModels) !== before) swapAt = performance.now();
  }, 2);
  const cli = await new Promise<{ code: number; stdout: string }>((resolve) =>
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'projections', 'rebuild'], { env: { ...process.env, DATA_DIR: dir } }, (err, stdout) =>
      resolve({ code: err ? 1 : 0, stdout }),
    ),
  );
  await new Promise((r) => setTimeout(r, 500));
  const busyTo = performance.now();
  running = false;
  clearInterval(watcher);
  await Promise.all(load);
  const report = JSON.parse(cli.stdout.trim().split('\n').pop() ?? '{}');
  const quiet = summarize(quietFrom, quietTo);
  const busy = summarize(busyFrom, busyTo);
  const swap = summarize(swapAt - 500, swapAt + 500);
  await app.close();
  await svc.close();

  log('');
  log(`API during a rebuild by the real CLI (another process), 6 identity readers + 1 list reader + 1 minting writer:`);
  log(`  exit ${cli.code}; rebuild ${fmt(report.events_per_s)} events/s under load; swap fence held the ledger write lock ${report.fence_ms} ms`);
  log(`  ${''.padEnd(20)}requests  failed  longest gap between answers  read p99/max ms  write p99/max ms`);
  for (const [name, s] of [['no rebuild (3 s)', quiet], ['whole rebuild', busy], ['swap +/- 500 ms', swap]] as const) {
    log(`  ${name.padEnd(20)}${String(s.requests).padStart(8)}  ${String(s.failed).padStart(6)}  ${`${s.gap} ms`.padStart(27)}  ${`${s.readP99}/${s.readMax}`.padStart(15)}  ${`${s.writeP99}/${s.writeMax}`.padStart(16)}`);
  }
  log(`  the longest gap of the whole rebuild ended ${((busy.gapEnd - swapAt) / 1000).toFixed(2)} s from the swap (negative: before it)`);
  log(`  unavailable during the swap: ${swap.failed === 0 ? `none (no failed request; longest wait for an answer ${swap.gap} ms)` : `${swap.failed} failed requests`}`);
} finally {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
}
