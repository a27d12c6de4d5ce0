// `projections rebuild`: replay every event into a fresh read-model file and swap it in while the
// API keeps serving.
//
// Why DATA_DIR/read-models.db becomes a symlink to the generation file, and the swap renames a new
// symlink over it: SQLite names the -wal and -shm files after the path it opens. Renaming a new
// database over a live WAL-mode file would pair the new file with the old file's WAL and
// shared-memory index (the documented way to corrupt SQLite). SQLite resolves symlinks before
// naming them, so each generation keeps its own -wal/-shm and the rename stays atomic.
//
// Why the ledger's write lock is held for the final catch-up and the swap: an event appended after
// the last catch-up but before the rename would be missing from the new file until someone caught
// it up, and a reader could see it vanish (a stale read). Under the lock nothing is appended;
// appenders wait a few milliseconds (busy timeout), readers never wait.
import { availableParallelism, loadavg } from 'node:os';
import Database from 'better-sqlite3';
import { openReadModels } from './runner.js';
import { fsyncFile, fsyncFileLater, isLive, removeDb, removeLeftovers, retire, swapIn, takeRebuildLock } from './generations.js';
import { openLedgerSource, replayInto, type LedgerSource, type Progress } from './replay.js';
import { bulkReplay } from './bulk-replay.js';
import { sqlBulkReplay } from './bulk-sql.js';
import { derive as deriveQueue } from '../queue/projection.js';

export { RebuildBusyError } from './generations.js';

export interface RebuildOptions {
  ledgerPath: string;
  /** The live path (DATA_DIR/read-models.db). */
  readModelsPath: string;
  busyTimeoutMs?: number;
  onProgress?: (p: Progress) => void;
  clock?: () => Date;
  /**
   * How the bulk of the ledger is replayed: 'sql' (default) set-based inside SQLite (bulk-sql.ts);
   * 'fold' read into JS and folded in memory (bulk-replay.ts), which 'sql' also falls back to for a
   * ledger with event types it does not model.
   */
  bulk?: 'sql' | 'fold';
  /**
   * A second thread (2) or not (1); default: threadsToUse(). 'sql' builds the jobs table on it
   * (bulk-sql.ts), 'fold' reads the ledger on it (bulk-replay.ts).
   */
  threads?: 1 | 2;
}

export interface RebuildReport {
  file: string;
  position: number;
  events: number;
  elapsedMs: number;
  /** How long appenders were held back by the swap fence. */
  fenceMs: number;
  /** With the SQLite ledger: how the bulk of it was replayed (RebuildOptions.bulk; 'fold' after a fallback). */
  bulk?: 'sql' | 'fold';
}

/** When fewer events than this remain, the next catch-up runs under the ledger lock. */
const FENCE_WHEN_BEHIND = 2_000;

/** Events replayed between two commits (and fsyncs) of the file while it is not live. */
const ROUND = 50_000;

/**
 * A second thread pays only with a core to spare: handing each page between threads costs about a
 * fifth more CPU in all. Measured on 2 cores with 1M events: at load 2.4 two threads took 5.0 s; at
 * load 3-3.7 one thread took 6.1 s and two 7.0-8.0 s. So: two threads when at least half a core
 * is idle on average (the load of the rebuild's own process included).
 */
export function threadsToUse(): 1 | 2 {
  const cores = availableParallelism();
  return cores >= 2 && (loadavg()[0] ?? 0) < cores - 0.5 ? 2 : 1;
}

/**
 * The file is not live until the swap, so a crash mid-build loses nothing a rerun cannot redo: no
 * journal, no fsync per commit, and secondary indexes built once at the end (a sort) instead of
 * row by row.
 * Returns the function that puts the file back in serving shape.
 */
export function bulkLoadMode(db: Database.Database): () => void {
  const indexes = db
    .prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    .all();
  for (const ix of indexes) db.exec(`DROP INDEX ${ix.name}`);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -131072');
  // Building an index scans the whole table (the jobs' 2 KB results included) once per index:
  // through a memory map SQLite reads the pages where they are instead of copying each one in.
  db.pragma('mmap_size = 1073741824');
  // An index already back (bulk-sql.ts copies the jobs' with their rows when it builds them on a second thread) stays.
  const exists = db.prepare<[string], number>("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").pluck();
  return () => {
    for (const ix of indexes) if (!exists.get(ix.name)) db.exec(ix.sql);
    db.pragma('mmap_size = 0');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
  };
}

/**
 * Bigger pages for a fresh generation file. Chosen when a completed job's row carried its 2 KB
 * result (it filled most of a 4 KB page); with results left in the ledger (job-results.ts) rows are
 * small and the size matters less: kept, not measured again. Must be set before the first table.
 */
