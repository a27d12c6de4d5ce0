// Which jobs a worker should take next, at a cost that does not grow with the queue's depth.
//
// Fairness (unchanged from the single query this replaces): a key's n-th runnable job has turn n
// plus the number of its jobs running now; lower turns go first; on equal turns the key whose last
// job started longest ago (or never) goes first; then queue order. So a key that queued ten
// thousand videos gets one worker slot in turn, and another key's job queued behind them starts as
// soon as the job running at that moment ends.
//
// Runnable = queued, or processing with a lease that has run out (its worker is gone).
//
// Why reading a few rows is enough: a key's first runnable job comes before all its others, so a
// key can only place a job among the first `limit` if fewer than `limit` other keys' first jobs
// come before its own. queue_keys_turn lists keys in exactly that order (for keys with no lapsed
// lease; a lapsed lease can only move a key earlier, and those keys are read one by one), so the
// first `limit` keys of that index, each with its first `limit` jobs, hold the answer. The cost is
// O(limit^2) index seeks plus the lapsed leases (at most the jobs of workers that died), whatever
// the queue's depth or the number of keys.
import type Database from 'better-sqlite3';
import type { JobRow } from '../projections/jobs.js';
import { prepared } from '../projections/statements.js';

interface KeyTurn {
  key_id: string;
  processing: number;
  last_start: number;
  head_seq: number | null;
}

/** Lapsed leases read per pick; more than this many dead workers' jobs are taken over in later picks. */
const LAPSED_CAP = 1_000;

export function nextJobs(db: Database.Database, now: Date, limit: number): JobRow[] {
  if (limit <= 0) return [];
  const lapsed = prepared<[string, number], JobRow>(db,
    `SELECT * FROM jobs WHERE status = 'processing' AND lease_until <= ? ORDER BY lease_until LIMIT ?`,
  ).all(now.toISOString(), LAPSED_CAP);
  const lapsedByKey = new Map<string, JobRow[]>();
  for (const job of lapsed) {
    const list = lapsedByKey.get(job.key_id);
    if (list) list.push(job);
    else lapsedByKey.set(job.key_id, [job]);
  }

  const keys = new Map<string, KeyTurn>();
  for (const k of prepared<[number], KeyTurn>(db,
    'SELECT key_id, processing, last_start, head_seq FROM queue_keys WHERE head_seq IS NOT NULL ORDER BY processing, last_start, head_seq LIMIT ?',
  ).all(limit)) keys.set(k.key_id, k);
  for (const keyId of lapsedByKey.keys()) {
    if (keys.has(keyId)) continue;
    const k = prepared<[string], KeyTurn>(db, 'SELECT key_id, processing, last_start, head_seq FROM queue_keys WHERE key_id = ?').get(keyId);
    if (k) keys.set(keyId, k);
  }

  const ranked: { job: JobRow; turn: number; lastStart: number }[] = [];
  for (const k of keys.values()) {
    const mine = lapsedByKey.get(k.key_id) ?? [];
    const queued = k.head_seq === null ? [] : prepared<[string, number], JobRow>(db,
      'SELECT j.* FROM queued_jobs q JOIN jobs j ON j.job_id = q.job_id WHERE q.key_id = ? ORDER BY q.seq LIMIT ?',
    ).all(k.key_id, limit);
    const runnable = [...mine, ...queued].sort((a, b) => a.seq - b.seq).slice(0, limit);
    // Jobs running now: processing ones whose lease still holds.
    const busy = k.processing - mine.length;
    runnable.forEach((job, i) => ranked.push({ job, turn: busy + i + 1, lastStart: k.last_start }));
  }
  ranked.sort((a, b) => a.turn - b.turn || a.lastStart - b.lastStart || a.job.seq - b.job.seq);
  return ranked.slice(0, limit).map((r) => r.job);
}
