// Read model of upload spots. "expired" is derived at read time from expires_at, so a spot shows as
// expired the moment its window closes, before the sweeper records SpotExpired.
import type Database from 'better-sqlite3';
import { keyIdOfStream } from '../events/ledger.js';
import type { RecordedEvent } from '../events/store/port.js';
import { prepared } from './statements.js';

export const ddl = `
CREATE TABLE IF NOT EXISTS uploads (
  handle      TEXT PRIMARY KEY,
  key_id      TEXT NOT NULL,
  state       TEXT NOT NULL,
  expires_at  TEXT NOT NULL,
  size        INTEGER NOT NULL DEFAULT 0,
  job_id      TEXT,
  exercise_id TEXT,
  minted_at   TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS uploads_by_state ON uploads (state, expires_at);`;

export type UploadState = 'minted' | 'uploaded' | 'claimed' | 'expired';

export interface UploadRow {
  handle: string;
  key_id: string;
  state: UploadState;
  expires_at: string;
  size: number;
  job_id: string | null;
  exercise_id: string | null;
  minted_at: string;
}


export function apply(db: Database.Database, e: RecordedEvent): void {
  switch (e.type) {
    case 'SpotMinted': {
      const d = e.data;
      prepared(db,
        `INSERT OR IGNORE INTO uploads (handle, key_id, state, expires_at, minted_at, updated_at) VALUES (?, ?, 'minted', ?, ?, ?)`,
      ).run(d.handle, keyIdOfStream(e.stream), d.expiresAt, d.at, d.at);
      return;
    }
    case 'SpotUploaded': {
      const d = e.data;
      prepared(db,
        `UPDATE uploads SET state = CASE WHEN ? > 0 THEN 'uploaded' ELSE 'minted' END, size = ?, updated_at = ? WHERE handle = ? AND state IN ('minted', 'uploaded')`,
      ).run(d.size, d.size, d.at, d.handle);
      return;
    }
    case 'SpotClaimed': {
      const d = e.data;
      prepared(db, `UPDATE uploads SET state = 'claimed', size = ?, job_id = ?, exercise_id = ?, updated_at = ? WHERE handle = ?`).run(
        d.size, d.jobId, d.exerciseId, d.at, d.handle,
      );
      return;
    }
    case 'SpotExpired': {
      const d = e.data;
      prepared(db, `UPDATE uploads SET state = 'expired', updated_at = ? WHERE handle = ? AND state <> 'claimed'`).run(d.at, d.handle);
      return;
    }
    default:
      return;
  }
}

/** The state a partner sees: a spot past its window that no job claimed is expired. */
export function visibleState(row: Pick<UploadRow, 'state' | 'expires_at'>, now: Date): UploadState {
  if (row.state === 'claimed' || row.state === 'expired') return row.state;
  return Date.parse(row.expires_at) <= now.getTime() ? 'expired' : row.state;
}

export const uploadByHandle = (db: Database.Database, handle: string): UploadRow | undefined =>
  prepared<[string], UploadRow>(db, 'SELECT * FROM uploads WHERE handle = ?').get(handle);

/** Spots past their window that no job claimed and the sweeper has not yet expired. */
export const overdueSpots = (db: Database.Database, now: Date, limit: number): UploadRow[] =>
  prepared<[string, number], UploadRow>(db, 
      `SELECT * FROM uploads WHERE state IN ('minted', 'uploaded') AND expires_at <= ? ORDER BY expires_at LIMIT ?`,
    )
    .all(now.toISOString(), limit);
