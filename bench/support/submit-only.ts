// bench:api's submit-only part (issue 22 measured submissions this way): spots minted and uploaded
// before the clock, then only POST /v1/jobs, driven by autocannon at each concurrency, of one
// partner or spread over several; against raw appends of the same rows (raw-appends.ts, shape
// `submit`: one transaction per job) from as many processes as connections, and against a bare
// HTTP server doing those appends (append-server.ts, one commit per request, no group commit)
// driven by the same client, and the client's own ceiling (that server answering without writing):
// a ceiling above the service's rate shows the client is not what limits the service's figure.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { admin, freePort, repoRoot } from '../../test/support/processes.js';
import { start, stop } from './service.js';
import { cpuMsOf, threadCpuMs, threadsPer } from './cpu.js';

export interface SubmitCase {
  connections: number;
  keys: number;
  service: number;
  bareHttp: number;
  /** The client against a server that writes nothing (its ceiling). */
  client: number;
  raw: number;
  p99Ms: number;
  errors: number;
  /** The service process's CPU time (all its threads, /proc) per job answered: steadier than rates on a shared machine. */
  cpuMsPerJob: number;
  /**
   * The same by thread, largest first (cpu.ts threadsPer: 'main' the event loop, 'WorkerThread' the
   * ledger's writer thread): which side pays what a job costs more at one connection (issue 22u).
   */
  cpuByThread: string;
}

const BODY = new Uint8Array(1024);

interface Spot {
  auth: string;
  handle: string;
}

/** fetch, once more when a kept-alive socket was closed under it (the servers' idle timeout). */
async function fetchRetried(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    return fetch(url, init);
  }
}

/** Mints and uploads `n` spots, round-robin over the keys, 8 at a time; returns them in that order. */
async function prefill(base: string, auths: string[], n: number): Promise<Spot[]> {
  const spots: Spot[] = new Array(n);
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let i = next++; i < n; i = next++) {
      const auth = auths[i % auths.length]!;
      const res = await fetchRetried(`${base}/v1/uploads`, { method: 'POST', headers: { authorization: auth } });
      if (res.status !== 201) throw new Error(`mint: ${res.status} ${await res.text()}`);
      const spot = await res.json();
      const put = await fetchRetried(spot.upload_url, { method: 'PUT', body: BODY, headers: { 'content-type': 'video/mp4' } });
      if (put.status >= 300) throw new Error(`upload: ${put.status}`);
      await put.arrayBuffer();
      spots[i] = { auth, handle: spot.handle };
    }
  }));
  return spots;
}

/** POSTs one job per spot, `connections` at a time; the answers, the time they took, the p99 (ms). */
async function drive(url: string, connections: number, spots: Spot[]) {
  let i = 0;
  // Timed from the first request sent to the last answer read: autocannon's own duration, with
  // `amount`, ends on its once-a-second tick (it rounded 400 jobs in 2.05 s up to whole seconds).
  let first = 0;
  let last = 0;
  const r = await autocannon({
    url,
    connections,
    amount: spots.length,
    requests: [{
      method: 'POST',
      setupRequest: (req) => {
        first ||= performance.now();
        const s = spots[i++ % spots.length]!;
        return { ...req, headers: { ...req.headers, authorization: s.auth, 'content-type': 'application/json' }, body: JSON.stringify({ upload_handle: s.handle, exercise_id: 'squat' }) };
      },
      onResponse: () => {
        last = performance.now();
      },
    }],
  });
  const seconds = Math.max(last - first, 1) / 1000;
  return { ok: r['2xx'], seconds, perSecond: r['2xx'] / seconds, p99Ms: r.latency.p99, errors: r.errors + r.timeouts + r.non2xx };
}

