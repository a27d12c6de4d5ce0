// Group commit on the SQLite ledger (events/store/sqlite.ts, commands/handle.ts): appends queued in
// one turn of the event loop share one transaction, each is answered only once that transaction is
// durable, and the ledger's guarantees hold for each of them (per-stream optimistic concurrency,
// hash chain and running root, `after` chains). Real files, two connections where a race needs
// another process.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { checkChain } from '../../src/audit/chain.js';
import { createLedger } from '../../src/commands/handle.js';
import { decideUpload } from '../../src/commands/uploads.js';
import { fold } from '../../src/commands/state.js';
import { ledgerStream, type LedgerEvent } from '../../src/events/ledger.js';
import { ConflictError, NO_STREAM } from '../../src/events/store/port.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { removeDir } from '../support/remove-dir.js';

const at = '2026-01-01T00:00:00.000Z';
const suspended = (n: number): LedgerEvent => ({ type: 'KeySuspended', data: { keyId: `k${n}`, at } });

function fresh(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'rc-group-'));
  t.after(() => removeDir(dir));
  return join(dir, 'ledger.db');
}

/** Two stores on one fresh file, as two processes would open it; both closed after the test. */
function twoStores(t: TestContext): [SqliteEventStore, SqliteEventStore] {
  const path = fresh(t);
  const stores: [SqliteEventStore, SqliteEventStore] = [new SqliteEventStore(path), new SqliteEventStore(path)];
  t.after(async () => {
    for (const s of stores) await s.close();
  });
  return stores;
}

/** What another connection (another process) sees of the file right now. */
function countOnDisk(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM events').get()!.n;
  } finally {
    db.close();
  }
}

for (const writer of ['inline', 'thread'] as const) {
test(`appends queued in one turn share one transaction; each is answered only after it is committed (${writer})`, async (t) => {
  const path = fresh(t);
  const store = new SqliteEventStore(path, { writer });
  // The thread takes over once booted: wait for it, so the batch below is the thread's.
  if (writer === 'thread') for (let i = 0; i < 200 && !(await store.append(`ledger-warm-${i}`, [suspended(0)], NO_STREAM).then(() => store.writesOnThread)); i++) await new Promise((r) => setTimeout(r, 25));
  t.after(() => store.close());
  const before = { ...store.commits };
  const pending = Array.from({ length: 50 }, (_, i) => store.append(`ledger-k${i}`, [suspended(i), suspended(100 + i)], NO_STREAM));
  const onDisk = countOnDisk(path);
  assert.equal(onDisk, before.appends, 'nothing is written before the turn ends');
  let answeredEarly = false;
  for (const p of pending) void p.then(() => (answeredEarly ||= countOnDisk(path) < onDisk + 100));
  const results = await Promise.all(pending);
  assert.equal(answeredEarly, false, 'no append was answered before its rows were visible to another connection');
  assert.equal(store.commits.batches - before.batches, 1, 'one transaction');
  assert.equal(store.commits.appends - before.appends, 50);
  const positions = results.map((r) => r.lastPosition);
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b), 'positions follow the order of the queue');
  const report = await checkChain(store.checkItems());
  assert.equal(report.ok, true, JSON.stringify(report));
  assert.equal((await store.digest()).position - before.appends, 100);
  if (writer === 'thread') assert.equal(store.writesOnThread, true, 'the batch was committed on the writer thread');
});
}

test('racing appends to one stream within a batch and from another connection: exactly one wins', async (t) => {
  const [a, b] = twoStores(t);
  await a.append('ledger-r', [suspended(0)], NO_STREAM);
  const racers = Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).append('ledger-r', [suspended(i + 1)], 0));
  const settled = await Promise.allSettled(racers);
  assert.equal(settled.filter((s) => s.status === 'fulfilled').length, 1);
  for (const s of settled) if (s.status === 'rejected') assert.ok(s.reason instanceof ConflictError, String(s.reason));
  assert.equal((await a.readStream('ledger-r')).length, 2);
  assert.equal((await checkChain(a.checkItems())).ok, true);
});

