// Moving the embedded ledger to KurrentDB: every stream arrives whole, in order, with its own
// times and schema versions; a rerun after an interruption copies only what is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LedgerEvent } from '../../src/events/ledger.js';
import { KurrentDbEventStore, type StoredEvent } from '../../src/events/store/kurrentdb.js';
import { migrateSqliteToKurrentDb } from '../../src/events/store/migrate.js';
import { ConflictError, NO_STREAM } from '../../src/events/store/port.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { removeDir } from '../support/remove-dir.js';

const url = process.env.KURRENTDB_URL;

/** A ledger of three keys, with single and multi-event appends interleaved across streams. */
async function sqliteLedger(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'rc-migrate-'));
  t.after(() => removeDir(dir));
  const path = join(dir, 'ledger.db');
  let tick = 0;
  const store = new SqliteEventStore(path, { clock: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)) });
  const streams = [1, 2, 3].map(() => `ledger-key_${randomUUID()}`);
  const ev = (n: number): LedgerEvent => ({ type: 'SpotMinted', data: { handle: `h${n}`, expiresAt: '2026-01-01T00:15:00.000Z', at: '2026-01-01T00:00:00.000Z' } });
  const heads = new Map<string, number>();
  for (let n = 0; n < 30; n++) {
    const s = streams[n % 3]!;
    const head = heads.get(s) ?? NO_STREAM;
    const events = n % 4 === 0 ? [ev(n), ev(n + 1000)] : [ev(n)];
    await store.append(s, events, head);
    heads.set(s, head + events.length);
  }
  const expected = new Map(await Promise.all(streams.map(async (s) => [s, await store.readStream(s)] as const)));
  await store.close();
  return { path, streams, expected, total: [...expected.values()].reduce((n, e) => n + e.length, 0) };
}

function memoryTarget() {
  const streams = new Map<string, StoredEvent[]>();
  return {
    streams,
    async streamTail(s: string) {
      const have = streams.get(s) ?? [];
      return have.length ? { ...have[have.length - 1]!, revision: have.length - 1 } : undefined;
    },
    async appendStored(s: string, events: readonly StoredEvent[], expected: number) {
      const have = streams.get(s) ?? [];
      if (have.length - 1 !== expected) throw new ConflictError(s, expected, have.length - 1);
      streams.set(s, [...have, ...events]);
      return { nextRevision: have.length + events.length - 1, lastPosition: 0 };
    },
  };
}

test('migration copies every stream whole and in order, with its recorded times and schema versions', async (t) => {
  const ledger = await sqliteLedger(t);
  const target = memoryTarget();
  const report = await migrateSqliteToKurrentDb(ledger.path, target);
  assert.deepEqual(report, { events: ledger.total, copied: ledger.total, alreadyThere: 0, streams: 3 });
  for (const [s, events] of ledger.expected) {
    assert.deepEqual(target.streams.get(s), events.map((e) => ({ type: e.type, data: e.data, schemaVersion: e.schemaVersion, recordedAt: e.recordedAt })));
  }
});

test('a migration rerun after an interruption copies only the missing events', async (t) => {
  const ledger = await sqliteLedger(t);
  const target = memoryTarget();
  const [first] = ledger.streams;
  const done = ledger.expected.get(first!)!.slice(0, 3).map((e) => ({ type: e.type, data: e.data, schemaVersion: e.schemaVersion, recordedAt: e.recordedAt }));
  target.streams.set(first!, done);
  const report = await migrateSqliteToKurrentDb(ledger.path, target);
  assert.equal(report.alreadyThere, 3);
  assert.equal(report.copied, ledger.total - 3);
  assert.equal(target.streams.get(first!)!.length, ledger.expected.get(first!)!.length);
  const again = await migrateSqliteToKurrentDb(ledger.path, target);
  assert.deepEqual(again, { events: ledger.total, copied: 0, alreadyThere: ledger.total, streams: 3 });
});

test('a migration into a KurrentDB stream that is not a copy of the ledger stops with a message', async (t) => {
  const ledger = await sqliteLedger(t);
  const target = memoryTarget();
  target.streams.set(ledger.streams[1]!, Array.from({ length: 50 }, () => ({ type: 'SpotMinted', data: {}, schemaVersion: 1, recordedAt: '2025-01-01T00:00:00.000Z' })));
  await assert.rejects(migrateSqliteToKurrentDb(ledger.path, target), /not a copy of it/);
  target.streams.set(ledger.streams[1]!, [{ type: 'KeySuspended', data: {}, schemaVersion: 1, recordedAt: '2025-01-01T00:00:00.000Z' }]);
  await assert.rejects(migrateSqliteToKurrentDb(ledger.path, target), /not a copy of it/);
});

test('kurrentdb: a migrated ledger reads back the same from KurrentDB', { skip: url ? false : 'KURRENTDB_URL not set' }, async (t) => {
  const ledger = await sqliteLedger(t);
  const store = new KurrentDbEventStore(url!);
  t.after(() => store.close());
  await migrateSqliteToKurrentDb(ledger.path, store);
  for (const [s, events] of ledger.expected) {
    const strip = (e: { stream: string; revision: number; type: string; data: unknown; schemaVersion: number; recordedAt: string }) =>
      ({ stream: e.stream, revision: e.revision, type: e.type, data: e.data, schemaVersion: e.schemaVersion, recordedAt: e.recordedAt });
    assert.deepEqual((await store.readStream(s)).map(strip), events.map(strip));
  }
  const again = await migrateSqliteToKurrentDb(ledger.path, store);
  assert.equal(again.copied, 0);
});
