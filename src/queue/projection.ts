// The job queue's read model: what a worker needs to pick the next job without looking at every
// queued job. Three small tables beside `jobs`, kept by the same projection transaction:
//
//  - queued_jobs: the jobs waiting to start, keyed (key_id, seq): each key's jobs in queue order,
//    a primary-key range, so a key's next jobs are an index seek however many are queued.
//  - queue_keys: one row per key that ever queued a job: its jobs processing now, the global
//    position of its latest JobStarted (the order keys were served in) and its first waiting job.
//    The partial index queue_keys_turn lists the keys with work waiting in turn order, so the
//    keys to serve next are the first rows of an index, however many keys and jobs there are.
//  - job_counts: jobs per status, for the metrics gauges (a COUNT over jobs grows with the data).
//
// Every change is decided from the job's row as it was before the event (this module runs before
// jobs.ts in the projection), mirroring how jobs.ts moves a row's status, so the tables always
// equal what derive() computes from `jobs` (test/queue/queue.int.test.ts replays both ways).
// Lookups here use primary keys only: a rebuild drops secondary indexes while it replays.
import type Database from 'better-sqlite3';
import { keyIdOfStream } from '../events/ledger.js';
import type { RecordedEvent } from '../events/store/port.js';
import { prepared } from '../projections/statements.js';

export const ddl = `
CREATE TABLE IF NOT EXISTS queued_jobs (
  key_id TEXT NOT NULL,
  seq    INTEGER NOT NULL,
  job_id TEXT NOT NULL,
  PRIMARY KEY (key_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS queue_keys (
  key_id     TEXT PRIMARY KEY,
  processing INTEGER NOT NULL,
  last_start INTEGER NOT NULL,
  head_seq   INTEGER
);
CREATE INDEX IF NOT EXISTS queue_keys_turn ON queue_keys (processing, last_start, head_seq) WHERE head_seq IS NOT NULL;
CREATE TABLE IF NOT EXISTS job_counts (
  status TEXT PRIMARY KEY,
  n      INTEGER NOT NULL
);
INSERT OR IGNORE INTO job_counts (status, n) VALUES ('queued', 0), ('processing', 0), ('completed', 0), ('failed', 0), ('cancelled', 0);`;

type Status = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';

/** The status jobs.ts gives a job that exists, per event type (it sets it whatever it was). */
const STATUS_AFTER: Record<string, Status> = {
  JobStarted: 'processing',
  JobCompleted: 'completed',
  JobFailed: 'failed',
  JobCancelled: 'cancelled',
};

interface Before {
  key_id: string;
  seq: number;
  status: Status;
}

export function apply(db: Database.Database, e: RecordedEvent): void {
  if (e.type === 'JobQueued') {
    const jobId = e.data.jobId;
    // jobs.ts's INSERT OR IGNORE: a job id seen before changes nothing.
    if (prepared(db, 'SELECT 1 FROM jobs WHERE job_id = ?').get(jobId)) return;
    const keyId = keyIdOfStream(e.stream);
    prepared(db, 'INSERT OR IGNORE INTO queued_jobs (key_id, seq, job_id) VALUES (?, ?, ?)').run(keyId, e.position, jobId);
    // Positions only grow, so an existing head stays the head.
    prepared(db,
      `INSERT INTO queue_keys (key_id, processing, last_start, head_seq) VALUES (?, 0, -1, ?)
       ON CONFLICT (key_id) DO UPDATE SET head_seq = COALESCE(head_seq, excluded.head_seq)`,
    ).run(keyId, e.position);
    count(db, 'queued', 1);
    return;
  }
  const after = STATUS_AFTER[e.type];
  if (!after) return;
  const before = prepared<[string], Before>(db, 'SELECT key_id, seq, status FROM jobs WHERE job_id = ?').get((e.data as { jobId: string }).jobId);
  if (!before) return;
  if (e.type === 'JobStarted') {
    prepared(db, 'UPDATE queue_keys SET last_start = MAX(last_start, ?) WHERE key_id = ?').run(e.position, before.key_id);
  }
  if (before.status === after) return;
  count(db, before.status, -1);
  count(db, after, 1);
  if (before.status === 'processing') prepared(db, 'UPDATE queue_keys SET processing = processing - 1 WHERE key_id = ?').run(before.key_id);
  if (after === 'processing') prepared(db, 'UPDATE queue_keys SET processing = processing + 1 WHERE key_id = ?').run(before.key_id);
  if (before.status === 'queued') {
    prepared(db, 'DELETE FROM queued_jobs WHERE key_id = ? AND seq = ?').run(before.key_id, before.seq);
    // The next waiting job of the key (or none): a seek on queued_jobs' primary key.
    prepared(db,
      `UPDATE queue_keys SET head_seq = (SELECT seq FROM queued_jobs WHERE key_id = ? ORDER BY seq LIMIT 1) WHERE key_id = ?`,
    ).run(before.key_id, before.key_id);
  }
}

function count(db: Database.Database, status: string, delta: number): void {
  prepared(db, 'UPDATE job_counts SET n = n + ? WHERE status = ?').run(delta, status);
}

/**
 * Fills the queue's tables from `jobs` (a full scan: for a rebuild, whose bulk phase writes job
 * rows without the modules, and for a read-model file created before these tables). Exactly what
 * apply() would have built event by event.
 */
export function derive(db: Database.Database): void {
  // Run with the jobs indexes in place (after a rebuild's bulk phase restored them): each statement
  // then reads an index, not the 2 KB results of every job.
  db.exec(`
    DELETE FROM queued_jobs;
    DELETE FROM queue_keys;
    DELETE FROM job_counts;
    INSERT INTO queued_jobs (key_id, seq, job_id) SELECT key_id, seq, job_id FROM jobs WHERE status = 'queued';
    INSERT INTO queue_keys (key_id, processing, last_start, head_seq)
      SELECT key_id, 0, COALESCE(MAX(started_seq), -1), NULL FROM jobs GROUP BY key_id;
    UPDATE queue_keys SET processing = p.n
      FROM (SELECT key_id, COUNT(*) AS n FROM jobs WHERE status = 'processing' GROUP BY key_id) AS p WHERE p.key_id = queue_keys.key_id;
    UPDATE queue_keys SET head_seq = h.seq
      FROM (SELECT key_id, MIN(seq) AS seq FROM queued_jobs GROUP BY key_id) AS h WHERE h.key_id = queue_keys.key_id;
    INSERT INTO job_counts (status, n) VALUES ('queued', 0), ('processing', 0), ('completed', 0), ('failed', 0), ('cancelled', 0);
    UPDATE job_counts SET n = (SELECT COUNT(*) FROM jobs WHERE jobs.status = job_counts.status);`);
}

/** Creates the queue's tables; a file that had jobs before them gets them filled from `jobs` once. */
export function ensure(db: Database.Database): void {
  db.transaction(() => {
    const existed = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'queue_keys'").get();
    db.exec(ddl);
    if (!existed) derive(db);
  }).immediate();
}

/** Jobs per status. */
export const jobCounts = (db: Database.Database): Map<string, number> =>
  new Map(prepared<[], { status: string; n: number }>(db, 'SELECT status, n FROM job_counts').all().map((r) => [r.status, r.n]));
