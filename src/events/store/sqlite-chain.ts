// The hash chain of the SQLite ledger (events/chain.ts defines it), kept in a side table so no event
// row is ever rewritten: event_hashes has one row per event (its stream, revision, hash and the
// running root after it), written in the append's own transaction.
//
// Ledgers written before the chain existed get their rows from completeChain(): a one-time step,
// in batches of one short write transaction each, so it resumes where it stopped and servers keep
// appending meanwhile (an append extends the chain only once the chain has reached the ledger's
// head; until then the backfill picks its events up too). Once it has reached the head the ledger
// is sealed: from then on an event without a hash row can only have been added behind the
// service's back, and the backfill never hashes it (that would launder it).
import type Database from 'better-sqlite3';
import { eventHashOfText, GENESIS, hashStored, nextRoot, type CheckItem, type Hashable } from '../chain.js';
import type { EventRow } from './sqlite.js';

export const CHAIN_DDL = `
CREATE TABLE IF NOT EXISTS event_hashes (
  position INTEGER PRIMARY KEY,
  stream   TEXT    NOT NULL,
  revision INTEGER NOT NULL,
  hash     BLOB    NOT NULL,
  root     BLOB    NOT NULL
);
CREATE INDEX IF NOT EXISTS event_hashes_by_stream ON event_hashes (stream, position);
CREATE TABLE IF NOT EXISTS chain_state (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  sealed INTEGER NOT NULL
);`;

export interface HashRow {
  position: number;
  stream: string;
  revision: number;
  hash: Buffer;
  root: Buffer;
}

/** The statements an append needs, prepared once per connection. */
export class ChainWriter {
  private readonly tipStmt: Database.Statement<[], { position: number; root: Buffer }>;
  private readonly lastStmt: Database.Statement<[], { p: number | null }>;
  private readonly sealedStmt: Database.Statement<[], { sealed: number }>;
  private readonly prevStmt: Database.Statement<[string, number], { hash: Buffer }>;
  private readonly insertStmt: Database.Statement<[number, string, number, Buffer, Buffer]>;
  private sealed = false;

  private readonly db: Database.Database;

  constructor(db: Database.Database) {
    this.db = db;
    this.tipStmt = db.prepare('SELECT position, root FROM event_hashes ORDER BY position DESC LIMIT 1');
    this.lastStmt = db.prepare('SELECT MAX(position) AS p FROM events');
    this.sealedStmt = db.prepare('SELECT sealed FROM chain_state WHERE id = 1');
    this.prevStmt = db.prepare('SELECT h.hash AS hash FROM events e JOIN event_hashes h ON h.position = e.position WHERE e.stream = ? AND e.revision = ?');
    this.insertStmt = db.prepare('INSERT INTO event_hashes (position, stream, revision, hash, root) VALUES (?, ?, ?, ?, ?)');
  }

  tip(): { position: number; root: Buffer } {
    return this.tipStmt.get() ?? { position: 0, root: GENESIS };
  }

  isSealed(): boolean {
    this.sealed ||= this.sealedStmt.get()?.sealed === 1;
    return this.sealed;
  }

  /**
   * Inside a batch's write transaction, before its inserts: the running root to chain from, or
   * undefined while an unsealed ledger's backfill has not reached the head yet (then nothing of the
   * batch is hashed here: the backfill picks it up).
   */
  startBatch(): { root: Buffer } | undefined {
    const tip = this.tip();
    if (!this.isSealed() && tip.position !== (this.lastStmt.get()?.p ?? 0)) return undefined;
    return { root: tip.root };
  }

  /** The stored hash of a stream's event; GENESIS before revision 0 (or when it has none: verify reports that). */
  previousHash(stream: string, revision: number): Buffer {
    return revision < 0 ? GENESIS : (this.prevStmt.get(stream, revision)?.hash ?? GENESIS);
  }

