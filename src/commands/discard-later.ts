// Claimed spots' files, deleted in bursts a little after the answers (issue 22o). Each delete is a
// job on libuv's thread pool, and waking a pool thread once per submission cost the event loop its
// core on a busy 2-core box: in a CPU profile of 1,500 submissions at 8 connections (load ~20) the
// unlink's call was 14% of the event loop's busy time, the event loop losing the CPU to the thread
// it had just woken. Issued together, the pool's threads wake once per burst and hand their
// completions back in one wake-up. The spot is claimed, so nothing reads or accepts bytes for it
// again; a file a crash leaves behind is what a failed delete always left.
import type { Service } from '../service.js';

/** How long a delete waits for others to go with it. */
const BURST_MS = 100;
/** A burst goes at once when it holds this many. */
const BURST_MAX = 64;

const pending = new WeakMap<Service, { handles: string[]; timer: NodeJS.Timeout }>();

function flush(svc: Service): void {
  const burst = pending.get(svc);
  if (!burst) return;
  pending.delete(svc);
  clearTimeout(burst.timer);
  for (const handle of burst.handles) void svc.storage.discard(handle).catch(() => undefined);
}

/** Deletes the spot's own bytes within BURST_MS, with the other deletes asked meanwhile. */
export function discardSpotLater(svc: Service, handle: string): void {
  let burst = pending.get(svc);
  if (!burst) {
    burst = { handles: [], timer: setTimeout(() => flush(svc), BURST_MS) };
    pending.set(svc, burst);
  }
  burst.handles.push(handle);
  if (burst.handles.length >= BURST_MAX) flush(svc);
}
