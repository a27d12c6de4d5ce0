// CPU time a process has used so far (user + system, ms), from /proc: a per-request cost that the
// other work on a shared machine does not inflate the way it inflates wall-clock rates.
import { readFileSync } from 'node:fs';

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
