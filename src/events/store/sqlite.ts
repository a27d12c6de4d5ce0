// The embedded event store: one SQLite file, WAL, synchronous=FULL so an acknowledged append
// survives a power cut. Several processes may share the file; SQLite serializes the writers.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { CURRENT_SCHEMA_VERSION, type LedgerEvent } from '../ledger.js';
import { upcast } from '../upcasters.js';
import { ConflictError, StoreUnavailableError, type AppendResult, type EventStore, type QueuedAppend, type RecordedEvent } from './port.js';
import { CHAIN_DDL, ChainWriter, chainItems } from './sqlite-chain.js';
import { canonicalJson, type CheckItem } from '../chain.js';
import { batchWriter, type BatchEntry, type BatchResult, type BatchWriter } from './sqlite-batch.js';
import type { WriteReply, WriteRequest, WriterData } from './sqlite-writer-thread.js';
import { checkpointFileOffThread } from './sqlite-checkpointer.js';

/** The events table (the hash chain's tables are sqlite-chain.ts's CHAIN_DDL). */
export const EVENTS_DDL = `
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

/** The rows a batch wrote, as stored: one append's events took consecutive positions and revisions. */
function rowsOf(batch: readonly Queued[], results: readonly BatchResult[]): EventRow[] {
  const rows: EventRow[] = [];
  batch.forEach((q, i) => {
    const r = results[i]!;
    if ('conflict' in r) return;
    const n = q.events.length;
    q.events.forEach((e, k) => rows.push({
      position: r.lastPosition - n + 1 + k,
      stream: q.stream,
      revision: r.nextRevision - n + 1 + k,
      type: e.type,
      schema_version: CURRENT_SCHEMA_VERSION,
      data: e.data,
      recorded_at: q.recordedAt,
    }));
  });
  return rows;
}

/** An append in the queue of one SqliteEventStore (enqueue()). */
class Queued implements QueuedAppend {
  /** Set when its batch ends, before any continuation runs (a later batch's `after` check reads it). */
  state: 'waiting' | 'written' | 'refused' = 'waiting';
  /** The recorded_at its batch was written with (set when the batch is sent). */
  recordedAt = '';
  readonly done: Promise<AppendResult>;
  resolve!: (r: AppendResult) => void;
  reject!: (err: unknown) => void;

  readonly stream: string;
  readonly events: { type: string; data: string }[];
  readonly expected: number;
  readonly after: Queued | undefined;

  constructor(stream: string, events: { type: string; data: string }[], expected: number, after: Queued | undefined) {
    this.stream = stream;
    this.events = events;
    this.expected = expected;
    this.after = after;
    this.done = new Promise<AppendResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // A caller that only reads `state` (or gives up) must not leave an unhandled rejection behind.
    this.done.catch(() => undefined);
  }
}

/** Appends written in one transaction at most (a bound on how long one commit holds the lock). */
const MAX_BATCH = 1_000;

/** Rows of this store's own last commits held for committedAfter() (at least this many, at most twice). */
const RECENT_ROWS = 1_000;

/**
 * Told a batch's rows while the ledger's commit of them is in flight (SqliteEventStore
 * .whileCommitting). Whatever it writes on the strength of them must stay uncommitted until the
 * function it returns is called: with true once the ledger's commit is durable, before anyone
 * hears of the batch; with false when it failed.
 */
export type WhileCommitting = (events: RecordedEvent[]) => ((durable: boolean) => void) | undefined;

/** The writer thread's module, with this file's extension (.ts from the sources), started by a plain-JS bootstrap. */
const WRITER = new URL(`./sqlite-writer-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
const BOOT = new URL('../../projections/bulk-worker-boot.mjs', import.meta.url);

export interface SqliteStoreOptions {
  busyTimeoutMs?: number;
  clock?: () => Date;
  /**
   * Where commits run. 'thread' (the API server's choice, service.ts): on a writer thread of its
   * own, so the event loop goes on serving (and queueing the next batch) while a commit waits for
   * its fsync, inline until the thread has booted. 'inline' (the default: one-shot CLI commands,
   * in-memory databases, which a thread cannot open): on this thread, the event loop waiting.
   */
  writer?: 'thread' | 'inline';
}

/**
 * Group commit: appends queue up (enqueue()) and are written a batch per transaction, one batch at
 * a time; each append is answered once its batch is durable. A lone append goes at once (the next
 * turn of the event loop, no timer); appends made while a commit runs wait for it to end and then
 * go together, so the batch size follows the load by itself.
 */
