// Serialized answers to GET /v1/jobs/{job_id} for completed jobs, kept in memory (issue 22).
//
// Why this is safe: completed is a terminal status (the decider appends JobCompleted only for a
// processing job, and nothing changes a job after it), so a completed job's answer never changes.
// Serving it from here skips, on every poll, the read of its ~2 KB result, JSON.parse of it and
// the schema serializer's walk over it: most of what a completed poll cost beyond a queued one.
// Authentication still runs on every request (a revoked key is refused at once), and the owner is
// kept with the body so another key still gets job_not_found.

import { ByteBudgetMap } from '../runtime/byte-budget-map.js';

export interface CompletedBodies {
  /** The answer to `keyId` for `jobId`: its body, 'other-key' if another key owns it, undefined when not held. */
  get(jobId: string, keyId: string): string | 'other-key' | undefined;
  set(jobId: string, keyId: string, body: string): void;
}

/**
 * At most `maxBytes` of bodies (UTF-16 length as the measure); the oldest entries go first. Polling
 * is for jobs that just ended, so first-in first-out keeps the ones being polled.
 */
export function completedBodies(maxBytes = 16 * 1024 * 1024): CompletedBodies {
  const held = new ByteBudgetMap<string, { keyId: string; body: string }>(maxBytes);
  return {
    get(jobId, keyId) {
      const entry = held.get(jobId);
      if (!entry) return undefined;
      return entry.keyId === keyId ? entry.body : 'other-key';
    },
    set(jobId, keyId, body) {
      if (!held.has(jobId)) held.set(jobId, { keyId, body }, body.length);
    },
  };
}
