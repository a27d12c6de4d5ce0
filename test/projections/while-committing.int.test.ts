// The projection of this process's own appends while the ledger's fsync of them runs (issue 22q:
// SqliteEventStore.whileCommitting, Projector.whileCommitting, LiveReadModels.companion): the
// writer thread tells where a batch's rows went before its COMMIT; the read models take them on a
// second connection, in a transaction committed only once the ledger's commit is durable, and the
// append is answered after that. Real files; further connections stand for any other reader.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { NO_STREAM, type RecordedEvent } from '../../src/events/store/port.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { checkpointOf, createProjector } from '../../src/projections/runner.js';
import { openLiveReadModels } from '../../src/projections/live.js';
import { keyById } from '../../src/projections/identity.js';

const at = '2026-01-01T00:00:00.000Z';
const issued = (keyId: string) => ({ type: 'KeyIssued' as const, data: { keyId, partnerId: `p-${keyId}`, partnerName: keyId, keyHash: `hash-${keyId}`, limit: null, at } });

const count = (path: string, table: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n;
  } finally {
    db.close();
  }
};

/** A thread-writing store (booted), a second store on the same ledger (another process), live read models, a projector. */
async function setUp(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'rc-while-'));
  const paths = { ledger: join(dir, 'ledger.db'), readModels: join(dir, 'read-models.db') };
  const ours = new SqliteEventStore(paths.ledger, { writer: 'thread' });
  const other = new SqliteEventStore(paths.ledger);
  const live = openLiveReadModels(paths.readModels);
  t.after(async () => {
    await ours.close();
    await other.close();
    live.close();
    rmSync(dir, { recursive: true, force: true });
  });
  for (let i = 0; i < 200 && !ours.writesOnThread; i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(ours.writesOnThread, 'the writer thread booted');
  let reads = 0;
  const readAll = ours.readAll.bind(ours);
  ours.readAll = (after, limit) => ((reads += 1), readAll(after, limit));
  // The projector's own uses of the live handle (a catch-up reads the checkpoint through it).
  let handles = 0;
  const projector = createProjector(ours, () => ((handles += 1), live.current()), live.companion);
  return { paths, ours, other, db: live.current, projector, reads: () => reads, handles: () => handles };
}

test('own events are projected while the fsync runs, seen by readers only once the ledger has them, and answered after', async (t) => {
  const { paths, ours, db, projector, reads, handles } = await setUp(t);
  const seen: { rows: RecordedEvent[]; durable: boolean; keysMeanwhile: number; keysOnDisk: number; ledgerOnDisk: number; answered: boolean }[] = [];
  let answered = false;
  ours.whileCommitting = (rows) => {
    const finish = projector.whileCommitting(rows);
    assert.ok(finish, 'applied: they follow the checkpoint');
    // The transaction is open: this process's own reader and another process see nothing yet.
    const keysMeanwhile = (db().prepare('SELECT COUNT(*) AS n FROM keys').get() as { n: number }).n;
    return (durable) => {
      finish(durable);
      seen.push({ rows, durable, keysMeanwhile, keysOnDisk: count(paths.readModels, 'keys'), ledgerOnDisk: count(paths.ledger, 'events'), answered });
    };
  };
  const r = await ours.append('ledger-k1', [issued('k1')], NO_STREAM).then((x) => ((answered = true), x));
  assert.equal(seen.length, 1);
  const [s] = seen;
  assert.deepEqual(s!.rows, await ours.readAll(0, 10), 'the rows told are the ledger rows');
  assert.equal(s!.keysMeanwhile, 0);
  assert.equal(s!.durable, true);
  assert.equal(s!.ledgerOnDisk, 1, 'told durable once the ledger commit was on disk');
  assert.equal(s!.keysOnDisk, 1, 'the read models committed then');
  assert.equal(s!.answered, false, 'before the append was answered');
  // Projected by the time the append answers, with no catch-up asked and nothing read back.
  assert.ok(keyById(db(), 'k1'));
  assert.equal(checkpointOf(db()), r.lastPosition);
  const before = reads();
  const handlesBefore = handles();
  await projector.catchUpOwn();
  assert.equal(reads(), before, 'the catch-up after the append had nothing left');
  // Nor did it read the checkpoint to find that out (issue 22s): nothing of ours was committed after it.
  assert.equal(handles(), handlesBefore, 'no read of the checkpoint');

  // An own append the early projection did not take: the catch-up after it still projects it.
  ours.whileCommitting = undefined;
  const late = await ours.append('ledger-k2', [issued('k2')], NO_STREAM);
  assert.equal(keyById(db(), 'k2'), undefined);
  await projector.catchUpOwn();
  assert.ok(keyById(db(), 'k2'));
  assert.equal(checkpointOf(db()), late.lastPosition);
  assert.equal(reads(), before, 'from memory');
});

test('a refused append of the batch is not told; another writer\'s event first leaves the projection to the catch-up', async (t) => {
  const { ours, other, db, projector } = await setUp(t);
  const told: RecordedEvent[][] = [];
  const applied: boolean[] = [];
  ours.whileCommitting = (rows) => {
    told.push(rows);
    const finish = projector.whileCommitting(rows);
    applied.push(finish !== undefined);
    return finish;
  };
  // One turn, one batch: the second append on the same new stream is a conflict.
  const [a, b] = [ours.append('ledger-k1', [issued('k1')], NO_STREAM), ours.append('ledger-k1', [issued('k1b')], NO_STREAM)];
  await a;
  await assert.rejects(b);
  assert.deepEqual(told.map((rows) => rows.map((e) => e.data)), [[issued('k1').data]]);
  assert.ok(keyById(db(), 'k1'));

  // Another process's event lies between the checkpoint and ours: nothing is written early...
  await other.append('ledger-k2', [issued('k2')], NO_STREAM);
  const mine = await ours.append('ledger-k3', [issued('k3')], NO_STREAM);
  assert.deepEqual(applied, [true, false]);
  assert.equal(keyById(db(), 'k3'), undefined);
  // ...and the catch-up after the append projects both, from the ledger.
  await projector.catchUpOwn();
  assert.ok(keyById(db(), 'k2') && keyById(db(), 'k3'));
  assert.equal(checkpointOf(db()), mine.lastPosition);
});

test('a failed ledger commit rolls the early projection back; a catch-up asked meanwhile waits for it instead of for its lock', async (t) => {
  const { paths, ours, other, db, projector } = await setUp(t);
  await ours.append('ledger-k0', [issued('k0')], NO_STREAM);
  await projector.catchUp();
  const at0 = checkpointOf(db());
  // Told of an append that will fail (an event at the next position that never reaches the ledger)...
  const events = [{ ...(await ours.readAll(0, 1))[0]!, position: at0 + 1, stream: 'ledger-kx', data: issued('kx').data }] as RecordedEvent[];
  const finish = projector.whileCommitting(events);
  assert.ok(finish);
  // ...while another process's event does: a catch-up asked while the transaction is open waits
  // for it (no SQLITE_BUSY on the lock it holds) and projects that event after the rollback.
  await other.append('ledger-k2', [issued('k2')], NO_STREAM);
  let caughtUp = false;
  const catchUp = projector.catchUp().then(() => (caughtUp = true));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(caughtUp, false, 'it waits for the open transaction');
  finish(false);
  await catchUp;
  assert.equal(keyById(db(), 'kx'), undefined);
  assert.ok(keyById(db(), 'k2'));
  assert.equal(count(paths.readModels, 'keys'), 2);
  assert.equal(checkpointOf(db()), at0 + 1);
});
