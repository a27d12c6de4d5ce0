// The event-store contract on PostgreSQL, against a throwaway server these tests start themselves
// (test/support/postgres.ts; POSTGRES_TEST_URL to use another). Without the server binaries every
// test is reported as skipped, by name.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresEventStore } from '../../src/events/store/postgres.js';
import { NO_STREAM, StoreUnavailableError } from '../../src/events/store/port.js';
import { checkChain } from '../../src/audit/chain.js';
import { NO_POSTGRES, startPostgres, type TestPostgres } from '../support/postgres.js';
import { eventStoreContract } from './store.contract.js';

let server: TestPostgres | undefined;
let url = '';
before(async () => {
  if (NO_POSTGRES) return;
  server = await startPostgres();
  url = await server.freshDatabase();
});
after(() => server?.stop());

const skip = NO_POSTGRES;
eventStoreContract('postgres', { open: () => PostgresEventStore.open(url), skip });

const event = (n: number) => ({ type: 'KeySuspended', data: { keyId: `k${n}`, at: '2026-01-01T00:00:00.000Z' } }) as const;

test('postgres: a second open of the same schema finds it migrated, and two racing opens both succeed', { skip: skip ?? false }, async () => {
  const fresh = await server!.freshDatabase();
  const stores = await Promise.all([PostgresEventStore.open(fresh), PostgresEventStore.open(fresh)]);
  await stores[0]!.append('ledger-m', [event(1)], NO_STREAM);
  const again = await PostgresEventStore.open(fresh);
  assert.equal((await again.readStream('ledger-m')).length, 1);
  await Promise.all([...stores, again].map((s) => s.close()));
});

test('postgres: positions are 1, 2, 3, ... with no gap, a refused append included', { skip: skip ?? false }, async () => {
  const store = await PostgresEventStore.open(await server!.freshDatabase());
  try {
    await store.append('ledger-a', [event(1), event(2)], NO_STREAM);
    await assert.rejects(store.append('ledger-a', [event(3)], NO_STREAM));
    await store.append('ledger-b', [event(4)], NO_STREAM);
    assert.deepEqual((await store.readAll(0, 10)).map((e) => e.position), [1, 2, 3]);
  } finally {
    await store.close();
  }
});

test('postgres: the ledger refuses UPDATE, DELETE and TRUNCATE; a change made behind its back shows in audit verify', { skip: skip ?? false }, async () => {
  const db = await server!.freshDatabase();
  const store = await PostgresEventStore.open(db);
  const raw = new pg.Client({ connectionString: db });
  await raw.connect();
  try {
    await store.append('ledger-t', [event(1), event(2)], NO_STREAM);
    await store.append('ledger-u', [event(3)], NO_STREAM);
    await assert.rejects(raw.query("UPDATE rep_coach.events SET data = '{}' WHERE position = 1"), /append-only/);
    await assert.rejects(raw.query('DELETE FROM rep_coach.events WHERE position = 2'), /append-only/);
    await assert.rejects(raw.query('TRUNCATE rep_coach.events'), /append-only/);
    assert.ok((await checkChain(store.checkItems())).ok);
    await raw.query('ALTER TABLE rep_coach.events DISABLE TRIGGER events_append_only');
    await raw.query(`UPDATE rep_coach.events SET data = '{"at":"2026-01-01T00:00:00.000Z","keyId":"k9"}' WHERE position = 1`);
    const report = await checkChain(store.checkItems());
    assert.equal(report.ok, false);
    assert.deepEqual([report.failures[0]!.stream, report.failures[0]!.revision], ['ledger-t', 0]);
  } finally {
    await raw.end();
    await store.close();
  }
});

test('postgres: an unreachable server is store_unavailable, at open and after', async () => {
  // Port 1 on loopback refuses connections: no server needed for this one.
  await assert.rejects(PostgresEventStore.open('postgres://postgres@127.0.0.1:1/postgres', { busyTimeoutMs: 2000 }), StoreUnavailableError);
});