/** Raw appends of the submit shape from `clients` processes at once over `seconds`: jobs per second. */
async function rawAppends(file: string, clients: number, seconds: number): Promise<number> {
  const script = join(repoRoot, 'bench/support/raw-appends.ts');
  const client = (c: number, forSeconds: number, startAt: number) =>
    new Promise<number>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', script, file, String(forSeconds), String(c), String(startAt), 'submit'], { cwd: repoRoot }, (err, stdout) =>
        err ? reject(err) : resolve(Number(stdout.trim()))));
  // The file made (WAL, tables, sealed chain) by one client that appends nothing, before the others
  // start: 32 processes turning a new file to WAL at once got "database is locked" at load ~25.
  await client(0, 0, 0);
  // Processes start in about a second here; every client begins at the same instant after that.
  const startAt = Date.now() + 3_000 + 200 * clients;
  const counts = await Promise.all(Array.from({ length: clients }, (_, c) => client(c, seconds, startAt)));
  return counts.reduce((a, b) => a + b, 0) / seconds;
}

export async function submitOnly(opts: {
  base: string;
  /** The service's process, for its CPU time. */
  pid: number;
  env: Record<string, string>;
  dir: string;
  connections: number[];
  keys: number[];
  jobs: number;
  seconds: number;
  /** Turns each of the service and the raw appends takes per case (BENCH_SUBMIT_ROUNDS). */
  rounds: number;
}): Promise<SubmitCase[]> {
  const out: SubmitCase[] = [];
  const port = await freePort();
  const bare = await start(['--import', 'tsx', join(repoRoot, 'bench/support/append-server.ts'), join(opts.dir, 'bare-appends.db'), String(port)], {}, port);
  try {
    for (const keys of opts.keys) {
      for (const connections of opts.connections) {
        // Fresh keys per case: the partner's state holds only this case's spots and jobs.
        const auths = Array.from({ length: keys }, () => `Bearer ${admin(opts.env, 'keys', 'create', '--partner-name', 'Bench').json().api_key}`);
        const spots = await prefill(opts.base, auths, opts.jobs);
        process.stderr.write(`submit only: ${keys} keys, ${connections} connections: ${spots.length} spots ready\n`);
        // The service and the raw appends take turns, `rounds` times (a slice of the spots, then
        // `seconds` of raw appends), and each side's rate is its total over its own turns: on a
        // shared disk the fsync's cost drifts by several times within a minute, and one turn each
        // would put the two sides in different moments of it.
        const service = { ok: 0, seconds: 0, p99Ms: 0, errors: 0, cpuMs: 0 };
        let rawJobs = 0;
        const slice = Math.ceil(spots.length / opts.rounds);
        // Per thread, summed over the service's turns only (the raw appends' turns in between are idle for it).
        const threadsBefore = new Map<string, number>();
        const threadsAfter = new Map<string, number>();
        const add = (into: Map<string, number>, from: Map<string, number>) => {
          for (const [name, ms] of from) into.set(name, (into.get(name) ?? 0) + ms);
        };
        for (let round = 0; round < opts.rounds; round++) {
          const cpuBefore = cpuMsOf(opts.pid) ?? Number.NaN;
          add(threadsBefore, threadCpuMs(opts.pid));
          const part = await drive(`${opts.base}/v1/jobs`, connections, spots.slice(round * slice, (round + 1) * slice));
          service.cpuMs += (cpuMsOf(opts.pid) ?? Number.NaN) - cpuBefore;
          add(threadsAfter, threadCpuMs(opts.pid));
          service.ok += part.ok;
          service.seconds += part.seconds;
          service.errors += part.errors;
          service.p99Ms = Math.max(service.p99Ms, part.p99Ms);
          rawJobs += (await rawAppends(join(opts.dir, `raw-submit-${out.length}-${round}.db`), connections, opts.seconds)) * opts.seconds;
        }
        const bareHttp = await drive(`http://127.0.0.1:${port}/v1/jobs`, connections, spots);
        const client = await drive(`http://127.0.0.1:${port}/v1/echo`, connections, spots);
        const raw = rawJobs / (opts.seconds * opts.rounds);
        out.push({ connections, keys, service: service.ok / service.seconds, bareHttp: bareHttp.perSecond, client: client.perSecond, raw, p99Ms: service.p99Ms, errors: service.errors, cpuMsPerJob: service.cpuMs / service.ok, cpuByThread: threadsPer(threadsBefore, threadsAfter, service.ok, 2) });
      }
    }
  } finally {
    await stop(bare);
  }
  return out;
}
