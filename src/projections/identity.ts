// Read model of keys: who the key belongs to, its status and its usage counters.
import type Database from 'better-sqlite3';
import { keyIdOfStream } from '../events/ledger.js';
import type { RecordedEvent } from '../events/store/port.js';
import { prepared } from './statements.js';

export const ddl = `
CREATE TABLE IF NOT EXISTS keys (
  key_id       TEXT PRIMARY KEY,
  partner_id   TEXT NOT NULL,
  partner_name TEXT NOT NULL,
  key_hash     TEXT NOT NULL UNIQUE,
  status       TEXT NOT NULL,
  limit_n      INTEGER,
  used         INTEGER NOT NULL DEFAULT 0,
  held         INTEGER NOT NULL DEFAULT 0,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
);`;

export interface KeyRow {
  key_id: string;
  partner_id: string;
  partner_name: string;
  key_hash: string;
  status: 'active' | 'suspended' | 'revoked';
  limit_n: number | null;
  used: number;
  held: number;
  created_at: string;
  updated_at: string;
}

// One fixed SQL text per change: apply runs for every event of a rebuild, so it builds no strings
// and no closures per call.
const SET = {
  suspended: `status = CASE status WHEN 'revoked' THEN 'revoked' ELSE 'suspended' END`,
  reinstated: `status = CASE status WHEN 'revoked' THEN 'revoked' ELSE 'active' END`,
  revoked: `status = 'revoked'`,
  limit: 'limit_n = ?',
  hold: 'held = held + 1',
  consume: 'held = held - 1, used = used + 1',
  release: 'held = held - 1',
};
const UPDATE = Object.fromEntries(
  Object.entries(SET).map(([k, sql]) => [k, `UPDATE keys SET ${sql}, updated_at = ? WHERE key_id = ?`]),
) as Record<keyof typeof SET, string>;

/**
 * The events whose apply below changes a key's row beyond its usage counters (held, used,
 * updated_at): what authentication reads of a key changes only with these (http/auth.ts).
 */
const CHANGES_KEY = new Set(['KeyIssued', 'KeySuspended', 'KeyReinstated', 'KeyRevoked', 'LimitSet']);
export const changesKey = (e: RecordedEvent): boolean => CHANGES_KEY.has(e.type);

export function apply(db: Database.Database, e: RecordedEvent): void {
  switch (e.type) {
    case 'KeyIssued': {
      const d = e.data;
      prepared(db,
        `INSERT OR IGNORE INTO keys (key_id, partner_id, partner_name, key_hash, status, limit_n, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'active', ?, ?, ?)`,
      ).run(keyIdOfStream(e.stream), d.partnerId, d.partnerName, d.keyHash, d.limit, d.at, d.at);
      return;
    }
    case 'KeySuspended':
      return void prepared(db, UPDATE.suspended).run(e.recordedAt, keyIdOfStream(e.stream));
    case 'KeyReinstated':
      return void prepared(db, UPDATE.reinstated).run(e.recordedAt, keyIdOfStream(e.stream));
    case 'KeyRevoked':
      return void prepared(db, UPDATE.revoked).run(e.recordedAt, keyIdOfStream(e.stream));
    case 'LimitSet':
      return void prepared(db, UPDATE.limit).run(e.data.limit, e.recordedAt, keyIdOfStream(e.stream));
    case 'JobQueued':
      return void prepared(db, UPDATE.hold).run(e.recordedAt, keyIdOfStream(e.stream));
    case 'JobCompleted':
    case 'JobFailed':
      return void prepared(db, UPDATE.consume).run(e.recordedAt, keyIdOfStream(e.stream));
    case 'JobCancelled':
      return void prepared(db, UPDATE.release).run(e.recordedAt, keyIdOfStream(e.stream));
    default:
      return;
  }
}

export const keyByHash = (db: Database.Database, hash: string): KeyRow | undefined =>
  prepared<[string], KeyRow>(db, 'SELECT * FROM keys WHERE key_hash = ?').get(hash);

export const keyById = (db: Database.Database, keyId: string): KeyRow | undefined =>
  prepared<[string], KeyRow>(db, 'SELECT * FROM keys WHERE key_id = ?').get(keyId);

export const listKeys = (db: Database.Database): KeyRow[] =>
  prepared<[], KeyRow>(db, 'SELECT * FROM keys ORDER BY created_at, key_id').all();

export function usageOf(row: Pick<KeyRow, 'limit_n' | 'used' | 'held'>) {
  const limit = row.limit_n;
  return { limit, used: row.used, remaining: limit === null ? null : Math.max(0, limit - row.used - row.held) };
}