export class SqliteEventStore implements EventStore {
  readonly db: Database.Database;
  private readonly byStreamPage: Database.Statement<[string, number, number], EventRow>;
  private readonly after: Database.Statement<[number, number], EventRow>;
  private readonly last: Database.Statement<[], { p: number | null }>;
  private readonly head: Database.Statement<[string], { revision: number | null }>;
  private readonly clock: () => Date;
  private readonly inline: BatchWriter;
  /** The writer thread once it is ready; `starting` from its start. */
  private writer: Worker | undefined;
  private starting: Worker | undefined;
  private closed = false;
  /** Gives the ledger file's checkpoints back to SQLite (writer thread: sqlite-checkpointer.ts). */
  private giveBackCheckpoints: (() => void) | undefined;
  private queue: Queued[] = [];
  private flushScheduled = false;
  /** The batch the writer thread is committing. */
  private inFlight: Queued[] | undefined;
  private drained: (() => void)[] = [];
  /** The rows this store committed last, in position order (committedAfter()). */
  private recent: EventRow[] = [];
  /**
   * With the writer thread: called on the event loop with a batch's rows (as they will be read)
   * once the thread has inserted them, while its COMMIT and fsync run (service.ts: the projection
   * of our own appends, issue 22q). What it returns is told the outcome before the batch is answered.
   */
  whileCommitting: WhileCommitting | undefined;
  /** What whileCommitting returned for the batch in flight. */
  private finishing: ((durable: boolean) => void) | undefined;
  /** True once batches are committed on the writer thread. */
  get writesOnThread(): boolean {
    return this.writer !== undefined;
  }

  /** Group commit counters since open: batches committed and appends in them. */
  readonly commits = { batches: 0, appends: 0 };
  /** The tamper-evidence chain's side table (sqlite-chain.ts). */
  readonly chain: ChainWriter;

  constructor(path: string, opts: SqliteStoreOptions = {}) {
    this.clock = opts.clock ?? (() => new Date());
    this.db = guard(() => openSqlite(path, opts.busyTimeoutMs));
    guard(() => this.db.exec(EVENTS_DDL + CHAIN_DDL));
    this.chain = new ChainWriter(this.db);
    this.head = this.db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?');
    this.byStreamPage = this.db.prepare('SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?');
    this.after = this.db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?');
    this.last = this.db.prepare('SELECT MAX(position) AS p FROM events');
    this.inline = batchWriter(this.db);
    const memory = path === ':memory:' || path === '';
    if (opts.writer === 'thread' && !memory) this.startWriter(path, opts.busyTimeoutMs);
  }