test('an append queued `after` a refused one is refused too, even when the head now matches its revision', async (t) => {
  const [store, other] = twoStores(t);
  await store.append('ledger-x', [suspended(0)], NO_STREAM);
  // Another process appends revision 1 first; ours were decided on revision 0 and chained.
  await other.append('ledger-x', [suspended(1)], 0);
  const first = store.enqueue('ledger-x', [suspended(2)], 0);
  const second = store.enqueue('ledger-x', [suspended(3)], 1, first);
  await assert.rejects(first.done, ConflictError);
  await assert.rejects(second.done, ConflictError, 'revision 1 is the head, but the state it was decided on never existed');
  // And across batches: one queued after the refused one, later.
  const third = store.enqueue('ledger-x', [suspended(4)], 1, second);
  await assert.rejects(third.done, ConflictError);
  assert.deepEqual((await store.readStream('ledger-x')).map((e) => (e.data as { keyId: string }).keyId), ['k0', 'k1']);
  // A chain whose first link is written is written whole, in one commit.
  const batches = store.commits.batches;
  const x = store.enqueue('ledger-x', [suspended(5)], 1);
  const y = store.enqueue('ledger-x', [suspended(6)], 2, x);
  assert.deepEqual([(await x.done).nextRevision, (await y.done).nextRevision], [2, 3]);
  assert.equal(store.commits.batches - batches, 1);
});

test('an event that cannot be encoded fails its own append at once, not the batch', async (t) => {
  const store = new SqliteEventStore(fresh(t));
  t.after(() => store.close());
  const good = store.append('ledger-g', [suspended(1)], NO_STREAM);
  const bad = { type: 'KeySuspended', data: { keyId: 'k', at, n: 1n } } as unknown as LedgerEvent;
  await assert.rejects(store.append('ledger-b', [bad], NO_STREAM), TypeError);
  assert.equal((await good).nextRevision, 0);
});

test("one partner's concurrent commands pipeline into shared commits, each decided on the state after the one before", async (t) => {
  const [store, other] = twoStores(t);
  const keyId = 'key_pipe';
  const ledger = createLedger(store);
  await ledger.handle(keyId, () => [{ type: 'KeyIssued', data: { keyId, partnerId: 'p', partnerName: 'P', keyHash: 'h', limit: null, at } }]);
  const limits = { spotsPerWindow: 40, windowSeconds: 3600, unclaimedBytesCap: 1e12 };
  const mint = (i: number) => ledger.handle(keyId, (s) =>
    decideUpload({ type: 'MintSpot', handle: `up_${i}`, expiresAt: '2026-01-01T00:15:00.000Z', now: at, observed: {}, limits }, s));
  const batches = store.commits.batches;
  // Another process commits to the same stream first (its commit is queued first), so the first
  // batch of ours conflicts whole and is decided again; then 50 mints against a window of 40.
  const foreign = other.append(ledgerStream(keyId), [{ type: 'LimitSet', data: { keyId, limit: 7, at } }], 0);
  const mints = Array.from({ length: 50 }, (_, i) => mint(i));
  const settled = await Promise.allSettled(mints);
  assert.equal((await foreign).nextRevision, 1);
  const ok = settled.filter((s) => s.status === 'fulfilled');
  const refused = settled.filter((s) => s.status === 'rejected');
  assert.equal(ok.length, 40, 'exactly the window');
  for (const r of refused) assert.equal((r as PromiseRejectedResult).reason.code, 'spots_per_window_exceeded');
  assert.ok(store.commits.batches - batches < 25, `50 commands took ${store.commits.batches - batches} commits`);
  const events = await store.readStream(ledgerStream(keyId));
  assert.deepEqual(events.map((e) => e.revision), events.map((_, i) => i), 'no gap, no duplicate revision');
  assert.equal(events.filter((e) => e.type === 'SpotMinted').length, 40);
  assert.equal(events[1]!.type, 'LimitSet');
  const answers = ok.map((s) => (s as PromiseFulfilledResult<{ revision: number; state: ReturnType<typeof fold> }>).value);
  for (const a of answers) {
    // Compared as JSON: the persistent maps' inner layout depends on how a version was reached.
    assert.deepEqual(JSON.parse(JSON.stringify(a.state)), JSON.parse(JSON.stringify(fold(events.slice(0, a.revision + 1)))), 'each answer is the state the ledger holds at its revision');
  }
  assert.equal((await checkChain(store.checkItems())).ok, true);
});

