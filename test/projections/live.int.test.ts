// The read-model handle's version (src/projections/live.ts): what lets callers reuse rows (the
// auth hook's keys) must move on every change, from this connection or any other, and only then.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openLiveReadModels } from '../../src/projections/live.js';

const nextTurn = () => new Promise((r) => setImmediate(r));

test('the version stays while nothing changes and moves on a commit by another connection or by this one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-live-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'read-models.db');
  const live = openLiveReadModels(path);
  t.after(() => live.close());
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
