// Schema evolution end to end: v1 events (JobFailed without `retryable`) written straight into the
// events table are never rewritten; they are upcast on read, so a rebuild fills the v2 read-model
// column, the audit reads them, and events export still shows them as stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { audit } from '../../src/audit/replay.js';
import { CURRENT_SCHEMA_VERSION } from '../../src/events/ledger.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { jobById } from '../../src/projections/jobs.js';
import { openReadModels } from '../../src/projections/runner.js';
import { rebuild } from '../../src/projections/rebuild.js';
import { openLedgerSource, replayInto } from '../../src/projections/replay.js';
import { verify } from '../../src/projections/verify.js';
import { paths } from '../../src/service.js';
import { runAdmin } from '../cli/run.js';
import { removeDir } from '../support/remove-dir.js';

const at = (s: number) => new Date(Date.UTC(2025, 5, 1, 0, 0, s)).toISOString();

/** A v1-era ledger: two jobs failed, one for a provider outage, one for an undecodable file. */
function v1History(): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [['KeyIssued', { keyId: 'k_old', partnerId: 'p', partnerName: 'Veteran', keyHash: 'h', limit: 5, at: at(0) }]];
  for (const [i, job] of ['j_outage', 'j_garbage'].entries()) {
    const handle = `h${i}`;
    out.push(
      ['SpotMinted', { handle, expiresAt: at(900), at: at(10 * i + 1) }],
      ['SpotUploaded', { handle, size: 100, at: at(10 * i + 2) }],
      ['SpotClaimed', { handle, jobId: job, exerciseId: 'squat', size: 100, at: at(10 * i + 3) }],
      ['JobQueued', { jobId: job, handle, exerciseId: 'squat', at: at(10 * i + 3) }],
      ['JobStarted', { jobId: job, worker: 'w', attempt: 1, leaseUntil: at(600), at: at(10 * i + 4) }],
    );
  }
  out.push(
    ['JobFailed', { jobId: 'j_outage', errorCode: 'provider_temporarily_unavailable', message: 'The analysis provider was temporarily unavailable and retries were exhausted.', at: at(30) }],
    ['JobFailed', { jobId: 'j_garbage', errorCode: 'video_processing_failed', message: 'The video could not be processed for analysis.', at: at(31) }],
  );
  return out;
}

test('v1 events written to the events table are upcast on read: a rebuild fills the v2 column, the audit reads them, export shows them as stored', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-upcast-'));
  t.after(() => removeDir(dir));
  const files = paths(dir);
  const store = new SqliteEventStore(files.ledger);
  const insert = store.db.prepare("INSERT INTO events (stream, revision, type, schema_version, data, recorded_at) VALUES ('ledger-k_old', ?, ?, 1, ?, ?)");
  v1History().forEach(([type, data], revision) => {
    // Claim and queue were one append: one recorded time.
    insert.run(revision, type, JSON.stringify(data), data.at);
  });

  // Read models as a v1-era process left them: projected, but without the column v2 added.
  const old = openReadModels(files.readModels);
  const source = openLedgerSource(files.ledger);
  replayInto(source, old);
  source.close();
  old.exec('ALTER TABLE jobs DROP COLUMN retryable');
  old.close();

  // A v2 process opening that file adds the column empty; verify says which rows differ until a rebuild.
  openReadModels(files.readModels).close();
  const before = await verify({ ledgerPath: files.ledger, readModelsPath: files.readModels });
  assert.deepEqual(before.differences.map((d) => [d.key, d.columns]).sort(), [
    ['j_garbage', { retryable: [null, 0] }],
    ['j_outage', { retryable: [null, 1] }],
  ]);

  await rebuild({ ledgerPath: files.ledger, readModelsPath: files.readModels });
  const db = new Database(files.readModels, { readonly: true });
  assert.equal(jobById(db, 'j_outage')?.retryable, 1);
  assert.equal(jobById(db, 'j_garbage')?.retryable, 0);
  assert.deepEqual(db.prepare('SELECT used, held, limit_n FROM keys').get(), { used: 2, held: 0, limit_n: 5 });
  db.close();
  assert.equal((await verify({ ledgerPath: files.ledger, readModelsPath: files.readModels })).differenceCount, 0);

  const events = await store.readStream('ledger-k_old');
  assert.ok(events.every((e) => e.schemaVersion === CURRENT_SCHEMA_VERSION));
  const report = audit('k_old', events);
  assert.deepEqual(report.violations, []);
  assert.deepEqual(report.movements.filter((m) => m.movement === 'consume').map((m) => m.note), [
    'failed: provider_temporarily_unavailable (retryable)',
    'failed: video_processing_failed',
  ]);

  const exported = await runAdmin(dir, 'events', 'export', 'k_old');
  const failed = exported.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'JobFailed');
  assert.deepEqual(failed.map((e) => [e.schemaVersion, 'retryable' in e.data]), [[1, false], [1, false]]);
  const lifted = await runAdmin(dir, 'events', 'export', 'k_old', '--upcast');
  const liftedFailed = lifted.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'JobFailed');
  assert.deepEqual(liftedFailed.map((e) => [e.schemaVersion, e.data.retryable]), [[CURRENT_SCHEMA_VERSION, true], [CURRENT_SCHEMA_VERSION, false]]);
  const cli = await runAdmin(dir, 'audit', 'k_old');
  assert.equal(cli.code, 0, cli.stdout + cli.stderr);
  await store.close();
});
