// The rebuild's in-memory fold (projections/bulk.ts) writes exactly the rows the projection
// modules' SQL writes, event by event: one ledger, with every event type the keys, uploads and jobs
// tables know plus the odd cases (a key hash issued twice, an upload of 0 bytes, an event about a
// job already final, an event type the fold does not model), replayed both ways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeLedger } from '../../bench/ledger-fixture.js';
import { openReadModels } from '../../src/projections/runner.js';
import { rebuild } from '../../src/projections/rebuild.js';
import { openLedgerSource, replayInto } from '../../src/projections/replay.js';
import { dump } from './support.js';

/** Appends the odd cases to a fixture ledger, straight into its events table (after the bulk of it, still in the rebuild's first pass). */
function addOddCases(path: string): void {
  const db = new Database(path);
  const next = (stream: string) => (db.prepare<[string], { r: number | null }>('SELECT MAX(revision) AS r FROM events WHERE stream = ?').get(stream)?.r ?? -1) + 1;
  const put = (stream: string, type: string, data: Record<string, unknown>) =>
    db.prepare('INSERT INTO events (stream, revision, type, schema_version, data, recorded_at) VALUES (?, ?, ?, 2, ?, ?)').run(stream, next(stream), type, JSON.stringify(data), `2026-02-01T00:00:0${next(stream) % 10}.000Z`);
  const at = '2026-02-01T00:00:00.000Z';
  const job = (db.prepare("SELECT data FROM events WHERE type = 'JobCompleted' LIMIT 1").get() as { data: string }).data;
  const done = JSON.parse(job).jobId as string;
  const open = JSON.parse((db.prepare("SELECT data FROM events WHERE type = 'JobStarted' ORDER BY position DESC LIMIT 1").get() as { data: string }).data).jobId as string;
  put('ledger-key_odd', 'KeyIssued', { keyId: 'key_odd', partnerId: 'p', partnerName: 'Odd', keyHash: 'hash_1', limit: 3, at }); // hash of key_1: ignored
  put('ledger-key_1', 'KeySuspended', { keyId: 'key_1', at });
  put('ledger-key_1', 'LimitSet', { keyId: 'key_1', limit: 7, at });
  put('ledger-key_1', 'KeyReinstated', { keyId: 'key_1', at });
  put('ledger-key_2', 'KeyRevoked', { keyId: 'key_2', at });
  put('ledger-key_2', 'KeyReinstated', { keyId: 'key_2', at }); // stays revoked
  put('ledger-key_3', 'SpotMinted', { handle: 'h_zero', expiresAt: at, at });
  put('ledger-key_3', 'SpotUploaded', { handle: 'h_zero', size: 0, at });
  put('ledger-key_3', 'SpotExpired', { handle: 'h_zero', at });
  put('ledger-key_3', 'SpotMinted', { handle: 'h_open', expiresAt: at, at });
  put('ledger-key_3', 'SpotUploaded', { handle: 'h_open', size: 0, at }); // "no bytes": still minted
  put('ledger-key_3', 'SpotUploaded', { handle: 'h_zero', size: 5, at }); // after the end: no change
  put('ledger-key_3', 'JobLeaseExtended', { jobId: open, worker: 'w1', leaseUntil: '2026-03-01T00:00:00.000Z', at });
  put('ledger-key_3', 'JobLeaseReleased', { jobId: open, worker: 'w1', at });
  put('ledger-key_3', 'JobCancelled', { jobId: done, by: 'operator', fromStatus: 'processing', at }); // a final job changed again
  put('ledger-key_3', 'VideoPurged', { jobId: done, handle: 'h_1', at }); // after the job's end, as retention does
  put('ledger-key_3', 'VideoPurged', { jobId: open, handle: 'h_2', at }); // while it is open (not today, but defined)
  put('ledger-key_3', 'SomethingNew', { jobId: open, handle: 'h_zero', at }); // a type the fold does not model
  put('ledger-key_3', 'JobFailed', { jobId: open, errorCode: 'analysis_failed', message: 'x', retryable: false, at });
  // A key with a webhook endpoint: its job ends open deliveries (the fold skips the lookup only for keys without one).
  put('ledger-key_4', 'WebhookEndpointRegistered', { endpointId: 'ep_1', url: 'https://example.com/h', events: ['job.completed', 'job.cancelled'], secret: 's', at });
  put('ledger-key_4', 'JobQueued', { jobId: 'job_hooked', handle: 'h_hooked', exerciseId: 'squat', at });
  put('ledger-key_4', 'JobCompleted', { jobId: 'job_hooked', result: { a: 1, '10': 'x', '9': [1.5] }, engineVersion: 'e/1', at });
  put('ledger-key_4', 'JobCancelled', { jobId: 'job_other', by: 'partner', fromStatus: 'queued', at });
  // Rows begun after the unknown type wrote everything out: still folded when the bulk phase ends.
  put('ledger-key_late', 'KeyIssued', { keyId: 'key_late', partnerId: 'p', partnerName: 'Late', keyHash: 'hash_late', limit: null, at });
  put('ledger-key_late', 'SpotMinted', { handle: 'h_late', expiresAt: at, at });
  db.close();
}

test('a rebuild folding keys, uploads and jobs in memory gives the same rows as the modules applying every event', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-bulk-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ledger = join(dir, 'ledger.db');
  writeLedger(ledger, { events: 20_000, keys: 40 });
  addOddCases(ledger);

  // Projected as a rebuild projects beside the SQLite ledger: results left in it (job-results.ts).
  const plain = openReadModels(join(dir, 'plain.db'), undefined, ledger);
  const source = openLedgerSource(ledger);
  replayInto(source, plain);
  source.close();

  const a = dump(plain);
  assert.equal(a.webhook_deliveries!.length, 2, 'the hooked key got its deliveries');
  // Both ways of running the bulk phase: reading on a worker thread, and inline.
  for (const threads of [2, 1] as const) {
    const report = await rebuild({ ledgerPath: ledger, readModelsPath: join(dir, `read-models-${threads}.db`), threads });
    assert.ok(report.events > 20_000);
    const folded = new Database(join(dir, `read-models-${threads}.db`), { readonly: true });
    const b = dump(folded);
    for (const table of Object.keys(a)) assert.deepEqual(b[table], a[table], `${table} (${threads} threads)`);
    assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
    folded.close();
  }
  plain.close();
});