  private startWriter(path: string, busyTimeoutMs: number | undefined): void {
    // The thread's commits do not checkpoint: a checkpoint inside a batch's COMMIT is paid before
    // that batch is answered (issue 22u); the checkpointer thread does it on a timer instead.
    const data: WriterData = { entry: WRITER, path: this.db.name || path, busyTimeoutMs, checkpointsElsewhere: true };
    this.giveBackCheckpoints = checkpointFileOffThread(data.path);
    const worker = new Worker(BOOT, { workerData: data });
    // Idle, the thread must not keep the process alive; while a batch is in flight it does.
    worker.unref();
    worker.on('message', (reply: WriteReply | { ready: true }) => {
      // Until the thread has booted (a second or so), batches are written inline.
      if ('ready' in reply) {
        if (!this.closed) this.writer = worker;
        return;
      }
      if ('written' in reply) {
        this.written(reply.written);
        return;
      }
      const batch = this.inFlight;
      this.inFlight = undefined;
      worker.unref();
      this.finish('results' in reply);
      if (!batch) return;
      if ('error' in reply) {
        const err = UNAVAILABLE.test(reply.error.code ?? '') ? new StoreUnavailableError(reply.error.message) : Object.assign(new Error(reply.error.message), { code: reply.error.code });
        this.settle(batch, undefined, err);
      } else this.settle(batch, reply.results);
      this.flush();
    });
    // A writer thread that dies takes nothing with it but its batch (whose outcome is unknown: the
    // callers get StoreUnavailableError, as for a lost connection); the store writes inline from then on.
    const fail = (err: unknown) => {
      if (this.starting !== worker) return;
      this.starting = this.writer = undefined;
      const batch = this.inFlight;
      this.inFlight = undefined;
      this.finish(false);
      if (batch) this.settle(batch, undefined, new StoreUnavailableError(`the ledger's writer thread stopped: ${String(err)}`));
      this.flush();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`exit code ${code}`)));
    this.starting = worker;
  }

  async append(stream: string, events: readonly LedgerEvent[], expectedRevision: number): Promise<AppendResult> {
    return this.enqueue(stream, events, expectedRevision).done;
  }

  enqueue(stream: string, events: readonly LedgerEvent[], expectedRevision: number, after?: QueuedAppend): QueuedAppend {
    if (events.length === 0) throw new Error('append needs at least one event');
    if (after !== undefined && !(after instanceof Queued)) throw new Error('`after` must be an append queued on this store');
    // Canonical JSON now, outside the write lock; an event that cannot be encoded fails its own caller only.
    const encoded = events.map((e) => ({ type: e.type, data: canonicalJson(e.data) }));
    const q = new Queued(stream, encoded, expectedRevision, after);
    this.queue.push(q);
    if (!this.flushScheduled && !this.inFlight) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flush();
      });
    }
    return q;
  }

  /** Sends the next batch (one at a time to the thread; inline, every batch now). */
  private flush(): void {
    while (this.queue.length > 0 && !this.inFlight) {
      const batch = this.queue.splice(0, MAX_BATCH);
      // Chained on an append already refused: refused without a round trip.
      const live = batch.filter((q) => {
        if (q.after?.state !== 'refused') return true;
        this.settle([q], [{ conflict: guard(() => this.head.get(q.stream)?.revision ?? -1) }]);
        return false;
      });
      if (live.length === 0) continue;
      const index = new Map(live.map((q, i) => [q, i]));
      const entries: BatchEntry[] = live.map((q) => ({
        stream: q.stream,
        expected: q.expected,
        events: q.events,
        // Only a link within this batch matters: an earlier batch's is settled by now.
        ...(q.after && index.has(q.after) ? { after: index.get(q.after)! } : {}),
      }));
      const recordedAt = this.clock().toISOString();
      for (const q of live) q.recordedAt = recordedAt;
      if (this.writer) {
        this.inFlight = live;
        this.writer.ref();
        this.writer.postMessage({ batch: entries, recordedAt, announce: this.whileCommitting !== undefined } satisfies WriteRequest);
        return;
      }
      let results: BatchResult[];
      try {
        results = guard(() => this.inline(entries, recordedAt));
      } catch (err) {
        this.settle(live, undefined, err);
        continue;
      }
      this.settle(live, results);
    }
    if (this.queue.length === 0 && !this.inFlight) for (const done of this.drained.splice(0)) done();
  }

  /** The writer thread inserted the batch in flight and is committing it: whileCommitting sees the rows. */
  private written(results: BatchResult[]): void {
    const batch = this.inFlight;
    if (!batch || !this.whileCommitting) return;
    try {
      this.finishing = this.whileCommitting(rowsOf(batch, results).map(toRecorded));
    } catch {
      // Its work is lost, not the batch's: the catch-up after the answer does it as before.
    }
  }

  /** Tells whileCommitting's work the batch's outcome, before anyone else hears it. */
  private finish(durable: boolean): void {
    const finishing = this.finishing;
    this.finishing = undefined;
    try {
      finishing?.(durable);
    } catch {
      // As in written(): the catch-up after the answer redoes it.
    }
  }

  /** Marks every append of a finished batch, then answers them (states first: see Queued.state). */
  private settle(batch: readonly Queued[], results: readonly BatchResult[] | undefined, err?: unknown): void {
    if (results) {
      this.commits.batches += 1;
      this.commits.appends += batch.length;
    }
    batch.forEach((q, i) => (q.state = results && !('conflict' in results[i]!) ? 'written' : 'refused'));
    if (results) this.hold(batch, results);
    batch.forEach((q, i) => {
      const r = results?.[i];
      if (!r) q.reject(err);
      else if ('conflict' in r) q.reject(new ConflictError(q.stream, q.expected, r.conflict));
      else q.resolve(r);
    });
  }

  /** Keeps the rows a batch wrote (committedAfter()). */
  private hold(batch: readonly Queued[], results: readonly BatchResult[]): void {
    this.recent.push(...rowsOf(batch, results));
    if (this.recent.length > 2 * RECENT_ROWS) this.recent = this.recent.slice(-RECENT_ROWS);
  }

  committedAfter(afterPosition: number): RecordedEvent[] | undefined {
    const rows = this.recent;
    const last = rows[rows.length - 1]?.position;
    if (last === undefined) return undefined;
    if (afterPosition >= last) return [];
    // Positions only grow, so the rows from afterPosition + 1 to `last` are all here, with no other
    // writer's between them, exactly when the row that many from the end is afterPosition + 1.
    const first = rows[rows.length - (last - afterPosition)];
    return first?.position === afterPosition + 1 ? rows.slice(rows.length - (last - afterPosition)).map(toRecorded) : undefined;
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
    // Appends already queued are written (and answered) before the connection goes.
    if (this.queue.length > 0 || this.inFlight) {
      await new Promise<void>((resolve) => {
        this.drained.push(resolve);
        this.flush();
      });
    }
    this.closed = true;
    const writer = this.starting;
    this.starting = this.writer = undefined;
    await writer?.terminate();
    this.giveBackCheckpoints?.();
    this.db.close();
  }
}
