// The read-model handle's version (src/projections/live.ts): what lets callers reuse rows (the
// auth hook's keys) must move on every change, from this connection or any other, and only then.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openLiveReadModels } from '../../src/projections/live.js';
import { removeDir } from '../support/remove-dir.js';

const nextTurn = () => new Promise((r) => setImmediate(r));

/** A fresh DATA_DIR's read-models.db, opened as the service opens it. */
function liveIn(t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'rc-live-'));
  t.after(() => removeDir(dir));
  const path = join(dir, 'read-models.db');
  const live = openLiveReadModels(path);
  t.after(() => live.close());
  return { dir, path, live };
}

test('the version stays while nothing changes and moves on a commit by another connection or by this one', async (t) => {
  const { dir, path, live } = liveIn(t);
  const insert = "INSERT INTO keys (key_id, partner_id, partner_name, key_hash, status, created_at, updated_at) VALUES (?, 'p', 'P', ?, 'active', 'a', 'a')";

  const v0 = live.version();
  await nextTurn();
  live.current().prepare('SELECT COUNT(*) FROM keys').get();
  assert.equal(live.version(), v0, 'reads change nothing');

  const other = new Database(path); // another process's connection, as the admin CLI's
  t.after(() => other.close());
  other.prepare(insert).run('k1', 'h1');
  await nextTurn();
  const v1 = live.version();
  assert.notEqual(v1, v0, 'a commit by another connection');

  live.current().prepare(insert).run('k2', 'h2');
  assert.notEqual(live.version(), v1, 'a write on this connection, even within the same stretch of code');
  const v2 = live.version();
  await nextTurn();
  assert.equal(live.version(), v2);
  assert.equal(live.current().prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM keys').get()!.n, 2);
});

test('a swap whose mark never came (a rebuild that died between its rename and its mark) is still noticed within a second or so', async (t) => {
  const { dir, path, live } = liveIn(t);
  const name = () => live.current().prepare<[], { partner_name: string }>('SELECT partner_name FROM keys').get()?.partner_name;
  live.current().prepare("INSERT INTO keys (key_id, partner_id, partner_name, key_hash, status, created_at, updated_at) VALUES ('k', 'p', 'old', 'h', 'active', 'a', 'a')").run();
  // Another generation, swapped in by a bare rename: no commit to the old file.
  const fresh = openLiveReadModels(join(dir, 'gen-2.db'));
  fresh.current().prepare("INSERT INTO keys (key_id, partner_id, partner_name, key_hash, status, created_at, updated_at) VALUES ('k', 'p', 'new', 'h', 'active', 'a', 'a')").run();
  fresh.close();
  symlinkSync('gen-2.db', `${path}.swap`);
  renameSync(`${path}.swap`, path);
  const deadline = Date.now() + 5_000;
  while (name() !== 'new' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.equal(name(), 'new');
});

test('the companion connection writes the file current() reads, and follows it to a new file after a swap', async (t) => {
  const { dir, path, live } = liveIn(t);
  const names = () => live.current().prepare<[], { partner_name: string }>('SELECT partner_name FROM keys ORDER BY key_id').all().map((r) => r.partner_name);
  const insert = (db: Database.Database, key: string, name: string) =>
    db.prepare("INSERT INTO keys (key_id, partner_id, partner_name, key_hash, status, created_at, updated_at) VALUES (?, 'p', ?, ?, 'active', 'a', 'a')").run(key, name, `h-${key}`);
  const first = live.companion();
  assert.notEqual(first, live.current(), 'a connection of its own');
  // Its open transaction is not seen by current() until it commits.
  first.exec('BEGIN IMMEDIATE');
  insert(first, 'k1', 'one');
  assert.deepEqual(names(), []);
  first.exec('COMMIT');
  await nextTurn();
  assert.deepEqual(names(), ['one']);
  assert.equal(live.companion(), first, 'the same connection while the file is the same');

  // A swap (a rename, then the rebuild's mark on the old file, by a connection of its own opened
  // before the rename, as generations.ts swapIn makes it): current() reopens, and so does the companion.
  const fresh = openLiveReadModels(join(dir, 'gen-2.db'));
  insert(fresh.current(), 'k9', 'new');
  fresh.close();
  const rebuild = new Database(path);
  symlinkSync('gen-2.db', `${path}.swap`);
  renameSync(`${path}.swap`, path);
  insert(rebuild, 'k2', 'mark');
  rebuild.close();
  await nextTurn();
  assert.deepEqual(names(), ['new']);
  const second = live.companion();
  assert.notEqual(second, first);
  insert(second, 'k3', 'after');
  await nextTurn();
  assert.deepEqual(names(), ['after', 'new']);
});

test("othersVersion moves on another process's commit and on a swap, not on this process's own", async (t) => {
  const { dir, path, live } = liveIn(t);
  const insert = "INSERT INTO keys (key_id, partner_id, partner_name, key_hash, status, created_at, updated_at) VALUES (?, 'p', 'P', ?, 'active', 'a', 'a')";
  const companion = live.companion();
  const o0 = live.othersVersion();
  companion.prepare(insert).run('k1', 'h1');
  await nextTurn();
  assert.equal(live.othersVersion(), o0, 'this process projecting on the companion');
  live.current().prepare(insert).run('k2', 'h2');
  await nextTurn();
  assert.equal(live.othersVersion(), o0, 'this process projecting on the live handle');
  assert.equal(live.current().prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM keys').get()!.n, 2);
  const other = new Database(path);
  t.after(() => other.close());
  other.prepare(insert).run('k3', 'h3');
  await nextTurn();
  const o1 = live.othersVersion();
  assert.notEqual(o1, o0, 'another process');
  // Another process, then the companion, before the next look: still counted.
  other.prepare(insert).run('k4', 'h4');
  companion.prepare(insert).run('k5', 'h5');
  await nextTurn();
  const o2 = live.othersVersion();
  assert.notEqual(o2, o1, 'another process, though the companion committed after it');
  companion.prepare(insert).run('k6', 'h6');
  await nextTurn();
  assert.equal(live.othersVersion(), o2);
  // A swap with its mark (the rebuild's commit to the old file).
  const fresh = openLiveReadModels(join(dir, 'gen-2.db'));
  fresh.close();
  symlinkSync('gen-2.db', `${path}.swap`);
  renameSync(`${path}.swap`, path);
  other.prepare(insert).run('k7', 'h7');
  await nextTurn();
  assert.notEqual(live.othersVersion(), o2, 'a swap');
});
