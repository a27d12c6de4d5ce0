// The operator's path to PostgreSQL and the tools on it, through `npm run -s admin` as operators run
// it: a SQLite ledger with real traffic is migrated (same events, same hashes, same root; a rerun
// copies nothing; an interrupted copy resumes), then audit, audit verify, ledger digest, events
// export, projections rebuild and verify run against the PostgreSQL ledger from a node's own,
// empty DATA_DIR; backup says what it does not copy.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateSqliteToPostgres } from '../../src/events/store/migrate-postgres.js';
import { PostgresEventStore } from '../../src/events/store/postgres.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { admin, startServer } from '../support/processes.js';
import { NO_POSTGRES, startPostgres, type TestPostgres } from '../support/postgres.js';

let server: TestPostgres | undefined;
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'rc-pgop-'));
  dirs.push(d);
  return d;
};
before(async () => {
  if (!NO_POSTGRES) server = await startPostgres();
});
after(async () => {
  await server?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const skip = NO_POSTGRES ?? false;

/** A SQLite DATA_DIR with keys, limits, spots, jobs (failed: not videos), cancels and idempotency records. */
async function sqliteLedgerWithTraffic(): Promise<{ dataDir: string; keyIds: string[] }> {
  const dataDir = tempDir();
  const env = { DATA_DIR: dataDir };
  const keys = [admin(env, 'keys', 'create', '--partner-name', 'North', '--limit', '20').json(), admin(env, 'keys', 'create', '--partner-name', 'South').json()];
  const node = await startServer({ ...env, WORKER_CONCURRENCY: '1' });
  try {
    for (const [i, key] of keys.entries()) {
      const auth = { authorization: `Bearer ${key.api_key}` };
      for (let n = 0; n < 3; n++) {
        const spot = await (await fetch(`${node.base}/v1/uploads`, { method: 'POST', headers: auth })).json();
        await fetch(spot.upload_url, { method: 'PUT', body: 'not a video', headers: { 'content-type': 'video/mp4' } });
        const job = await fetch(`${node.base}/v1/jobs`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `k-${i}-${n}` },
          body: JSON.stringify({ upload_handle: spot.handle, exercise_id: 'squat' }),
        });
        assert.equal(job.status, 201);
      }
    }
  } finally {
    await node.stop();
  }
  admin(env, 'keys', 'suspend', keys[1].key_id);
  return { dataDir, keyIds: keys.map((k) => k.key_id as string) };
}

test('admin migrate --to postgres: the same events and root, a rerun copies nothing; the tools run on the PostgreSQL ledger', { skip, timeout: 180_000 }, async () => {
  const { dataDir, keyIds } = await sqliteLedgerWithTraffic();
  const url = await server!.freshDatabase();
  const pgEnv = { EVENT_STORE: 'postgres', POSTGRES_URL: url };

  const missing = admin({ DATA_DIR: dataDir, POSTGRES_URL: '' }, 'migrate', '--to', 'postgres');
  assert.equal(missing.status, 2, 'POSTGRES_URL is required');
  assert.match(missing.stderr, /POSTGRES_URL/);

  const sqliteDigest = admin({ DATA_DIR: dataDir }, 'ledger', 'digest').json();
  const first = admin({ DATA_DIR: dataDir, POSTGRES_URL: url }, 'migrate', '--to', 'postgres');
  assert.equal(first.status, 0, first.stderr);
  const report = first.json();
  assert.equal(report.identical, true);
  assert.equal(report.copied, report.events);
  assert.equal(report.root, sqliteDigest.root);
  const again = admin({ DATA_DIR: dataDir, POSTGRES_URL: url }, 'migrate', '--to', 'postgres').json();
  assert.deepEqual([again.copied, again.alreadyThere, again.root], [0, report.events, sqliteDigest.root], 'a rerun copies nothing');

  // A node of the scale-out deployment: its own, empty DATA_DIR.
  const node = { ...pgEnv, DATA_DIR: tempDir() };
  const pgDigest = admin(node, 'ledger', 'digest').json();
  assert.deepEqual([pgDigest.position, pgDigest.root], [report.events, sqliteDigest.root], 'the PostgreSQL ledger has the SQLite ledger\'s root');
  const verified = admin(node, 'audit', 'verify');
  assert.equal(verified.status, 0, verified.stdout + verified.stderr);
  assert.match(verified.stdout, new RegExp(`ledger verified: ${report.events} events`));
  for (const keyId of keyIds) {
    const audited = admin(node, 'audit', keyId, '--format', 'json');
    assert.equal(audited.status, 0, audited.stdout + audited.stderr);
  }
  const sqliteExport = admin({ DATA_DIR: dataDir }, 'events', 'export', keyIds[0]!).stdout.trim().split('\n').map((l) => JSON.parse(l));
  const pgExport = admin(node, 'events', 'export', keyIds[0]!).stdout.trim().split('\n').map((l) => JSON.parse(l));
  const strip = (e: Record<string, unknown>) => ({ ...e, position: undefined });
  assert.deepEqual(pgExport.map(strip), sqliteExport.map(strip), 'the export is the same event for event, hashes and roots included');

  const rebuilt = admin(node, 'projections', 'rebuild');
  assert.equal(rebuilt.status, 0, rebuilt.stderr);
  assert.equal(rebuilt.json().position, report.events);
  const models = admin(node, 'projections', 'verify');
  assert.equal(models.status, 0, models.stdout + models.stderr);
  assert.match(models.stdout, /identical to a replay/);

  const backup = admin(node, 'backup', join(tempDir(), 'b'));
  assert.equal(backup.status, 1);
  assert.match(backup.stderr, /pg_dump --schema=rep_coach/);
  assert.match(backup.stderr, /Not covered: the videos/);
  assert.equal(admin(node, 'ledger', 'chain').status, 1);

  // A database that holds another ledger is refused, not appended to.
  const other = await server!.freshDatabase();
  const store = await PostgresEventStore.open(other);
  await store.append('ledger-someone-else', [{ type: 'KeySuspended', data: { keyId: 'x', at: '2026-01-01T00:00:00.000Z' } }], -1);
  await store.close();
  const refused = admin({ DATA_DIR: dataDir, POSTGRES_URL: other }, 'migrate', '--to', 'postgres');
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /not a copy of it/);
});

test('an interrupted migration resumes where it stopped and ends with the same root', { skip, timeout: 180_000 }, async () => {
  const { dataDir } = await sqliteLedgerWithTraffic();
  const url = await server!.freshDatabase();
  const target = await PostgresEventStore.open(url);
  try {
    let appends = 0;
    const failing = {
      appendStored: (...args: Parameters<PostgresEventStore['appendStored']>) => {
        if (++appends > 4) throw new Error('the connection dropped');
        return target.appendStored(...args);
      },
      lastPosition: () => target.lastPosition(),
      rootAt: (p: number) => target.rootAt(p),
      digest: () => target.digest(),
    };
    const ledger = join(dataDir, 'ledger.db');
    await assert.rejects(migrateSqliteToPostgres(ledger, failing), /connection dropped/);
    const partial = await target.lastPosition();
    assert.ok(partial > 0, 'part of the ledger was copied');
    const report = await migrateSqliteToPostgres(ledger, target);
    assert.equal(report.alreadyThere, partial);
    assert.equal(report.copied + report.alreadyThere, report.events);
    const sqlite = new SqliteEventStore(ledger);
    assert.equal((await target.digest()).root, (await sqlite.digest()).root);
    await sqlite.close();
  } finally {
    await target.close();
  }
});
