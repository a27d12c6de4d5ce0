// Read model of jobs: what GET /v1/jobs and /v1/jobs/{id} serve and what the job runner scans.
import type Database from 'better-sqlite3';
import { keyIdOfStream } from '../events/ledger.js';
import type { RecordedEvent } from '../events/store/port.js';
import { resultFromLedger, resultsInLedger } from './job-results.js';
import { prepared } from './statements.js';

export const ddl = `
CREATE TABLE IF NOT EXISTS jobs (
  job_id         TEXT PRIMARY KEY,
  key_id         TEXT NOT NULL,
  handle         TEXT NOT NULL,
  exercise_id    TEXT NOT NULL,
  status         TEXT NOT NULL,
  attempt        INTEGER NOT NULL DEFAULT 0,
  worker         TEXT,
  lease_until    TEXT,
  result         TEXT,
  engine_version TEXT,
  error_code     TEXT,
  message        TEXT,
  cancelled_by   TEXT,
  seq            INTEGER NOT NULL,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL,
  retryable      INTEGER,
  video_purged_at TEXT
);
CREATE INDEX IF NOT EXISTS jobs_by_key ON jobs (key_id, seq);
CREATE INDEX IF NOT EXISTS jobs_by_status ON jobs (status, seq);`;

/**
 * Columns added after files were first created: a file from before gets them empty, so it keeps
 * projecting; `projections rebuild` fills them from the events and `projections verify` shows
 * which rows still differ until then.
 */
export const addedColumns = { retryable: 'INTEGER', video_purged_at: 'TEXT', started_seq: 'INTEGER', result_at: 'INTEGER' } as const;

/**
 * Run after addedColumns (they name them): jobs_key_started serves the queue's rebuild (queue/projection.ts);
 * jobs_lapsed the processing jobs by lease end, where the queue finds leases that ran out (queue/pick.ts);
 * jobs_video_kept the ended jobs whose video is still stored, in end order,
 * for the retention sweep. Rows leave it when purged, so it stays as small as the retention window.
 */
export const lateDdl = `
CREATE INDEX IF NOT EXISTS jobs_video_kept ON jobs (updated_at)
  WHERE video_purged_at IS NULL AND status IN ('completed', 'failed', 'cancelled');
CREATE INDEX IF NOT EXISTS jobs_key_started ON jobs (key_id, started_seq);
CREATE INDEX IF NOT EXISTS jobs_lapsed ON jobs (lease_until) WHERE status = 'processing';`;

export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';

export interface JobRow {
  job_id: string;
  key_id: string;
  handle: string;
  exercise_id: string;
  status: JobStatus;
  attempt: number;
  worker: string | null;
  lease_until: string | null;
  /** JSON.stringify of the result when the table copies it; null when it is left in the ledger: read it with resultOf(). */
  result: string | null;
  engine_version: string | null;
  error_code: string | null;
  message: string | null;
  cancelled_by: string | null;
  /** Failed jobs only (schema v2): 1 when the failure was transient, so a resubmission may succeed. */
  retryable: number | null;
  /** When the retention sweep deleted the job's video (VideoPurged); null while it is stored. */
  video_purged_at: string | null;
  /** Global position of the job's latest JobStarted: the order keys were served in (fair picking). */
  started_seq: number | null;
  /** Global position of JobQueued: a stable, gap-tolerant creation order for listing and paging. */
  seq: number;
  /** Global position of JobCompleted: where the result is in the ledger (job-results.ts). */
  result_at: number | null;
  created_at: string;
  updated_at: string;
}


// One fixed SQL text per change: apply runs for every event of a rebuild, so it builds no strings
// and no closures per call.
const SET = {
  started: `status = 'processing', attempt = ?, worker = ?, lease_until = ?, started_seq = ?`,
  extended: 'lease_until = ?',
  // The lease ends at the release, so the queue offers the job to the next worker at once.
  released: 'worker = NULL, lease_until = ?',
  completed: `status = 'completed', result = ?, result_at = ?, engine_version = ?, lease_until = NULL`,
  failed: `status = 'failed', error_code = ?, message = ?, retryable = ?, lease_until = NULL`,
  cancelled: `status = 'cancelled', cancelled_by = ?, lease_until = NULL`,
};
const UPDATE = Object.fromEntries(
  Object.entries(SET).map(([k, sql]) => [k, `UPDATE jobs SET ${sql}, updated_at = ? WHERE job_id = ?`]),
) as Record<keyof typeof SET, string>;

