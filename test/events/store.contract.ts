// The one contract every event store keeps (STYLE: one suite for every store). Run by
// sqlite-store.int.test.ts always and kurrentdb-store.int.test.ts when KURRENTDB_URL is set.
// Streams get fresh names and positions are read relative to lastPosition(), so the suite also
// runs against a shared server that already holds events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { checkChain } from '../../src/audit/chain.js';
import { eventHash, GENESIS, nextRoot, type CheckItem } from '../../src/events/chain.js';
import { CURRENT_SCHEMA_VERSION, type LedgerEvent } from '../../src/events/ledger.js';
import { ConflictError, NO_STREAM, type EventStore } from '../../src/events/store/port.js';

export interface ContractOptions {
  /** Opens a store (a second call may open a second connection to the same data). */
  open(): Promise<EventStore>;
  /** A reason to report every contract test as skipped, by name. */
  skip?: string;
}

const stream = () => `ledger-contract-${randomUUID()}`;
const suspended = (n: number): LedgerEvent => ({ type: 'KeySuspended', data: { keyId: `k${n}`, at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString() } });
const minted = (handle: string): LedgerEvent => ({ type: 'SpotMinted', data: { handle, expiresAt: '2026-01-01T00:15:00.000Z', at: '2026-01-01T00:00:00.000Z' } });

