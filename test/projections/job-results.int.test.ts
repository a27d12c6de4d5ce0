// A completed job's result left in the SQLite ledger (projections/job-results.ts): the jobs table
// holds its position instead of a copy, and every read of the job gives what the copy gave, for
// results in the canonical form (sliced off the stored text), in any other form (parsed), and in an
// older schema version (upcast).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeLedger } from '../../bench/ledger-fixture.js';
import { jobById, presentJob, resultOf, type JobRow } from '../../src/projections/jobs.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { copyMissingResults, releaseLedger } from '../../src/projections/job-results.js';
import { openReadModels } from '../../src/projections/runner.js';
import { openLedgerSource, replayInto } from '../../src/projections/replay.js';

/** Completed jobs whose stored text is not what JSON.stringify writes, one in schema version 1. */
function addOddResults(path: string): string[] {
  const db = new Database(path);
  const put = db.prepare('INSERT INTO events (stream, revision, type, schema_version, data, recorded_at) VALUES (?, ?, ?, ?, ?, ?)');
  const at = '2026-02-01T00:00:00.000Z';
  const jobs = ['job_spaced', 'job_float', 'job_escaped', 'job_v1'];
  let revision = 0;
  for (const [i, jobId] of jobs.entries()) {
    put.run('ledger-key_odd', revision++, 'JobQueued', 2, JSON.stringify({ jobId, handle: `h_odd_${i}`, exerciseId: 'squat', at }), at);
  }
  const completed = (jobId: string, result: string, version = 2) =>
    put.run('ledger-key_odd', revision++, 'JobCompleted', version, `{"jobId":"${jobId}","result":${result},"engineVersion":"e/1","at":"${at}"}`, at);
  completed('job_spaced', '{ "a" : [1, 2] }');
  completed('job_float', '{"score":1.50,"big":1e3}');
  completed('job_escaped', '{"note":"say \\"hi\\"\\n"}');
  completed('job_v1', '{"v":1}', 1);
  db.close();
  return jobs;
}

test('results left in the ledger read back exactly as the copied ones, and are copied in for a server ledger', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-results-'));
  const ledger = join(dir, 'ledger.db');
  t.after(() => {
    releaseLedger(ledger);
    rmSync(dir, { recursive: true, force: true });
  });
  writeLedger(ledger, { events: 3_000, keys: 20 });
  const odd = addOddResults(ledger);

  const copied = openReadModels(join(dir, 'copied.db'));
  const inLedger = openReadModels(join(dir, 'in-ledger.db'), undefined, ledger);
  for (const db of [copied, inLedger]) {
    const source = openLedgerSource(ledger);
    replayInto(source, db);
    source.close();
  }

  const stored = inLedger.prepare<[], { n: number; copies: number; positions: number }>(
    "SELECT COUNT(*) AS n, COUNT(result) AS copies, COUNT(result_at) AS positions FROM jobs WHERE status = 'completed'",
  ).get()!;
  assert.ok(stored.n > 100, 'the fixture completes jobs');
  assert.deepEqual({ copies: stored.copies, positions: stored.positions }, { copies: 0, positions: stored.n }, 'no copy, a position each');

  const ids = copied.prepare<[], { job_id: string }>('SELECT job_id FROM jobs ORDER BY job_id').all().map((r) => r.job_id);
  // The same rows but for the copy, the same results and answers.
  const same = (a: JobRow, b: JobRow, id: string) => {
    assert.deepEqual({ ...b, result: null }, { ...a, result: null }, id);
    assert.deepEqual(resultOf(b), resultOf(a), id);
    assert.equal(JSON.stringify(presentJob(b)), JSON.stringify(presentJob(a)), id);
  };
  for (const id of [...ids, ...odd]) same(jobById(copied, id)!, jobById(inLedger, id)!, id);
  assert.deepEqual(resultOf(jobById(inLedger, 'job_float')!), { score: 1.5, big: 1000 });
  assert.deepEqual(resultOf(jobById(inLedger, 'job_escaped')!), { note: 'say "hi"\n' });

  // A connection opened without the ledger cannot answer such a row, and says so rather than serve it without its result.
  const blind = openReadModels(join(dir, 'in-ledger.db'));
  assert.throws(() => jobById(blind, 'job_v1'), /opened without it/);

  // The node's ledger moved to a server store (positions kept): the results are copied in once, from the store.
  const store = new SqliteEventStore(ledger);
  t.after(() => store.close());
  assert.equal(await copyMissingResults(blind, store), stored.n);
  for (const id of [...ids, ...odd]) assert.deepEqual(jobById(blind, id), jobById(copied, id), id);
  for (const id of [...ids, ...odd]) same(jobById(copied, id)!, jobById(blind, id)!, id);
  assert.equal(await copyMissingResults(blind, store), 0, 'once');
  for (const db of [copied, inLedger, blind]) db.close();
});