export function apply(db: Database.Database, e: RecordedEvent): void {
  switch (e.type) {
    case 'JobQueued': {
      const d = e.data;
      prepared(db,
        `INSERT OR IGNORE INTO jobs (job_id, key_id, handle, exercise_id, status, seq, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'queued', ?, ?, ?)`,
      ).run(d.jobId, keyIdOfStream(e.stream), d.handle, d.exerciseId, e.position, d.at, d.at);
      return;
    }
    case 'JobStarted': {
      const d = e.data;
      return void prepared(db, UPDATE.started).run(d.attempt, d.worker, d.leaseUntil, e.position, d.at, d.jobId);
    }
    case 'JobLeaseExtended': {
      const d = e.data;
      return void prepared(db, UPDATE.extended).run(d.leaseUntil, d.at, d.jobId);
    }
    case 'JobLeaseReleased': {
      const d = e.data;
      return void prepared(db, UPDATE.released).run(d.at, d.at, d.jobId);
    }
    case 'JobCompleted': {
      const d = e.data;
      const copy = resultsInLedger(db) ? null : JSON.stringify(d.result);
      return void prepared(db, UPDATE.completed).run(copy, e.position, d.engineVersion, d.at, d.jobId);
    }
    case 'JobFailed': {
      const d = e.data;
      return void prepared(db, UPDATE.failed).run(d.errorCode, d.message, d.retryable ? 1 : 0, d.at, d.jobId);
    }
    case 'JobCancelled': {
      const d = e.data;
      return void prepared(db, UPDATE.cancelled).run(d.by, d.at, d.jobId);
    }
    case 'VideoPurged': {
      // updated_at stays the end time: the job itself did not change, only its video is gone.
      const d = e.data;
      return void prepared(db, 'UPDATE jobs SET video_purged_at = ? WHERE job_id = ?').run(d.at, d.jobId);
    }
    default:
      return;
  }
}

/**
 * The job as SPEC shows it (GET /v1/jobs/{job_id}, and the data of a webhook event): result only
 * when completed, error_code and message only when failed.
 */
export function presentJob(row: JobRow) {
  const result = row.status === 'completed' ? resultOf(row) : null;
  if (result !== null) return { job_id: row.job_id, status: row.status, result };
  if (row.status === 'failed') return { job_id: row.job_id, status: row.status, error_code: row.error_code ?? 'analysis_failed', message: row.message ?? 'The analysis job failed.' };
  return { job_id: row.job_id, status: row.status };
}

/** Results jobById() read from the ledger, parsed (typed as JSON.parse types it). */
const readFromLedger = new WeakMap<JobRow, any>();

/** The job's row; a result the table does not copy (job-results.ts) is read from the ledger, for resultOf(). */
export function jobById(db: Database.Database, jobId: string): JobRow | undefined {
  const row = prepared<[string], JobRow>(db, 'SELECT * FROM jobs WHERE job_id = ?').get(jobId);
  if (row?.status === 'completed' && row.result === null && row.result_at !== null) readFromLedger.set(row, resultFromLedger(db, row.result_at));
  return row;
}

/** A completed job's result, parsed, wherever it is kept; null when there is none. */
export function resultOf(row: JobRow): any {
  if (readFromLedger.has(row)) return readFromLedger.get(row);
  return row.result === null ? null : JSON.parse(row.result);
}

export interface JobListQuery {
  keyId: string;
  status?: JobStatus;
  /** Only jobs created before this seq (the cursor of the previous page). */
  beforeSeq?: number;
  limit: number;
}

/** Newest first. */
export function listJobs(db: Database.Database, q: JobListQuery): JobRow[] {
  return prepared<[string, string | null, string | null, number, number], JobRow>(db, 
      `SELECT * FROM jobs WHERE key_id = ? AND (? IS NULL OR status = ?) AND seq < ? ORDER BY seq DESC LIMIT ?`,
    )
    .all(q.keyId, q.status ?? null, q.status ?? null, q.beforeSeq ?? Number.MAX_SAFE_INTEGER, q.limit);
}

/** Ended jobs whose video is still stored and that ended at or before `endedBy`, oldest first. */
export const videosDue = (db: Database.Database, endedBy: Date, limit: number): Pick<JobRow, 'job_id' | 'key_id'>[] =>
  prepared<[string, number], Pick<JobRow, 'job_id' | 'key_id'>>(db,
      `SELECT job_id, key_id FROM jobs WHERE video_purged_at IS NULL AND status IN ('completed', 'failed', 'cancelled') AND updated_at <= ? ORDER BY updated_at LIMIT ?`,
    )
    .all(endedBy.toISOString(), limit);
