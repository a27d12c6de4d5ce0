// CPU time processes have used so far (user + system, ms), from /proc: a per-request or per-job cost
// that the other work on a shared machine does not inflate the way it inflates wall-clock rates.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

interface Proc { ppid: number; comm: string; own: number; reaped: number }

/** Every process now: parent, name, its own CPU ms and that of the children it has reaped. */
function processes(): Map<number, Proc> {
  const procs = new Map<number, Proc>();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // ppid, then utime stime cutime cstime (fields 4 and 14-17 of stat)
      procs.set(Number(pid), {
        ppid: Number(f[1]), comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        own: (Number(f[11]) + Number(f[12])) * TICK_MS, reaped: (Number(f[13]) + Number(f[14])) * TICK_MS,
      });
    } catch {
      // ended meanwhile
    }
  }
  return procs;
}

function below(procs: Map<number, Proc>, root: number): number[] {
  const out: number[] = [];
  for (const [pid] of procs) {
    for (let p = procs.get(pid)?.ppid; p !== undefined && p > 1; p = procs.get(p)?.ppid) {
      if (p === root) { out.push(pid); break; }
    }
  }
  return out;
}

/**
 * CPU ms used so far by the processes below `root` (the engine processes and their decoders, for
 * a bench that runs them). Each living descendant counts its own time and that of the children it
 * has reaped, so a decoder still running (kept for its partner's next video, or the spare) counts
 * as much as one that has ended; sums compare whole trees. tsx's esbuild service (one per process
 * that loads TypeScript) is not engine work and is left out.
 */
export function descendantsCpuMs(root = process.pid): number {
  const procs = processes();
  let ms = 0;
  for (const pid of below(procs, root)) {
    const p = procs.get(pid)!;
    if (p.comm !== 'esbuild') ms += p.own + p.reaped;
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
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      byName.set(name, (byName.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * TICK_MS);
    } catch {
      // ended meanwhile
    }
  }
  return byName;
}

/** Per thread name, what `after` adds to `before`, divided by `n` (e.g. per job), largest first. */
export function threadsPer(before: Map<string, number>, after: Map<string, number>, n: number): string {
  return [...after].map(([name, ms]) => [name, (ms - (before.get(name) ?? 0)) / n] as const)
    .filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${ms.toFixed(0)}`).join(', ');
}
