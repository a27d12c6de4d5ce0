// CPU time processes have used so far (user + system, ms), from /proc: a per-request or per-job cost
// that the other work on a shared machine does not inflate the way it inflates wall-clock rates.
// Also the process tree the benches that run engines and decoders read it over.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * A /proc stat file (`/proc/PID/stat`, `/proc/PID/task/TID/stat`): the name in brackets, and the
 * fields after it, `f[0]` being field 3 (state); undefined when the process or thread is gone.
 */
export function statOf(path: string): { comm: string; f: string[] } | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    const end = stat.lastIndexOf(')');
    return { comm: stat.slice(stat.indexOf('(') + 1, end), f: stat.slice(end + 2).split(' ') };
  } catch {
    return undefined;
  }
}

/** utime + stime (fields 14-15), ms. */
const ownMs = (f: string[]) => (Number(f[11]) + Number(f[12])) * TICK_MS;

export function cpuMsOf(pid: number): number | undefined {
  const s = statOf(`/proc/${pid}/stat`);
  return s && ownMs(s.f);
}

export interface Proc { ppid: number; comm: string; own: number; reaped: number }

/** Every process now: parent, name, its own CPU ms and that of the children it has reaped. */
function processes(): Map<number, Proc> {
  const procs = new Map<number, Proc>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const s = statOf(`/proc/${pid}/stat`);
    // ppid (field 4), then cutime cstime (fields 16-17); a process that ended meanwhile is skipped
    if (s) procs.set(Number(pid), { ppid: Number(s.f[1]), comm: s.comm, own: ownMs(s.f), reaped: (Number(s.f[13]) + Number(s.f[14])) * TICK_MS });
  }
  return procs;
}

/** `root` and every process below it, root first (from `procs`, or /proc now). */
export function processTree(root: number, procs: Map<number, Proc> = processes()): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, p] of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), pid]);
  const out: number[] = [];
  for (const stack = [root]; stack.length;) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * CPU ms used so far by the processes below `root` (the engine processes and their decoders, for
 * a bench that runs them). Each living descendant counts its own time and that of the children it
 * has reaped, so a decoder still running (kept for its partner's next video, or the spare) counts
 * as much as one that has ended; sums compare whole trees. tsx's esbuild service (one per process
 * that loads TypeScript) is not engine work and is left out, unless `withEsbuild` (bench:start,
 * where what a process pays to start is the figure).
 */
export function descendantsCpuMs(root = process.pid, withEsbuild = false): number {
  const procs = processes();
  let ms = 0;
  for (const pid of processTree(root, procs).slice(1)) {
    const p = procs.get(pid)!;
    if (withEsbuild || p.comm !== 'esbuild') ms += p.own + p.reaped;
  }
  return ms;
}

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
  } catch {
    return '';
  }
};

/**
 * A service's CPU ms so far, split: the process itself (API, runner, ledger, projections), its
 * engine processes (runner/engine-child.ts: pose model, pipeline) and everything below those (the
 * sandboxed decoders: their set-up, FFmpeg, the colour conversion).
 */
export function serviceCpuMs(root: number): { api: number; engines: number; decoders: number } {
  const procs = processes();
  const split = { api: procs.get(root)?.own ?? 0, engines: 0, decoders: 0 };
  for (const [pid, p] of procs) {
    if (p.ppid !== root || !cmdline(pid).includes('engine-child')) continue;
    split.engines += p.own;
    split.decoders += p.reaped + descendantsCpuMs(pid);
  }
  return split;
}

/**
 * CPU ms so far of the engine processes below `root` (runner/engine-child.ts), by thread name
 * (threadCpuMs), summed over the processes: whether a worker's analysis went to the pose model and
 * the pipeline (main) or to V8's collector (V8Worker).
 */
export function engineThreadCpuMs(root: number): Map<string, number> {
  const sum = new Map<string, number>();
  for (const [pid, p] of processes()) {
    if (p.ppid !== root || !cmdline(pid).includes('engine-child')) continue;
    for (const [name, ms] of threadCpuMs(pid)) sum.set(name, (sum.get(name) ?? 0) + ms);
  }
  return sum;
}

/** Idle CPU ms of the whole machine so far, all cores (idle + iowait of /proc/stat). */
export function machineIdleMs(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  return (Number(f[4]) + Number(f[5])) * TICK_MS;
}

/**
 * CPU ms so far of each thread of `pid`, summed by thread name ('main' for the process's own
 * thread; V8's helpers are 'V8Worker', libuv's pool 'WorkerThread', the decoder package's and
 * FFmpeg's 'tokio-runtime-w'). Threads that ended are not counted.
 */
export function threadCpuMs(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  for (const tid of tasks) {
    const s = statOf(`/proc/${pid}/task/${tid}/stat`);
    if (!s) continue; // ended meanwhile
    const name = tid === String(pid) ? 'main' : s.comm;
    byName.set(name, (byName.get(name) ?? 0) + ownMs(s.f));
  }
  return byName;
}

/** Per thread name, what `after` adds to `before`, divided by `n` (e.g. per job), largest first, with `digits` decimals. */
export function threadsPer(before: Map<string, number>, after: Map<string, number>, n: number, digits = 0): string {
  return [...after].map(([name, ms]) => [name, (ms - (before.get(name) ?? 0)) / n] as const)
    .filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${ms.toFixed(digits)}`).join(', ');
}
