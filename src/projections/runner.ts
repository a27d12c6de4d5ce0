// Keeps the SQLite read models up to date with the ledger. Every writer (API, job runner, admin
// CLI) calls catchUp() after it appends, so a GET after a 201 sees the job; the checkpoint lives in
// the same transaction as the rows, so a crash between the append and the projection is repaired
// by the next catch-up, and an event is never applied twice.
import type Database from 'better-sqlite3';
import type { EventStore, RecordedEvent } from '../events/store/port.js';
import { guard, openSqlite } from '../events/store/sqlite.js';
import * as identity from './identity.js';
import * as jobs from './jobs.js';
import * as uploads from './uploads.js';
import * as webhooks from './webhooks.js';
import * as queue from '../queue/projection.js';
import { keepResultsInLedger } from './job-results.js';
import { prepared } from './statements.js';
import { dropSecretColumn } from '../secrets/legacy.js';

// webhooks after jobs: a job's end opens deliveries (order within one event does not matter today).
// queue before jobs: it reads the job's row as it was before the event (queue/projection.ts).
const modules = [identity, uploads, queue, jobs, webhooks];
const names = new Map<unknown, string>([[identity, 'keys'], [uploads, 'uploads'], [jobs, 'jobs'], [webhooks, 'webhooks']]);

const CHECKPOINT_DDL = `CREATE TABLE IF NOT EXISTS checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), position INTEGER NOT NULL);
INSERT OR IGNORE INTO checkpoint (id, position) VALUES (1, 0);`;

/**
 * `resultsIn`: the SQLite ledger's path, when completed jobs' results are to be read from there
 * rather than copied into the jobs table (job-results.ts says when and why).
 */
export function openReadModels(path: string, busyTimeoutMs?: number, resultsIn?: string): Database.Database {
  return guard(() => {
    const db = openSqlite(path, busyTimeoutMs);
    // The ledger is the durable record (synchronous=FULL); the read models can be replayed from it
    // and their checkpoint commits with their rows, so a power cut can only leave them behind, never
    // wrong, and the next catch-up repairs that. NORMAL spares an fsync on every projected append.
    db.pragma('synchronous = NORMAL');
    db.exec(CHECKPOINT_DDL);
    // A read model from before issue 17 held webhook secrets: rewritten without them first.
    dropSecretColumn(db);
    for (const m of modules) if (m !== queue) db.exec(m.ddl);
    addMissingColumns(db, 'jobs', jobs.addedColumns);
    addMissingColumns(db, 'webhook_endpoints', webhooks.addedColumns);
    db.exec(jobs.lateDdl);
    queue.ensure(db);
    if (resultsIn !== undefined) keepResultsInLedger(db, resultsIn);
    return db;
  });
}