export function createWithPageSize(file: string, bytes: number): void {
  const db = new Database(file);
  db.pragma(`page_size = ${bytes}`);
  db.exec('VACUUM');
  db.close();
}

// To the millisecond: a second rebuild within the same second (they take well under one on a small
// ledger) must not reopen the generation the first one just made live.
const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '');

export async function rebuild(opts: RebuildOptions): Promise<RebuildReport> {
  const clock = opts.clock ?? (() => new Date());
  const lock = takeRebuildLock(opts.readModelsPath);
  let source: LedgerSource | undefined;
  let target: Database.Database | undefined;
  const file = `${opts.readModelsPath}.rebuild-${stamp(clock())}-${process.pid}`;
  try {
    removeLeftovers(opts.readModelsPath);
    source = openLedgerSource(opts.ledgerPath, opts.busyTimeoutMs);
    createWithPageSize(file, 16_384);
    // The file serves next to this ledger: completed jobs' results stay in it (job-results.ts).
    target = openReadModels(file, opts.busyTimeoutMs, opts.ledgerPath);
    const restore = bulkLoadMode(target);
    const started = Date.now();
    let done = 0;
    let total = source.lastPosition();
    const onBatch = (n: number, upTo: number) => {
      done += n;
      total = Math.max(total, upTo);
      opts.onProgress?.({ done, total, elapsedMs: Date.now() - started });
    };
    // The bulk of the ledger, up to its head now: set-based inside SQLite (bulk-sql.ts), or folded in JS
    // (bulk-replay.ts, on one or two threads; also the fallback): see RebuildOptions.bulk.
    // The file is written out as it goes rather than all at the end: on ext4 (data=ordered) one big
    // flush of a fresh file stalls every other fsync on the disk, the API's ledger appends included.
    // The thread pool syncs while this thread goes on.
    let flushed: Promise<void> = Promise.resolve();
    const syncLater = () => {
      flushed = flushed.then(() => fsyncFileLater(file));
      flushed.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    };
    const head = total;
    const threads = opts.threads ?? threadsToUse();
    const bulk = (opts.bulk ?? 'sql') === 'sql' && (await sqlBulkReplay(target, opts.ledgerPath, head, threads)) ? 'sql' : 'fold';
    if (bulk === 'sql') {
      onBatch(head, head);
      // One sync, handed to the pool now: chained on `flushed` it would start only at the event
      // loop's next turn, after the synchronous index builds below.
      flushed = fsyncFileLater(file);
      flushed.catch(() => undefined);
    } else {
      // Catch up without the lock until the remainder is small; keys, uploads and jobs are folded in
      // memory and written once per row (bulk.ts says why), one round at a time.
      await bulkReplay(target, {
        ledgerPath: opts.ledgerPath,
        busyTimeoutMs: opts.busyTimeoutMs ?? 5000,
        fenceWhenBehind: FENCE_WHEN_BEHIND,
        round: ROUND,
        onRound: syncLater,
        onPage: (n, head) => onBatch(n, head),
        threads,
      });
    }
    // The indexes are built while the thread pool syncs what the bulk phase wrote: the sync is
    // waited for only before the final one (22i saw the sql rebuild wait about half its wall time,
    // most likely on this disk). Writing the file while another fd syncs it is safe: fsyncFile below
    // makes all of it durable before the swap.
    restore();
    // The bulk phase writes job rows, not the queue's tables: those come from the rows (with indexes back).
    deriveQueue(target);
    let position = replayInto(source, target, { onBatch });
    await flushed;
    target.pragma('wal_checkpoint(TRUNCATE)');
    // The index build and the last rounds are not on disk yet: make the file durable before anyone opens it.
    fsyncFile(file);
    const fenceStarted = Date.now();
    const src = source;
    const tgt = target;
    // Synchronous from BEGIN to COMMIT: a server in this same process must not get the event loop
    // while we hold the lock, or its synchronous busy-wait on the lock would stall both of us.
    src.db.exec('BEGIN IMMEDIATE');
    let previous: string | undefined;
    try {
      position = replayInto(src, tgt, { onBatch });
      previous = swapIn(opts.readModelsPath, file, opts.busyTimeoutMs);
    } finally {
      src.db.exec('COMMIT');
    }
    const fenceMs = Date.now() - fenceStarted;
    retire(opts.readModelsPath, previous);
    return { file, position, events: done, elapsedMs: Date.now() - started, fenceMs, bulk };
  } catch (err) {
    target?.close();
    target = undefined;
    if (!isLive(opts.readModelsPath, file)) removeDb(file);
    throw err;
  } finally {
    target?.close();
    source?.close();
    lock.release();
  }
}
