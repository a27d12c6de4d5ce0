// The decoder process runs on one core (issue 22, memory per job). FFmpeg's decoders (H.264's frame
// threads, dav1d's) start one thread per core the process may use, plus one, and each thread holds
// frames of its own: at 1080p on two cores the three threads held 20-40 MB more than one does, and
// on a machine with more cores the count, and the memory, grow with it. The package gives no way to
// set the count; FFmpeg takes it from the process's CPU affinity, which `taskset` sets before the
// sandbox starts (it is inherited through unshare, the set-up script and setpriv, and keeps the pid).
// The frames are the same bit for bit (decoding does not depend on the thread count), and so is
// the decoder's CPU; the engine is not pinned, so the scheduler runs it on another core. Each
// decoder gets the next allowed core in turn, starting at this process's pid, so the decoders of
// two workers tend to land on different cores.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const taskset = ['/usr/bin/taskset', '/bin/taskset'].find((p) => existsSync(p));

/** The cores this process may run on (Cpus_allowed_list: "0-3,6"), or none when unknown. */
export function allowedCores(status = readStatus()): number[] {
  const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1];
  if (!list) return [];
  const cores: number[] = [];
  for (const part of list.split(',')) {
    const [a, b = a] = part.split('-').map(Number);
    if (!Number.isInteger(a) || !Number.isInteger(b)) return [];
    for (let c = a!; c <= b!; c++) cores.push(c);
  }
  return cores;
}

function readStatus(): string {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return '';
  }
}

let cores: number[] | undefined;
let next = process.pid;

/**
 * `argv` run on one core (taskset in front), or unchanged where there is nothing to gain (one core)
 * or no way to do it (no taskset, no /proc, or taskset refused once: a seccomp filter, say).
 */
export function onOneCore(argv: readonly string[]): string[] {
  if (cores === undefined) {
    const all = allowedCores();
    // Checked once with a real process, so a refusal degrades to today's behaviour, not to a
    // decoder that never starts.
    const works = !!taskset && all.length > 1 && spawnSync(taskset, ['--cpu-list', String(all[0]), 'true'], { stdio: 'ignore' }).status === 0;
    cores = works ? all : [];
  }
  if (!cores.length) return [...argv];
  const core = cores[next++ % cores.length]!;
  return [taskset!, '--cpu-list', String(core), ...argv];
}
