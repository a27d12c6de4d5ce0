// Both ways a rebuild replays the bulk of the ledger, the set-based SQL inside SQLite
// (projections/bulk-sql.ts) and the in-memory fold (projections/bulk.ts), write exactly the rows the
// projection modules' SQL writes, event by event: ledgers with every event type the keys, uploads
// and jobs tables know plus the odd cases (a key hash issued twice, an upload of 0 bytes, an event
// about a job already final, events before their entity exists, an upload after an expiry, old
// schema versions, an event type neither models), replayed both ways.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { writeLedger } from '../../bench/ledger-fixture.js';
import { openReadModels } from '../../src/projections/runner.js';
import { rebuild, type RebuildOptions } from '../../src/projections/rebuild.js';
import { openLedgerSource, replayInto } from '../../src/projections/replay.js';
import { dump } from './support.js';
import { removeDir } from '../support/remove-dir.js';

/**
 * Appends the odd cases to a fixture ledger, straight into its events table (after the bulk of it,
 * still in the rebuild's first pass); `unknownType` adds an event type no bulk path models.
 */
function addOddCases(path: string, unknownType = true): void {
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
  if (unknownType) put('ledger-key_3', 'SomethingNew', { jobId: open, handle: 'h_zero', at }); // a type the bulk paths do not model
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

/**
 * Sequences the set-based path cannot take as sets: events before their entity, an upload after an
 * expiry, an end then a start; `splitJob`: a job whose events are on two keys' streams.
 */
function addIrregularCases(path: string, splitJob: boolean): void {
  const db = new Database(path);
  const next = (stream: string) => (db.prepare<[string], { r: number | null }>('SELECT MAX(revision) AS r FROM events WHERE stream = ?').get(stream)?.r ?? -1) + 1;
  const put = (type: string, data: Record<string, unknown>, version = 3, stream = 'ledger-key_pre') =>
    db.prepare('INSERT INTO events (stream, revision, type, schema_version, data, recorded_at) VALUES (?, ?, ?, ?, ?, ?)').run(stream, next(stream), type, version, JSON.stringify(data), `2026-03-01T00:00:${String(next(stream)).padStart(2, '0')}.000Z`);
  const at = (s: number) => `2026-02-01T00:00:${String(s).padStart(2, '0')}.000Z`;
  put('JobQueued', { jobId: 'j_pre', handle: 'h_pre', exerciseId: 'squat', at: at(1) }); // before its key: no row, no count
  put('KeyIssued', { keyId: 'key_pre', partnerId: 'p', partnerName: 'Pre', keyHash: 'hash_pre', limit: 2, at: at(2) });
  put('LimitSet', { keyId: 'key_pre', limit: null, at: at(3) });
  put('KeySuspended', { keyId: 'key_pre', at: at(3) });
  put('JobStarted', { jobId: 'j_early', worker: 'w', attempt: 1, leaseUntil: at(9), at: at(4) }); // before its JobQueued
  put('SpotUploaded', { handle: 'h_early', size: 9, at: at(4) }); // before its mint
  put('SpotMinted', { handle: 'h_early', expiresAt: at(50), at: at(5) });
  put('SpotClaimed', { handle: 'h_early', jobId: 'j_early', exerciseId: 'squat', size: 9, at: at(6) });
  put('JobQueued', { jobId: 'j_early', handle: 'h_early', exerciseId: 'squat', at: at(6) });
  put('JobQueued', { jobId: 'j_early', handle: 'h_other', exerciseId: 'curl', at: at(7) }); // a second JobQueued: ignored, but counted as held
  put('JobStarted', { jobId: 'j_early', worker: 'w2', attempt: 2, leaseUntil: at(19), at: at(8) });
  put('JobLeaseExtended', { jobId: 'j_early', worker: 'w2', leaseUntil: at(29), at: at(9) });
  put('JobLeaseReleased', { jobId: 'j_early', worker: 'w2', at: at(10) });
  put('SpotMinted', { handle: 'h_x', expiresAt: at(50), at: at(11) });
  put('SpotUploaded', { handle: 'h_x', size: 3, at: at(12) });
  put('SpotExpired', { handle: 'h_x', at: at(13) });
  put('SpotUploaded', { handle: 'h_x', size: 4, at: at(14) }); // after the expiry: no change
  put('SpotExpired', { handle: 'h_x', at: at(15) }); // a second expiry: its time
  put('SpotMinted', { handle: 'h_y', expiresAt: at(50), at: at(16) });
  put('SpotExpired', { handle: 'h_y', at: at(17) });
  put('SpotClaimed', { handle: 'h_y', jobId: 'j_y', exerciseId: 'squat', size: 5, at: at(18) }); // a claim after the expiry wins
  put('SpotMinted', { handle: 'h_y', expiresAt: at(55), at: at(19) }); // a second mint: ignored
  put('JobQueued', { jobId: 'j_y', handle: 'h_y', exerciseId: 'squat', at: at(18) });
  put('JobFailed', { jobId: 'j_y', errorCode: 'provider_temporarily_unavailable', message: 'a "quoted" \\ message, é', at: at(20) }, 1); // v1: retryable from the code
  put('JobStarted', { jobId: 'j_y', worker: 'w3', attempt: 3, leaseUntil: at(39), at: at(21) }); // after its end: processing again
  put('JobQueued', { jobId: 'j_z', handle: 'h_z', exerciseId: 'squat', at: at(22) });
  put('JobCancelled', { jobId: 'j_z', by: 'operator', fromStatus: 'queued', at: at(23) });
  put('JobCompleted', { jobId: 'j_z', result: { x: 1 }, engineVersion: 'e/2', at: at(24) });
  put('VideoPurged', { jobId: 'j_z', handle: 'h_z', at: at(25) });
  put('KeyRevoked', { keyId: 'key_pre', at: at(26) });
  put('KeyReinstated', { keyId: 'key_pre', at: at(27) }); // stays revoked
  put('KeyIssued', { keyId: 'key_dup', partnerId: 'p', partnerName: 'Dup', keyHash: 'hash_pre', limit: 1, at: at(28) }, 3, 'ledger-key_dup'); // hash taken: no key
  put('JobQueued', { jobId: 'j_dup', handle: 'h_dup', exerciseId: 'squat', at: at(29) }, 3, 'ledger-key_dup');
  put('JobFailed', { jobId: 'j_q', errorCode: 'x', message: 'y', retryable: 'yes', at: at(30) }); // before its JobQueued
  put('JobQueued', { jobId: 'j_q', handle: 'h_q', exerciseId: 'squat', at: at(31) });
  put('JobFailed', { jobId: 'j_q', errorCode: 'x', message: 'y', retryable: 0, at: at(32) });
  put('JobQueued', { jobId: 'j_t', handle: 'h_t', exerciseId: 'squat', at: at(33) });
  put('JobFailed', { jobId: 'j_t', errorCode: 'x', message: 'y', retryable: 'yes', at: at(34) });
  // Regular, but each column's last setter differs: leases released and extended, a second attempt, uploads and expiries.
  put('JobQueued', { jobId: 'j_rel', handle: 'h_rel', exerciseId: 'squat', at: at(35) });
  put('JobStarted', { jobId: 'j_rel', worker: 'w4', attempt: 1, leaseUntil: at(45), at: at(36) });
  put('JobLeaseExtended', { jobId: 'j_rel', worker: 'w4', leaseUntil: at(55), at: at(37) });
  put('JobLeaseReleased', { jobId: 'j_rel', worker: 'w4', at: at(38) });
  put('JobQueued', { jobId: 'j_ext', handle: 'h_ext', exerciseId: 'squat', at: at(39) });
  put('JobStarted', { jobId: 'j_ext', worker: 'w5', attempt: 1, leaseUntil: at(49), at: at(40) });
  put('JobLeaseExtended', { jobId: 'j_ext', worker: 'w5', leaseUntil: at(59), at: at(41) });
  put('JobQueued', { jobId: 'j_two', handle: 'h_two', exerciseId: 'squat', at: at(42) });
  put('JobStarted', { jobId: 'j_two', worker: 'w6', attempt: 1, leaseUntil: at(52), at: at(43) });
  put('JobLeaseReleased', { jobId: 'j_two', worker: 'w6', at: at(44) });
  put('JobStarted', { jobId: 'j_two', worker: 'w7', attempt: 2, leaseUntil: at(54), at: at(45) });
  put('VideoPurged', { jobId: 'j_two', handle: 'h_two', at: at(46) });
  put('JobCompleted', { jobId: 'j_two', result: { y: 2 }, engineVersion: 'e/3', at: at(47) });
  put('SpotMinted', { handle: 'h_reg', expiresAt: at(50), at: at(48) });
  put('SpotUploaded', { handle: 'h_reg', size: 5, at: at(49) });
  put('SpotExpired', { handle: 'h_reg', at: at(50) });
  put('SpotExpired', { handle: 'h_reg', at: at(51) });
  put('SpotMinted', { handle: 'h_back', expiresAt: at(59), at: at(52) });
  put('SpotUploaded', { handle: 'h_back', size: 5, at: at(53) });
  put('SpotUploaded', { handle: 'h_back', size: 0, at: at(54) }); // "no bytes": minted again
  if (splitJob) {
    put('JobQueued', { jobId: 'j_split', handle: 'h_split', exerciseId: 'squat', at: at(55) });
    put('JobCompleted', { jobId: 'j_split', result: { z: 3 }, engineVersion: 'e/4', at: at(56) }, 3, 'ledger-key_1'); // counted on key_1
  }
  db.close();
}

/** Each table's rows as the modules project every event of the ledger, results left in it (as a rebuild's file). */
function replayedByModules(ledger: string, file: string): Record<string, unknown[]> {
  const plain = openReadModels(file, undefined, ledger);
  const source = openLedgerSource(ledger);
  replayInto(source, plain);
  source.close();
  const rows = dump(plain);
  plain.close();
  return rows;
}

async function rebuiltRows(ledger: string, file: string, opts: Pick<RebuildOptions, 'bulk' | 'threads'>, expect: 'sql' | 'fold') {
  const report = await rebuild({ ledgerPath: ledger, readModelsPath: file, ...opts });
  assert.equal(report.bulk, expect);
  const db = new Database(file, { readonly: true });
  const rows = dump(db);
  db.close();
  return rows;
}

function assertSameRows(actual: Record<string, unknown[]>, expected: Record<string, unknown[]>, label: string): void {
  for (const table of Object.keys(expected)) assert.deepEqual(actual[table], expected[table], `${table} (${label})`);
  assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort());
}