export function eventStoreContract(name: string, opts: ContractOptions) {
  const it = (title: string, fn: (store: EventStore) => Promise<void>) =>
    test(`${name}: ${title}`, { skip: opts.skip ?? false }, async (t) => {
      const store = await opts.open();
      t.after(() => store.close());
      await fn(store);
    });

  it('an append at NO_STREAM creates the stream at revision 0 and readStream returns the events in order', async (store) => {
    const s = stream();
    const result = await store.append(s, [minted('h1'), suspended(1)], NO_STREAM);
    assert.equal(result.nextRevision, 1);
    const read = await store.readStream(s);
    assert.deepEqual(read.map((e) => [e.stream, e.revision, e.type]), [[s, 0, 'SpotMinted'], [s, 1, 'KeySuspended']]);
    assert.deepEqual(read[0]!.data, minted('h1').data);
    assert.equal(read[0]!.schemaVersion, CURRENT_SCHEMA_VERSION);
    assert.ok(!Number.isNaN(Date.parse(read[0]!.recordedAt)), 'recordedAt is an ISO timestamp');
  });

  it('an append at the expected revision continues the stream', async (store) => {
    const s = stream();
    await store.append(s, [suspended(1)], NO_STREAM);
    const next = await store.append(s, [suspended(2), suspended(3)], 0);
    assert.equal(next.nextRevision, 2);
    assert.deepEqual((await store.readStream(s)).map((e) => e.revision), [0, 1, 2]);
  });

  it('an append at a stale revision throws ConflictError and leaves no trace', async (store) => {
    const s = stream();
    await store.append(s, [suspended(1), suspended(2)], NO_STREAM);
    const before = await store.lastPosition();
    for (const stale of [NO_STREAM, 0, 5]) {
      await assert.rejects(store.append(s, [suspended(9)], stale), (err: unknown) => {
        assert.ok(err instanceof ConflictError, `expected ConflictError for ${stale}, got ${String(err)}`);
        assert.equal(err.expected, stale);
        assert.equal(err.actual, 1);
        return true;
      });
    }
    assert.deepEqual((await store.readStream(s)).map((e) => e.type), ['KeySuspended', 'KeySuspended']);
    assert.equal(await store.lastPosition(), before);
    assert.deepEqual(await store.readAll(before, 10), []);
  });

  it('an append expecting a revision of a stream that does not exist conflicts', async (store) => {
    const s = stream();
    await assert.rejects(store.append(s, [suspended(1)], 0), ConflictError);
    assert.deepEqual(await store.readStream(s), []);
  });

  it('readStream from a revision returns only the later events; a missing stream reads as empty', async (store) => {
    const s = stream();
    await store.append(s, [suspended(1), suspended(2), suspended(3)], NO_STREAM);
    assert.deepEqual((await store.readStream(s, 1)).map((e) => e.revision), [1, 2]);
    assert.deepEqual(await store.readStream(s, 3), []);
    assert.deepEqual(await store.readStream(stream()), []);
  });

  it('readAll returns the events after a position in global order across streams, at most limit', async (store) => {
    const [a, b] = [stream(), stream()];
    const start = await store.lastPosition();
    await store.append(a, [suspended(1)], NO_STREAM);
    await store.append(b, [suspended(2), suspended(3)], NO_STREAM);
    await store.append(a, [suspended(4)], 0);
    const all = await store.readAll(start, 100);
    assert.deepEqual(all.map((e) => [e.stream, e.revision]), [[a, 0], [b, 0], [b, 1], [a, 1]]);
    const firstTwo = await store.readAll(start, 2);
    assert.deepEqual(firstTwo.map((e) => e.position), all.slice(0, 2).map((e) => e.position));
    const rest = await store.readAll(firstTwo[1]!.position, 100);
    assert.deepEqual(rest.map((e) => e.position), all.slice(2).map((e) => e.position));
  });

  it('positions strictly increase, also within one append, and lastPosition is the last of them', async (store) => {
    const s = stream();
    const start = await store.lastPosition();
    await store.append(s, [suspended(1), suspended(2), suspended(3)], NO_STREAM);
    const all = await store.readAll(start, 100);
    assert.equal(all.length, 3);
    for (let i = 1; i < all.length; i++) assert.ok(all[i]!.position > all[i - 1]!.position, 'positions increase');
    assert.ok(all[0]!.position > start);
    assert.equal(await store.lastPosition(), all[2]!.position);
    assert.deepEqual((await store.readStream(s)).map((e) => e.position), all.map((e) => e.position));
  });

  it('concurrent appends at the same revision through two connections: exactly one wins', async (store) => {
    const other = await opts.open();
    try {
      const s = stream();
      await store.append(s, [suspended(0)], NO_STREAM);
      const racers = Array.from({ length: 8 }, (_, i) => (i % 2 ? store : other).append(s, [suspended(i + 1), suspended(100 + i)], 0));
      const settled = await Promise.allSettled(racers);
      const won = settled.filter((r) => r.status === 'fulfilled');
      assert.equal(won.length, 1, 'exactly one append wins');
      for (const r of settled) if (r.status === 'rejected') assert.ok(r.reason instanceof ConflictError, String(r.reason));
      const events = await store.readStream(s);
      assert.equal(events.length, 3, 'the winner wrote both of its events, the losers nothing');
      const keyIds = events.slice(1).map((e) => (e.data as { keyId: string }).keyId);
      const racer = Number(keyIds[0]!.slice(1)) - 1;
      assert.deepEqual(keyIds, [`k${racer + 1}`, `k${100 + racer}`], 'both events come from the same racer');
    } finally {
      await other.close();
    }
  });

  it('every event carries a hash chaining it to the previous event of its stream, over its stored form', async (store) => {
    const [a, b] = [stream(), stream()];
    await store.append(a, [minted('h1'), suspended(1)], NO_STREAM);
    await store.append(b, [suspended(2)], NO_STREAM);
    await store.append(a, [suspended(3)], 1);
    const items: CheckItem[] = [];
    for await (const item of store.checkItems(a)) items.push(item);
    assert.deepEqual(items.map((i) => i.event!.revision), [0, 1, 2]);
    let prev = GENESIS;
    for (const { event, stored } of items) {
      prev = eventHash(prev, { ...event!, data: JSON.parse(event!.data) });
      assert.equal(stored?.hash.toString('hex'), prev.toString('hex'), `revision ${event!.revision}`);
    }
    const report = await checkChain(store.checkItems(b), { stream: b });
    assert.ok(report.ok, JSON.stringify(report.failures));
    assert.equal(report.events, 1);
  });

  it('the digest is the running root over every event in global order, at the last position', async (store) => {
    await store.append(stream(), [suspended(1)], NO_STREAM);
    const digest = await store.digest();
    assert.equal(digest.position, await store.lastPosition());
    let root = GENESIS;
    for await (const { event, stored } of store.checkItems()) if (event) root = nextRoot(root, stored!.hash);
    assert.equal(digest.root, root.toString('hex'));
    const s = stream();
    await store.append(s, [suspended(2)], NO_STREAM);
    let last: CheckItem | undefined;
    for await (const item of store.checkItems(s)) last = item;
    assert.equal((await store.digest()).root, nextRoot(root, last!.stored!.hash).toString('hex'), 'a later digest extends the earlier root');
  });
}