  /** Hashes one event just inserted (given its data's canonical JSON); returns the chain state after it. */
  add(at: { prev: Buffer; root: Buffer }, position: number, e: Omit<Hashable, 'data'>, canonicalData: string) {
    return this.addHash(at, position, e, eventHashOfText(at.prev, e, canonicalData));
  }

  private addHash(at: { root: Buffer }, position: number, e: { stream: string; revision: number }, hash: Buffer) {
    const root = nextRoot(at.root, hash);
    this.insertStmt.run(position, e.stream, e.revision, hash, root);
    return { prev: hash, root };
  }

  /**
   * One backfill batch in its own write transaction: hashes up to `batch` unhashed events after the
   * chain's tip. Returns how many; 0 means the chain reached the head (and the ledger is now sealed).
   */
  backfillBatch(batch: number): number {
    return this.db.transaction(() => {
      if (this.isSealed()) return 0;
      const tip = this.tip();
      const rows = this.db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?').all(tip.position, batch);
      if (rows.length === 0) {
        this.db.prepare('INSERT OR REPLACE INTO chain_state (id, sealed) VALUES (1, 1)').run();
        this.sealed = true;
        return 0;
      }
      const heads = new Map<string, Buffer>();
      let root = tip.root;
      for (const r of rows) {
        const prev = heads.get(r.stream) ?? this.previousHash(r.stream, r.revision - 1);
        const e = { stream: r.stream, revision: r.revision, type: r.type, schemaVersion: r.schema_version, recordedAt: r.recorded_at, data: r.data };
        const next = this.addHash({ root }, r.position, e, hashStored(prev, e));
        heads.set(r.stream, next.prev);
        root = next.root;
      }
      return rows.length;
    }).immediate();
  }

  /** Events not hashed yet (only an unsealed ledger has them legitimately). */
  unchained(): number {
    const tip = this.tip();
    return this.db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM events WHERE position > ?').get(tip.position)?.n ?? 0;
  }
}

const PAGE = 2_000;

/**
 * Both tables merged in position order (an event, its hash row, or each without the other): every
 * event and hash row (of one stream, when given) in position order, read in pages inside one
 * read transaction the caller holds, so a running server's appends do not shift the pages.
 */
export function* chainItems(db: Database.Database, stream?: string): Generator<CheckItem> {
  const where = stream === undefined ? '' : 'AND stream = ?';
  const events = db.prepare(`SELECT * FROM events WHERE position > ? ${where} ORDER BY position LIMIT ?`);
  const hashes = db.prepare(`SELECT * FROM event_hashes WHERE position > ? ${where} ORDER BY position LIMIT ?`);
  const page = <T>(s: Database.Statement, after: number) => (stream === undefined ? s.all(after, PAGE) : s.all(after, stream, PAGE)) as T[];
  let after = 0;
  for (;;) {
    const e = page<EventRow>(events, after);
    const h = page<HashRow>(hashes, after);
    if (e.length === 0 && h.length === 0) return;
    // Only up to where both pages are complete, so nothing is taken for missing on a page boundary.
    const upTo = Math.min(e.length === PAGE ? e[e.length - 1]!.position : Infinity, h.length === PAGE ? h[h.length - 1]!.position : Infinity);
    let i = 0;
    let j = 0;
    while ((i < e.length && e[i]!.position <= upTo) || (j < h.length && h[j]!.position <= upTo)) {
      const pe = i < e.length && e[i]!.position <= upTo ? e[i]!.position : Infinity;
      const ph = j < h.length && h[j]!.position <= upTo ? h[j]!.position : Infinity;
      const position = Math.min(pe, ph);
      const row = pe === position ? e[i++] : undefined;
      const event = row && { stream: row.stream, revision: row.revision, type: row.type, schemaVersion: row.schema_version, recordedAt: row.recorded_at, data: row.data };
      yield { position, event, stored: ph === position ? h[j++] : undefined };
    }
    after = upTo;
  }
}
