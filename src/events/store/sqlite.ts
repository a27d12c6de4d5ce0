// The embedded event store: one SQLite file, WAL, synchronous=FULL so an acknowledged append
// survives a power cut. Several processes may share the file; SQLite serializes the writers.
import Database from 'better-sqlite3';
import { CURRENT_SCHEMA_VERSION, type LedgerEvent } from '../ledger.js';
import { upcast } from '../upcasters.js';
import { ConflictError, StoreUnavailableError, type AppendResult, type EventStore, type RecordedEvent } from './port.js';
import { CHAIN_DDL, ChainWriter, chainItems } from './sqlite-chain.js';
import { canonicalJson, type CheckItem } from '../chain.js';

const DDL = `
CREATE TABLE IF NOT EXISTS events (
  position       INTEGER PRIMARY KEY AUTOINCREMENT,
  stream         TEXT    NOT NULL,
  revision       INTEGER NOT NULL,
  type           TEXT    NOT NULL,
  schema_version INTEGER NOT NULL,
  data           TEXT    NOT NULL,
  recorded_at    TEXT    NOT NULL,
  UNIQUE (stream, revision)
);`;

/** A row of the events table as stored (before upcasting). */
export interface EventRow {
  position: number;
  stream: string;
  revision: number;
  type: string;
  schema_version: number;
  data: string;
  recorded_at: string;
}

/** SQLite error codes that mean "the store is unreachable right now", as opposed to a bug. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL|NOTADB|CORRUPT)/;

export function isUnavailable(err: unknown): boolean {
  return typeof err === 'object' && err !== null && UNAVAILABLE.test(String((err as { code?: unknown }).code ?? ''));
}

/** Runs `fn`, turning SQLite's unreachable-store failures into StoreUnavailableError. */
export function guard<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isUnavailable(err)) throw new StoreUnavailableError((err as Error).message);
    throw err;
  }
}

export function openSqlite(path: string, busyTimeoutMs = 5000): Database.Database {
  const db = new Database(path, { timeout: busyTimeoutMs });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  return db;
}

export function toRecorded(row: EventRow): RecordedEvent {
  const lifted = upcast({ type: row.type, data: JSON.parse(row.data), schemaVersion: row.schema_version });
  return {
    stream: row.stream,
    revision: row.revision,
    position: row.position,
    schemaVersion: lifted.schemaVersion,
    type: lifted.type,
    data: lifted.data,
    recordedAt: row.recorded_at,
  } as RecordedEvent;
}

/** Events per page of readStream (about a millisecond of parsing each). */
const STREAM_PAGE = 500;

export class SqliteEventStore implements EventStore {
  readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly head: Database.Statement<[string], { revision: number | null }>;
  private readonly byStreamPage: Database.Statement<[string, number, number], EventRow>;
  private readonly after: Database.Statement<[number, number], EventRow>;
  private readonly last: Database.Statement<[], { p: number | null }>;
  private readonly appendTx: (stream: string, events: readonly LedgerEvent[], expected: number) => AppendResult;
  /** The tamper-evidence chain's side table (sqlite-chain.ts). */
  readonly chain: ChainWriter;

