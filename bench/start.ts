// `npm run bench:start`: what a freshly started service pays before its first jobs (issue 22: 40
// jobs of a deep queue ended in the first 20 s of `npm start`, its start included). Two parts,
// each against the way it was done before, in turn, BENCH_ROUNDS times (3):
//  1. The API process (WORKER_CONCURRENCY=0, empty DATA_DIR): time until /livez answers and the CPU
//     of its whole process tree by then, started as `npm start` runs it, against a baseline:
//     BENCH_START_BASE=DIR, a checkout of the code to compare with (with its node_modules: `git
//     worktree add DIR REV` and a symlink to this one's), started as its own package.json starts
//     it; by default the same code with the route schemas compiled at start, as before issue 22s
//     (bench/support/schemas-compiled-at-start.cjs). (Issue 22m measured Node's type stripping
//     against the tsx CLI here: docs/benchmarks.md.)
//  2. One engine process (runner/engine-child.ts), forked as runner/engine-host.ts does: the CPU of
//     its tree (itself, its spare decoder and what it ran to set that up) once it is idle, with the
//     models loaded and warmed and the spare decoder started. Now: Node's type stripping, the
//     unpacked models from MODEL_CACHE_DIR, the confinement the host found handed over. Before:
//     tsx's loader, the models unpacked from their packs (an unwritable cache), the confinement
//     found by the engine itself (a trial sandbox and four ldd runs).
// Both sides run with warm caches (tsx's and Node's compile cache): a machine's first start pays
// more on either side.
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { foundConfinement } from '../src/analysis/decoder/confine.js';
import type { HostMessage } from '../src/runner/engine-protocol.js';
import { freePort, repoRoot, startArgs, startArgsIn } from '../test/support/processes.js';
import { descendantsCpuMs } from './support/cpu.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Starts the API with `args` (after node) in `cwd`, returns seconds until /livez answers and the tree's CPU ms by then. */
async function apiStart(args: string[], cwd = repoRoot): Promise<{ s: number; cpu: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'rc-bench-start-'));
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd, stdio: 'ignore',
    env: { ...process.env, DATA_DIR: dir, PORT: String(port), STORAGE_PORT: String(await freePort()), METRICS_PORT: '0', WORKER_CONCURRENCY: '0', LOG_LEVEL: 'warn' },
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited early`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/livez`)).ok) break;
      } catch {
        // not yet
      }
      await sleep(50);
    }
    return { s: (performance.now() - t0) / 1000, cpu: descendantsCpuMs(process.pid, true) };
  } finally {
    await new Promise((r) => { child.once('exit', r); child.kill('SIGKILL'); });
    rmSync(dir, { recursive: true, force: true });
  }
}

const enginePath = fileURLToPath(new URL('../src/runner/engine-child.ts', import.meta.url));
const tsLoader = fileURLToPath(new URL('../src/runtime/ts-loader.mjs', import.meta.url));

/** Forks one engine process and returns its tree's CPU ms once that stops growing (idle, spare decoder up). */
async function engineStart(before: boolean): Promise<number> {
  const stages = mkdtempSync(join(tmpdir(), 'rc-bench-start-stages-'));
  const child = fork(enginePath, [], {
    execArgv: ['--import', before ? 'tsx' : tsLoader, '--max-old-space-size=1024', '--max-semi-space-size=1', '--expose-gc'],
    env: { ...process.env, DECODER_STAGE_DIR: stages, ...(before ? { MODEL_CACHE_DIR: '/dev/null/no-cache' } : {}) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  try {
    const found = before ? undefined : await foundConfinement();
    child.send({ type: 'confinement', found } satisfies HostMessage);
    let last = -1;
    let still = 0;
    for (;;) {
      await sleep(250);
      const ms = descendantsCpuMs(process.pid, true);
      still = ms === last ? still + 1 : 0;
      last = ms;
      if (still >= 6) return ms; // 1.5 s without a tick of CPU
    }
  } finally {
    await new Promise((r) => { child.once('exit', r); child.kill('SIGKILL'); });
    rmSync(stages, { recursive: true, force: true });
  }
}

const BASE = process.env.BENCH_START_BASE;
const compiledAtStart = fileURLToPath(new URL('./support/schemas-compiled-at-start.cjs', import.meta.url));
const apiBefore = (): Promise<{ s: number; cpu: number }> =>
  BASE ? apiStart(startArgsIn(BASE), BASE) : apiStart(['--require', compiledAtStart, ...startArgs]);
const baseName = BASE ? `before: npm start in ${BASE}` : 'before: the route schemas compiled at start';
const api = { now: [] as { s: number; cpu: number }[], before: [] as { s: number; cpu: number }[] };
const engine = { now: [] as number[], before: [] as number[] };
const loads: string[] = [];
await foundConfinement(); // this bench's own detection, outside what is measured
for (let r = 0; r < ROUNDS; r++) {
  loads.push(loadavg()[0]!.toFixed(1));
  // Alternating which goes first, so a load that rises or falls over a round favours neither.
  const order = r % 2 === 0 ? [false, true] : [true, false];
  for (const before of order) (before ? api.before : api.now).push(await (before ? apiBefore() : apiStart(startArgs)));
  for (const before of order) (before ? engine.before : engine.now).push(await engineStart(before));
}
const fmt = (xs: number[], d = 0) => xs.map((x) => x.toFixed(d)).join(' / ');
console.log(`bench:start  (${ROUNDS} rounds, each side in turn; load average at each round's start: ${loads.join(', ')} on ${cpus().length} cores)\n`);
console.log('The API process until it answers (WORKER_CONCURRENCY=0)        seconds              CPU ms of its tree');
console.log('  as npm start runs it'.padEnd(64) + `${fmt(api.now.map((x) => x.s), 1).padEnd(21)}${fmt(api.now.map((x) => x.cpu))}`);
console.log(`  ${baseName}`.padEnd(64) + `${fmt(api.before.map((x) => x.s), 1).padEnd(21)}${fmt(api.before.map((x) => x.cpu))}`);
console.log(`  median ratio now/before: time ${(median(api.now.map((x) => x.s)) / median(api.before.map((x) => x.s))).toFixed(2)}, CPU ${(median(api.now.map((x) => x.cpu)) / median(api.before.map((x) => x.cpu))).toFixed(2)}\n`);
console.log('One engine process until idle (models warm, spare decoder up): CPU ms of its tree');
console.log(`  now (type stripping, models cached, confinement handed over)  ${fmt(engine.now)}`);
console.log(`  before (tsx, models unpacked, own confinement detection)      ${fmt(engine.before)}`);
console.log(`  median ratio now/before: ${(median(engine.now) / median(engine.before)).toFixed(2)} (load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
