// Replays the ledger into a read-model database, page by page, straight from the SQLite events
// table: the rebuild and the verifier both start from an empty file and must reach the live
// position as fast as the disk allows, so they skip the async store port and its per-call cost.
import Database from 'better-sqlite3';
import type { RecordedEvent } from '../events/store/port.js';
import { upcast } from '../events/upcasters.js';
import { applyBatch, checkpointOf } from './runner.js';

/** A row of the events table as an array (no per-row object with named keys: a replay reads millions). */
export type EventRow = [position: number, stream: string, revision: number, type: string, schemaVersion: number, data: string, recordedAt: string];

/** As the store's toRecorded(), from the array form. */
export function recorded(r: EventRow): RecordedEvent {
  const lifted = upcast({ type: r[3], data: JSON.parse(r[5]), schemaVersion: r[4] });
  return { stream: r[1], revision: r[2], position: r[0], schemaVersion: lifted.schemaVersion, type: lifted.type, data: lifted.data, recordedAt: r[6] } as RecordedEvent;
}

export interface Progress {
  done: number;
  /** Events to replay in all; it grows while the ledger grows under a running API. */
  total: number;
  elapsedMs: number;
}

export interface LedgerSource {
  db: Database.Database;
  lastPosition(): number;
  /** Events after `after` and at or below `upTo`, in global order, at most `limit`. */
  page(after: number, upTo: number, limit: number): EventRow[];
  close(): void;
}

export function openLedgerSource(path: string, busyTimeoutMs = 5000): LedgerSource {
  // Not readonly: the swap fences appenders by taking this file's write lock (rebuild.ts).
  const db = new Database(path, { fileMustExist: true, timeout: busyTimeoutMs });
  const last = db.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events');
  const page = db
    .prepare<[number, number, number], EventRow>(
      'SELECT position, stream, revision, type, schema_version, data, recorded_at FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?',
    )
    .raw(true);
  return {
    db,
    lastPosition: () => last.get()?.p ?? 0,
    page: (after, upTo, limit) => page.all(after, upTo, limit),
    close: () => db.close(),
  };
}

export const BATCH = 2_000;

/**
 * Applies the events after the target's checkpoint up to `upTo` (default: the ledger's head when
 * called), at most `maxEvents` of them, `batch` events per transaction. Synchronous on purpose: the final catch-up of a rebuild runs inside the ledger's write
 * lock and must not yield to the event loop. Returns the target's new checkpoint.
 */
export function replayInto(
  source: LedgerSource,
  target: Database.Database,
  opts: { upTo?: number; maxEvents?: number; batch?: number; onBatch?: (done: number, upTo: number) => void } = {},
): number {
  const upTo = opts.upTo ?? source.lastPosition();
  let budget = opts.maxEvents ?? Infinity;
  let position = checkpointOf(target);
  while (budget > 0) {
    const rows = source.page(position, upTo, Math.min(opts.batch ?? BATCH, budget));
    if (rows.length === 0) break;
    position = applyBatch(target, rows.map(recorded));
    budget -= rows.length;
    opts.onBatch?.(rows.length, upTo);
  }
  return position;
}