  constructor(path: string, opts: { busyTimeoutMs?: number; clock?: () => Date } = {}) {
    const clock = opts.clock ?? (() => new Date());
    this.db = guard(() => openSqlite(path, opts.busyTimeoutMs));
    guard(() => this.db.exec(DDL + CHAIN_DDL));
    this.chain = new ChainWriter(this.db);
    this.insert = this.db.prepare(
      'INSERT INTO events (stream, revision, type, schema_version, data, recorded_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.head = this.db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?');
    this.byStreamPage = this.db.prepare('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?');
    this.after = this.db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?');
    this.last = this.db.prepare('SELECT MAX(position) AS p FROM events');
    // IMMEDIATE takes the write lock before reading the head, so check-then-insert is atomic
    // across processes too.
    this.appendTx = this.db.transaction((stream: string, events: readonly LedgerEvent[], expected: number) => {
      const actual = this.head.get(stream)?.revision ?? -1;
      if (actual !== expected) throw new ConflictError(stream, expected, actual);
      const recordedAt = clock().toISOString();
      let revision = actual;
      let position = 0;
      let chain = this.chain.start(stream, actual);
      for (const e of events) {
        revision += 1;
        // Stored as its canonical JSON (events/chain.ts): the text the hash covers, so checking it needs no parse.
        const data = canonicalJson(e.data);
        const info = this.insert.run(stream, revision, e.type, CURRENT_SCHEMA_VERSION, data, recordedAt);
        position = Number(info.lastInsertRowid);
        if (chain) chain = this.chain.add(chain, position, { stream, revision, type: e.type, schemaVersion: CURRENT_SCHEMA_VERSION, recordedAt }, data);
      }
      return { nextRevision: revision, lastPosition: position };
    }).immediate;
  }

  async append(stream: string, events: readonly LedgerEvent[], expectedRevision: number): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    return guard(() => this.appendTx(stream, events, expectedRevision));
  }

  /**
   * In pages, yielding to the event loop between them: a key with tens of thousands of events is
   * read (and parsed) once when a process first meets it, and that must not hold the API's event
   * loop for the whole stream (issue 22). Appends only add after the end, so pages read later see
   * the same prefix.
   */
  async readStream(stream: string, fromRevision = 0): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    for (let from = fromRevision; ; ) {
      const rows = guard(() => this.byStreamPage.all(stream, from, STREAM_PAGE));
      for (const row of rows) out.push(toRecorded(row));
      if (rows.length < STREAM_PAGE) return out;
      from = rows[rows.length - 1]!.revision + 1;
      await new Promise((r) => setImmediate(r));
    }
  }

  async readAll(afterPosition: number, limit: number): Promise<RecordedEvent[]> {
    return guard(() => this.after.all(afterPosition, limit)).map(toRecorded);
  }

  async lastPosition(): Promise<number> {
    return guard(() => this.last.get()?.p ?? 0);
  }

  async digest(): Promise<{ position: number; root: string }> {
    return guard(() => {
      const unchained = this.chain.unchained();
      if (unchained > 0) {
        throw new StoreUnavailableError(this.chain.isSealed()
          ? `${unchained} events at the end of the ledger have no hash: they were not appended by the service (run \`audit verify\`)`
          : `${unchained} events are not hashed yet: the one-time chaining of this ledger is still running`);
      }
      const tip = this.chain.tip();
      return { position: tip.position, root: tip.root.toString('hex') };
    });
  }

  /** Read on a connection of its own inside one read transaction: a fixed snapshot while servers append. */
  async *checkItems(stream?: string): AsyncGenerator<CheckItem> {
    const db = guard(() => new Database(this.db.name, { readonly: true, fileMustExist: true }));
    try {
      db.exec('BEGIN');
      let n = 0;
      for (const item of chainItems(db, stream)) {
        yield item;
        // Let the event loop breathe on a long ledger (output, signals).
        if (++n % 10_000 === 0) await new Promise((r) => setImmediate(r));
      }
      db.exec('COMMIT');
    } finally {
      db.close();
    }
  }

  /**
   * Hashes the events of a ledger written before the chain existed (sqlite-chain.ts), a batch per
   * write transaction, yielding between batches; a no-op once sealed. Returns the events hashed.
   */
  async completeChain(onProgress?: (done: number, remaining: number) => void): Promise<number> {
    if (guard(() => this.chain.isSealed())) return 0;
    let done = 0;
    for (;;) {
      const n = guard(() => this.chain.backfillBatch(2_000));
      if (n === 0) return done;
      done += n;
      onProgress?.(done, guard(() => this.chain.unchained()));
      await new Promise((r) => setImmediate(r));
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
