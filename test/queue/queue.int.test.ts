// The job queue (src/queue/): the picks of the indexed queue equal those of the reference query it
// replaced (a CTE over every runnable job, kept here as the specification of fairness) over random
// histories; its tables equal what derive() computes from `jobs`; and at 100k queued jobs of one key
// another key's job still goes first, reading only index seeks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import fc from 'fast-check';
import type { RecordedEvent } from '../../src/events/store/port.js';
import type { JobRow } from '../../src/projections/jobs.js';
import { applyBatch, openReadModels } from '../../src/projections/runner.js';
import { nextJobs } from '../../src/queue/pick.js';
import { derive, jobCounts } from '../../src/queue/projection.js';
import { dump } from '../projections/support.js';

/** The query the queue replaced (issue 10's fairness, issue 22's cost): every runnable job, ranked. */
function reference(db: Database.Database, now: Date, limit: number): JobRow[] {
  return db.prepare(
    `WITH runnable AS (
       SELECT * FROM jobs WHERE status = 'queued' OR (status = 'processing' AND lease_until <= @now)
     ), keyed AS (
       SELECT k.key_id,
         (SELECT COUNT(*) FROM jobs p WHERE p.key_id = k.key_id AND p.status = 'processing' AND p.lease_until > @now) AS busy,
         (SELECT MAX(s.started_seq) FROM jobs s WHERE s.key_id = k.key_id) AS last_start
       FROM (SELECT DISTINCT key_id FROM runnable) k
     ), turned AS (
       SELECT r.*, keyed.busy + ROW_NUMBER() OVER (PARTITION BY r.key_id ORDER BY r.seq) AS turn, COALESCE(keyed.last_start, -1) AS last_start
       FROM runnable r JOIN keyed ON keyed.key_id = r.key_id
     )
     SELECT * FROM turned ORDER BY turn, last_start, seq LIMIT @limit`,
  ).all({ now: now.toISOString(), limit }) as JobRow[];
}

/** A read-model database with every table and index of the real file (in memory: the plans are the same). */
function tempDb(t: { after(fn: () => void): void }) {
  const db = openReadModels(':memory:');
  t.after(() => db.close());
  return db;
}

/** Builds ledger events for the read models, positions in order. */
function eventWriter(db: Database.Database) {
  let position = 0;
  const base = Date.parse('2026-01-01T00:00:00Z');
  const at = (s: number) => new Date(base + s * 1000).toISOString();
  const batch: RecordedEvent[] = [];
  return {
    at,
    put(key: string, type: string, data: Record<string, unknown>, second = position) {
      position++;
      batch.push({ stream: `ledger-${key}`, revision: position, position, schemaVersion: 2, type, data: { ...data, at: at(second) }, recordedAt: at(second) } as unknown as RecordedEvent);
      if (batch.length >= 5_000) this.flush();
    },
    flush() {
      if (batch.length) applyBatch(db, batch.splice(0));
    },
  };
}

type Op =
  | { t: 'queue'; key: number }
  | { t: 'start'; pick: number; lease: number }
  | { t: 'end'; pick: number; how: 'JobCompleted' | 'JobFailed' | 'JobCancelled' }
  | { t: 'release'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('queue' as const), key: fc.integer({ min: 0, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('start' as const), pick: fc.nat(), lease: fc.integer({ min: -50, max: 100 }) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('end' as const), pick: fc.nat(), how: fc.constantFrom('JobCompleted' as const, 'JobFailed' as const, 'JobCancelled' as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('release' as const), pick: fc.nat() }) },
);

test('the indexed queue picks exactly what the reference query picks, and its tables equal derive()', (t) => {
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 1, maxLength: 80 }), fc.integer({ min: 0, max: 120 }), fc.integer({ min: 1, max: 12 }), (ops, nowSecond, limit) => {
      const db = tempDb(t);
      const w = eventWriter(db);
      const jobs: { id: string; key: string; status: string }[] = [];
      let n = 0;
      for (const op of ops) {
        const open = jobs.filter((j) => j.status === 'queued' || j.status === 'processing');
        if (op.t === 'queue') {
          const id = `job_${++n}`;
          jobs.push({ id, key: `key_${op.key}`, status: 'queued' });
          w.put(`key_${op.key}`, 'JobQueued', { jobId: id, handle: `h_${n}`, exerciseId: 'squat' });
        } else if (open.length > 0) {
          const job = open[(op as { pick: number }).pick % open.length]!;
          if (op.t === 'start') {
            job.status = 'processing';
            w.put(job.key, 'JobStarted', { jobId: job.id, worker: 'w', attempt: 1, leaseUntil: w.at(op.lease + 60) });
          } else if (op.t === 'end') {
            const data = op.how === 'JobCompleted' ? { result: {}, engineVersion: 'e' } : op.how === 'JobFailed' ? { errorCode: 'x', message: 'x', retryable: false } : { by: 'partner', fromStatus: job.status };
            job.status = 'ended';
            w.put(job.key, op.how, { jobId: job.id, ...data });
          } else if (job.status === 'processing') {
            w.put(job.key, 'JobLeaseReleased', { jobId: job.id, worker: 'w' });
          }
        }
      }
      w.flush();
      const now = new Date(w.at(nowSecond));
      assert.deepEqual(nextJobs(db, now, limit).map((j) => j.job_id), reference(db, now, limit).map((j) => j.job_id));
      const applied = dump(db);
      derive(db);
      const derived = dump(db);
      for (const table of ['queued_jobs', 'queue_keys', 'job_counts']) assert.deepEqual(applied[table], derived[table], table);
    }),
    { numRuns: 150 },
  );
});

test('100,000 queued jobs of one key: another key goes next, then turns, a lapsed lease taken over', (t) => {
  const db = tempDb(t);
  const w = eventWriter(db);
  for (let i = 0; i < 100_000; i++) w.put('key_big', 'JobQueued', { jobId: `big_${i}`, handle: `hb_${i}`, exerciseId: 'squat' }, 0);
  w.put('key_big', 'JobStarted', { jobId: 'big_0', worker: 'w', attempt: 1, leaseUntil: w.at(3600) }, 1);
  w.put('key_small', 'JobQueued', { jobId: 'small_0', handle: 'hs_0', exerciseId: 'squat' }, 2);
  w.put('key_small', 'JobQueued', { jobId: 'small_1', handle: 'hs_1', exerciseId: 'squat' }, 2);
  w.flush();
  const now = new Date(w.at(10));
  const picked = nextJobs(db, now, 5).map((j) => j.job_id);
  // big has one running, so small's first job has turn 1 and goes first; small's second ties with
  // big's next (turn 2) and goes first as small was served longest ago (never); then big in order.
  assert.deepEqual(picked, ['small_0', 'small_1', 'big_1', 'big_2', 'big_3']);
  assert.equal(jobCounts(db).get('queued'), 100_001);
  assert.equal(jobCounts(db).get('processing'), 1);

  // The worker dies: its lease runs out and the job is offered again, first of big's.
  // (The reference query is not run here: it is quadratic in the depth, hours at 100k.)
  const later = new Date(w.at(7200));
  assert.deepEqual(nextJobs(db, later, 4).map((j) => j.job_id), ['small_0', 'big_0', 'small_1', 'big_1']);
});
