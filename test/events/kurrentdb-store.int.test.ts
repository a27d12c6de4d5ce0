// The event-store contract on KurrentDB. Without KURRENTDB_URL (e.g. kurrentdb://127.0.0.1:2113?tls=false)
// every contract test is reported as skipped, by name; the unreachable-server test always runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { KurrentDBClient, jsonEvent } from '@kurrent/kurrentdb-client';
import { KurrentDbEventStore } from '../../src/events/store/kurrentdb.js';
import { NO_STREAM, StoreUnavailableError } from '../../src/events/store/port.js';
import { eventStoreContract } from './store.contract.js';

const url = process.env.KURRENTDB_URL;
const skip = url ? undefined : 'KURRENTDB_URL not set';

eventStoreContract('kurrentdb', { open: async () => new KurrentDbEventStore(url!), skip });

test('kurrentdb: readAll and lastPosition leave out streams outside the ledger', { skip: skip ?? false }, async (t) => {
  const store = new KurrentDbEventStore(url!);
  const raw = KurrentDBClient.connectionString(url!);
  t.after(async () => {
    await store.close();
    await raw.dispose();
  });
  const start = await store.lastPosition();
  const s = `ledger-contract-${randomUUID()}`;
  await store.append(s, [{ type: 'KeySuspended', data: { keyId: 'k', at: '2026-01-01T00:00:00.000Z' } }], NO_STREAM);
  const mine = await store.lastPosition();
  await raw.appendToStream(`other-${randomUUID()}`, jsonEvent({ type: 'Unrelated', data: { n: 1 } }));
  assert.equal(await store.lastPosition(), mine);
  assert.deepEqual((await store.readAll(start, 100)).map((e) => e.stream), [s]);
});

test('kurrentdb: catch-up subscription delivers ledger events appended after the given position', { skip: skip ?? false }, async (t) => {
  const store = new KurrentDbEventStore(url!);
  t.after(() => store.close());
  const start = await store.lastPosition();
  const s = `ledger-contract-${randomUUID()}`;
  const seen: string[] = [];
  const done = new Promise<void>((resolve, reject) => {
    const sub = store.subscribe(start, (e) => {
      if (e.stream === s) seen.push(`${e.revision}`);
      if (seen.length === 2) void sub.stop().then(resolve);
    }, reject);
  });
  await store.append(s, [{ type: 'KeySuspended', data: { keyId: 'k', at: '2026-01-01T00:00:00.000Z' } }], NO_STREAM);
  await store.append(s, [{ type: 'KeyReinstated', data: { keyId: 'k', at: '2026-01-01T00:00:01.000Z' } }], 0);
  await done;
  assert.deepEqual(seen, ['0', '1']);
});

test('kurrentdb: an unreachable server is store_unavailable, not a crash', async (t) => {
  // Port 1 on loopback refuses connections: no server needed for this one.
  const store = new KurrentDbEventStore('kurrentdb://127.0.0.1:1?tls=false&defaultDeadline=2000');
  t.after(() => store.close());
  const event = { type: 'KeySuspended', data: { keyId: 'k', at: '2026-01-01T00:00:00.000Z' } } as const;
  await assert.rejects(store.append('ledger-x', [event], NO_STREAM), StoreUnavailableError);
  await assert.rejects(store.readStream('ledger-x'), StoreUnavailableError);
  await assert.rejects(store.readAll(0, 10), StoreUnavailableError);
  await assert.rejects(store.lastPosition(), StoreUnavailableError);
  const dropped = await new Promise<unknown>((resolve) => {
    const sub = store.subscribe(0, () => {}, (err) => void sub.stop().then(() => resolve(err)));
  });
  assert.ok(dropped instanceof StoreUnavailableError, 'a subscription that cannot connect reports a drop');
});