test('a writer thread that stops loses nothing acknowledged: its batch is reported unavailable, and later appends commit inline', async (t) => {
  const path = fresh(t);
  const store = new SqliteEventStore(path, { writer: 'thread' });
  t.after(() => store.close());
  for (let i = 0; i < 200 && !store.writesOnThread; i++) {
    await store.append(`ledger-warm-${i}`, [suspended(0)], NO_STREAM);
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.equal(store.writesOnThread, true, 'the thread booted');
  const thread = (store as unknown as { writer: import('node:worker_threads').Worker }).writer;
  const exited = new Promise((r) => thread.once('exit', r));
  const inFlight = store.append('ledger-cut', [suspended(1)], NO_STREAM);
  await new Promise((r) => setImmediate(r)); // posted to the thread
  await thread.terminate();
  await exited;
  // Its outcome is unknown to the caller (as with a lost connection): unavailable, or written if
  // the thread committed before it stopped. Never a silent success without the row.
  const outcome = await inFlight.then(() => 'written', (err) => err.name);
  const rows = (await store.readStream('ledger-cut')).length;
  assert.ok((outcome === 'written' && rows === 1) || outcome === 'StoreUnavailableError', `${outcome}, ${rows} rows`);
  assert.equal(store.writesOnThread, false);
  const after = await store.append('ledger-after', [suspended(2)], NO_STREAM);
  assert.equal(after.nextRevision, 0);
  assert.equal((await checkChain(store.checkItems())).ok, true);
});

for (const writer of ['inline', 'thread'] as const) {
test(`committedAfter: this store's own commits from memory, as readAll reads them; undefined past another writer's (${writer})`, async (t) => {
  const path = fresh(t);
  const store = new SqliteEventStore(path, { writer });
  const other = new SqliteEventStore(path);
  t.after(async () => {
    await store.close();
    await other.close();
  });
  assert.equal(store.committedAfter(0), undefined, 'nothing committed yet: it cannot tell');
  await store.append('ledger-m', [suspended(0)], NO_STREAM);
  // A batch of several appends, several events each, on two streams.
  const a = store.enqueue('ledger-m', [suspended(1), suspended(2)], 0);
  const b = store.enqueue('ledger-n', [suspended(3)], NO_STREAM);
  const c = store.enqueue('ledger-m', [suspended(4)], 2, a);
  await Promise.all([a.done, b.done, c.done]);
  for (const from of [0, 1, 3]) assert.deepEqual(store.committedAfter(from), await store.readAll(from, 100), `after ${from}`);
  assert.deepEqual(store.committedAfter(5), [], 'nothing of its own after its last commit');
  // A refused append holds nothing.
  await assert.rejects(store.append('ledger-m', [suspended(9)], 0), ConflictError);
  assert.deepEqual(store.committedAfter(5), []);
  // Another writer's event, then ours: from before the other's, memory cannot tell; from it, it can.
  await other.append('ledger-o', [suspended(5)], NO_STREAM);
  await store.append('ledger-m', [suspended(6)], 3);
  assert.equal(store.committedAfter(5), undefined, "another writer's event lies between");
  assert.deepEqual(store.committedAfter(6), await store.readAll(6, 100));
});
}

test("handle's readAt: decided on the state load() just returned without reading the stream again; another writer's append in between is a conflict, and the retry reads it", async (t) => {
  const [store, other] = twoStores(t);
  let reads = 0;
  const readStream = store.readStream.bind(store);
  store.readStream = (stream, from) => ((reads += 1), readStream(stream, from));
  const keyId = 'key_read_at';
  const ledger = createLedger(store);
  const limits = { spotsPerWindow: 40, windowSeconds: 3600, unclaimedBytesCap: 1e12 };
  const mint = (i: number) => (s: ReturnType<typeof fold>) =>
    decideUpload({ type: 'MintSpot', handle: `up_${i}`, expiresAt: '2026-01-01T00:15:00.000Z', now: at, observed: {}, limits }, s);
  await ledger.handle(keyId, () => [{ type: 'KeyIssued', data: { keyId, partnerId: 'p', partnerName: 'P', keyHash: 'h', limit: null, at } }]);

  let loaded = await ledger.load(keyId);
  reads = 0;
  assert.equal((await ledger.handle(keyId, mint(0), loaded.revision)).revision, 1);
  assert.equal(reads, 0, 'no second read of the stream');

  // Another process appends between our load and our command: decided on the held state, refused
  // by the store, decided again on what the stream holds.
  loaded = await ledger.load(keyId);
  await other.append(ledgerStream(keyId), [{ type: 'LimitSet', data: { keyId, limit: 7, at } }], loaded.revision);
  reads = 0;
  const d = await ledger.handle(keyId, mint(1), loaded.revision);
  assert.equal(d.revision, 3);
  assert.equal(reads, 1, 'the retry read the stream');
  assert.deepEqual((await store.readStream(ledgerStream(keyId))).map((e) => e.type), ['KeyIssued', 'SpotMinted', 'LimitSet', 'SpotMinted']);
  assert.equal(d.state.limit, 7);
});