function addMissingColumns(db: Database.Database, table: string, columns: Readonly<Record<string, string>>): void {
  const have = new Set(db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all().map((c) => c.name));
  for (const [name, type] of Object.entries(columns)) if (!have.has(name)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
}

export const checkpointOf = (db: Database.Database): number =>
  prepared<[], { position: number }>(db, 'SELECT position FROM checkpoint WHERE id = 1').get()?.position ?? 0;

/** Applies a batch in one transaction, skipping anything at or below the checkpoint (idempotent). */
export function applyBatch(db: Database.Database, events: readonly RecordedEvent[]): number {
  return db.transaction(() => applyEvents(db, events)).immediate();
}

/** applyBatch's body, inside a transaction the caller holds. */
function applyEvents(db: Database.Database, events: readonly RecordedEvent[]): number {
  let position = checkpointOf(db);
  for (const e of events) {
    if (e.position <= position) continue;
    for (const m of modules) m.apply(db, e);
    position = e.position;
  }
  prepared(db, 'UPDATE checkpoint SET position = ? WHERE id = 1').run(position);
  return position;
}

/** Applies one event with the named tables' modules only (a bulk replay folds the others itself, bulk.ts). */
export function applyModules(db: Database.Database, e: RecordedEvent, tables: readonly string[]): void {
  for (const m of modules) if (tables.includes(names.get(m)!)) m.apply(db, e);
}

export interface Projector {
  catchUp(): Promise<void>;
  /**
   * After this process's own append: the same, except that when the store still holds the events
   * it committed since the checkpoint (EventStore.committedAfter) they are applied from memory,
   * with no read of the ledger (issue 22o: a submission read back the two events it had just
   * written). Another writer's events after them wait for the next catchUp; read-your-writes only
   * needs our own.
   */
  catchUpOwn(): Promise<void>;
  /**
   * This process's own events while the ledger's commit of them runs (SqliteEventStore's
   * whileCommitting, issue 22q): applied at once on a second connection to the read models when
   * they follow the checkpoint directly, in a transaction left open until the returned function
   * says whether the ledger's commit is durable (COMMIT) or failed (ROLLBACK). Other connections,
   * this process's readers included, never see the rows before that COMMIT, and the catch-up
   * after the append then finds nothing left. Otherwise (no second connection, another writer's
   * events first, a failure) nothing is written and that catch-up does the work as before.
   */
  whileCommitting(events: readonly RecordedEvent[]): ((durable: boolean) => void) | undefined;
  /**
   * How many times this projector committed an event that changes a key beyond its usage counters
   * (identity.ts changesKey): with LiveReadModels.othersVersion, whether a key read earlier may
   * have changed since (http/auth.ts).
   */
  keyChanges(): number;
}

const BATCH = 500;

/**
 * `early`: a second connection to the same read-model file as `db()` (LiveReadModels.companion),
 * for whileCommitting; without it whileCommitting writes nothing.
 */
export function createProjector(store: EventStore, db: () => Database.Database, early?: () => Database.Database): Projector {
  /** Settles when whileCommitting's open transaction ends: a drain on `db()` waits for it, not on its lock. */
  let open: Promise<void> | undefined;
  /**
   * The last position whileCommitting's own transaction committed to the read models: every event
   * up to it is there (the checkpoint moved to it in the same COMMIT; a rebuild's swap keeps that
   * true, since it catches the new file up under the ledger's lock before appends go on, issue 22s).
   */
  let committedThrough: number | undefined;
  let keyChanges = 0;
  // Counted before the commit: a reader racing it only drops what it holds sooner.
  const countKeyChanges = (events: readonly RecordedEvent[]) => {
    if (events.some(identity.changesKey)) keyChanges += 1;
  };

  function whileCommitting(events: readonly RecordedEvent[]): ((durable: boolean) => void) | undefined {
    const first = events[0];
    if (!early || !first || open) return undefined;
    const conn = early();
    conn.exec('BEGIN IMMEDIATE');
    try {
      if (first.position !== checkpointOf(conn) + 1) throw new Error('not next');
      applyEvents(conn, events);
    } catch {
      if (conn.inTransaction) conn.exec('ROLLBACK');
      return undefined;
    }
    let ended!: () => void;
    open = new Promise<void>((r) => (ended = r));
    return (durable) => {
      open = undefined;
      ended();
      if (durable) countKeyChanges(events);
      try {
        conn.exec(durable ? 'COMMIT' : 'ROLLBACK');
        if (durable) committedThrough = events[events.length - 1]!.position;
      } catch (err) {
        if (conn.inTransaction) conn.exec('ROLLBACK');
        throw err;
      }
    };
  }

  /** Waits out whileCommitting's transaction first: its connection holds the write lock meanwhile. */
  async function apply(events: readonly RecordedEvent[]) {
    while (open) await open;
    countKeyChanges(events);
    guard(() => applyBatch(db(), events));
  }

  async function drain(own: boolean) {
    // Our own appends are all projected when none was committed after what whileCommitting's
    // transaction committed: the read of the checkpoint (and the live file's check before it) that
    // would find nothing to do is skipped (issue 22s: ~5% of a lone submission's event-loop CPU).
    if (own && committedThrough !== undefined && store.committedAfter?.(committedThrough)?.length === 0) return;
    for (;;) {
      const from = guard(() => checkpointOf(db()));
      const held = own ? store.committedAfter?.(from) : undefined;
      if (held !== undefined) {
        if (held.length > 0) await apply(held);
        return;
      }
      const events = await store.readAll(from, BATCH);
      if (events.length === 0) return;
      await apply(events);
      // A short page was the ledger's end when it was read, after every append this drain
      // serves: no second read to find it empty (issue 22j: one query less per submission).
      if (events.length < BATCH) return;
    }
  }

  // Drains run one at a time. A call joins the drain that has not started yet, if any: that drain
  // starts after the caller's append, so it includes it; a full catch-up joining one that was to
  // project only our own appends makes it a full one.
  let tail: Promise<void> = Promise.resolve();
  let pending: { done: Promise<void>; own: boolean } | null = null;
  function schedule(own: boolean): Promise<void> {
    if (pending) {
      pending.own &&= own;
      return pending.done;
    }
    const next = { own, done: Promise.resolve() };
    next.done = tail.then(() => {
      pending = null;
      return drain(next.own);
    });
    pending = next;
    tail = next.done.catch(() => undefined);
    return next.done;
  }

  return { catchUp: () => schedule(false), catchUpOwn: () => schedule(true), whileCommitting, keyChanges: () => keyChanges };
}
