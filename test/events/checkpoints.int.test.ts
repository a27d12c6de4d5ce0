// WAL checkpoints off the request path (events/store/sqlite-checkpointer.ts, issue 22u): a
// long-running server's ledger writer thread and its read-model connections do not checkpoint in
// their commits; the checkpointer thread does, on a timer, so the files still get their pages.
// Real files; "checkpointed" is seen from outside as the main database file growing (only a
// checkpoint writes pages there in WAL mode).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LedgerEvent } from '../../src/events/ledger.js';
import { NO_STREAM } from '../../src/events/store/port.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { openLiveReadModels } from '../../src/projections/live.js';
import { removeDir } from '../support/remove-dir.js';

const at = '2026-01-01T00:00:00.000Z';
const suspended = (n: number): LedgerEvent => ({ type: 'KeySuspended', data: { keyId: `k${n}`, at } });

const freshDir = () => mkdtempSync(join(tmpdir(), 'rc-ckpt-'));

const sizeOf = (path: string) => statSync(path).size;

/** Waits up to `ms` for `ok()`; its last answer. */
async function within(ms: number, ok: () => boolean): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (ok()) return true;
  return ok();
}

test('the ledger written on its writer thread is checkpointed by the checkpointer thread, not at 1,000 pages in a commit', async (t) => {
  const dir = freshDir();
  const path = join(dir, 'ledger.db');
  const store = new SqliteEventStore(path, { writer: 'thread' });
  // The store closes before its directory goes (t.after hooks run in the order registered).
  t.after(() => store.close());
  t.after(() => removeDir(dir));
  for (let i = 0; i < 400 && !store.writesOnThread; i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(store.writesOnThread, 'the writer thread booted');
  const before = sizeOf(path);
  // Sixty lone commits, a few pages each: far below SQLite's automatic checkpoint (1,000 pages), so
  // with it the file would not grow at all; the checkpointer (started 2 s after the first hand-over, then every 0.5 s) moves them.
  for (let i = 0; i < 60; i++) await store.append(`ledger-k${i}`, [suspended(i)], NO_STREAM);
  assert.ok(await within(10_000, () => sizeOf(path) > before), `the ledger file grew from ${before} bytes: checkpointed`);
});

test("a server's read-model connections hand their checkpoints to the checkpointer thread and take them back at close", async (t) => {
  const dir = freshDir();
  const path = join(dir, 'read-models.db');
  const live = openLiveReadModels(path, { checkpointsOffThread: true });
  let closed = false;
  t.after(() => {
    if (!closed) live.close();
  });
  t.after(() => removeDir(dir));
  const db = live.current();
  const companion = live.companion();
  assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0, 'no checkpoint in the event loop connection\'s commits');
  assert.equal(companion.pragma('wal_autocheckpoint', { simple: true }), 0, 'nor in the companion\'s');
  db.exec('CREATE TABLE filler (x TEXT)');
  const before = sizeOf(path);
  const insert = db.prepare('INSERT INTO filler (x) VALUES (?)');
  for (let i = 0; i < 40; i++) insert.run('x'.repeat(2_000));
  assert.ok(await within(10_000, () => sizeOf(path) > before), `the read-model file grew from ${before} bytes: checkpointed`);
  live.close();
  closed = true;

  // Without the option, SQLite's own (the admin CLI, tests, one-shot commands).
  const plain = openLiveReadModels(path);
  t.after(() => plain.close());
  assert.equal(plain.current().pragma('wal_autocheckpoint', { simple: true }), 1000);
});
