// One group commit of the SQLite ledger: a batch of appends written in one IMMEDIATE transaction
// (one fsync of the WAL with synchronous=FULL). Used on the store's own connection (inline) or on
// the writer thread's (sqlite-writer-thread.ts); sqlite.ts says when which.
import type Database from 'better-sqlite3';
import { CURRENT_SCHEMA_VERSION } from '../ledger.js';
import { ChainWriter } from './sqlite-chain.js';

/** One append of a batch, its events' data already canonical JSON (the stored and hashed text). */
export interface BatchEntry {
  stream: string;
  expected: number;
  events: { type: string; data: string }[];
  /** Index of the append of this batch it was decided on top of: written only if that one is. */
  after?: number;
}

/** Per entry: where it was written, or the stream's head when it was refused (a conflict). */
export type BatchResult = { nextRevision: number; lastPosition: number } | { conflict: number };

export type BatchWriter = (batch: readonly BatchEntry[], recordedAt: string) => BatchResult[];

/**
 * `beforeCommit`: called with the batch's results inside its transaction, after the last insert
 * and before COMMIT (the writer thread tells the event loop where the rows went while the fsync
 * runs: sqlite-writer-thread.ts).
 */
export function batchWriter(db: Database.Database, beforeCommit?: (results: BatchResult[]) => void): BatchWriter {
  const chain = new ChainWriter(db);
  const insert = db.prepare('INSERT INTO events (stream, revision, type, schema_version, data, recorded_at) VALUES (?, ?, ?, ?, ?, ?)');
  const head = db.prepare<[string], { revision: number | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream = ?');
  // IMMEDIATE takes the write lock before any head is read, so each check-then-insert is atomic
  // across processes too. Each append is checked on its own: a refused one writes nothing and the
  // others of the batch go on.
  return db.transaction((batch: readonly BatchEntry[], recordedAt: string) => {
    const out: BatchResult[] = [];
    // The running root is carried from one append to the next, and each stream's last hash.
    let tip = chain.startBatch();
    const heads = new Map<string, Buffer>();
    for (const q of batch) {
      const { stream, expected } = q;
      const actual = head.get(stream)?.revision ?? -1;
      // Decided on top of an append that was refused: refused too, whatever the head is now.
      const orphan = q.after !== undefined && 'conflict' in out[q.after]!;
      if (orphan || actual !== expected) {
        out.push({ conflict: actual });
        continue;
      }
      let revision = actual;
      let position = 0;
      let prev = tip && (heads.get(stream) ?? chain.previousHash(stream, actual));
      for (const e of q.events) {
        revision += 1;
        const info = insert.run(stream, revision, e.type, CURRENT_SCHEMA_VERSION, e.data, recordedAt);
        position = Number(info.lastInsertRowid);
        if (tip && prev) {
          const next = chain.add({ prev, root: tip.root }, position, { stream, revision, type: e.type, schemaVersion: CURRENT_SCHEMA_VERSION, recordedAt }, e.data);
          prev = next.prev;
          tip = { root: next.root };
        }
      }
      if (prev) heads.set(stream, prev);
      out.push({ nextRevision: revision, lastPosition: position });
    }
    beforeCommit?.(out);
    return out;
  }).immediate;
}
