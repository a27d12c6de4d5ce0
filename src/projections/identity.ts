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

export function apply(db: Database.Database, e: RecordedEvent): void {
  const keyId = keyIdOfStream(e.stream);
  const set = (sql: string, ...args: unknown[]) =>
    prepared(db, `UPDATE keys SET ${sql}, updated_at = ? WHERE key_id = ?`).run(...args, e.recordedAt, keyId);
  switch (e.type) {
    case 'KeyIssued': {
      const d = e.data;
      prepared(db,
        `INSERT OR IGNORE INTO keys (key_id, partner_id, partner_name, key_hash, status, limit_n, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'active', ?, ?, ?)`,
      ).run(keyId, d.partnerId, d.partnerName, d.keyHash, d.limit, d.at, d.at);
      return;
    }
    case 'KeySuspended':
      set(`status = CASE status WHEN 'revoked' THEN 'revoked' ELSE 'suspended' END`);
      return;
    case 'KeyReinstated':
      set(`status = CASE status WHEN 'revoked' THEN 'revoked' ELSE 'active' END`);
      return;
    case 'KeyRevoked':
      set(`status = 'revoked'`);
      return;
    case 'LimitSet':
      set('limit_n = ?', e.data.limit);
      return;
    case 'JobQueued':
      set('held = held + 1');
      return;
    case 'JobCompleted':
    case 'JobFailed':
      set('held = held - 1, used = used + 1');
      return;
    case 'JobCancelled':
      set('held = held - 1');
      return;
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