test('both bulk paths give the same rows as the modules applying every event; an unknown event type sends the SQL path to the fold', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-bulk-'));
  t.after(() => removeDir(dir));
  const ledger = join(dir, 'ledger.db');
  writeLedger(ledger, { events: 20_000, keys: 40 });
  addOddCases(ledger);

  const a = replayedByModules(ledger, join(dir, 'plain.db'));
  assert.equal(a.webhook_deliveries!.length, 2, 'the hooked key got its deliveries');
  // The fold both ways (reading on a worker thread, and inline), and the SQL path, which falls back to it here.
  for (const threads of [2, 1] as const) assertSameRows(await rebuiltRows(ledger, join(dir, `fold-${threads}.db`), { bulk: 'fold', threads }, 'fold'), a, `fold, ${threads} threads`);
  for (const threads of [2, 1] as const) assertSameRows(await rebuiltRows(ledger, join(dir, `sql-${threads}.db`), { threads }, 'fold'), a, `sql falling back, ${threads} threads`);
  assert.deepEqual(readdirSync(dir).filter((f) => f.includes('-jobs')), [], "the jobs thread's file is removed");
});

test('the set-based SQL path: regular and irregular histories, webhooks, and a ledger of schema v1 events (upcast as read)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-bulk-sql-'));
  t.after(() => removeDir(dir));
  for (const [name, schemaVersion] of [['current', undefined], ['v1', 1]] as const) {
    const ledger = join(dir, `${name}.db`);
    writeLedger(ledger, { events: 10_000, keys: 30, ...(schemaVersion ? { schemaVersion } : {}) });
    // The odd cases put some jobs' events on two keys' streams, so the key counters are counted from
    // the events there (v1); without them they are summed per job (current).
    if (name === 'v1') addOddCases(ledger, false);
    addIrregularCases(ledger, name === 'v1');
    const a = replayedByModules(ledger, join(dir, `${name}-plain.db`));
    if (name === 'v1') assert.equal(a.webhook_deliveries!.length, 2, 'the hooked key got its deliveries');
    // The jobs table built here, or on a second thread into a file of its own and copied in.
    const sql = await rebuiltRows(ledger, join(dir, `${name}-sql.db`), { bulk: 'sql', threads: 1 }, 'sql');
    assertSameRows(sql, a, `sql, ${name}`);
    assertSameRows(await rebuiltRows(ledger, join(dir, `${name}-sql-2.db`), { bulk: 'sql', threads: 2 }, 'sql'), a, `sql, ${name}, 2 threads`);
    const key = (sql.keys as { key_id: string; status: string; held: number; limit_n: number | null }[]).find((k) => k.key_id === 'key_pre')!;
    assert.deepEqual([key.status, key.held, key.limit_n], ['revoked', name === 'v1' ? 3 : 2, null], 'counted from its KeyIssued on (the JobQueued before it would make one more; j_split ends on key_1)');
  }
});
