// The live read-model file as the API sees it. `projections rebuild` (rebuild.ts) swaps a fresh file
// in under DATA_DIR/read-models.db while servers keep running, so every reader asks for the handle
// through current(), which notices the swap and reopens.
//
// How a change is noticed without a system call per read (issue 22): SQLite's PRAGMA data_version
// changes on this connection whenever another connection (any process) commits to the file, and
// the rebuild commits a mark to the file it swaps out, after the swap and before it lets appends
// through again (generations.ts, markRetired). So only when data_version moves is the path stat'ed
// to see whether it now names another file. A read after the swap never comes from the old file:
// the mark lands before any append after the swap can be acknowledged, and a reader that sees the
// mark reopens. Writes on this connection (this process's projector) do not move data_version;
// total_changes() counts them. Both together give version(): equal versions mean the same data,
// which is what lets callers cache rows read from here (routes/jobs.ts, a job's row).
//
// othersVersion() leaves out this process's own projection commits, on either connection: a cache
// of rows this process knows when it changes itself uses it (http/auth.ts: keys by token, with the
// projector's count of key changes). When the live handle's data_version moved, the companion's
// tells who committed: it moves on a commit by any connection but the companion itself, so when it
// stayed, the companion was the only writer since it was last read (issue 22w). Then no mark can
// have landed either (the mark is another connection's commit), so the path is not stat'ed: the
// companion commits once per submission, and that stat was in line with each (issue 22s).
//
// The check runs at most once per synchronous stretch of code (reset by a microtask): the auth
// hook and the route of one request share it, and nothing another process does can be observed
// in between.
//
// A rebuild that dies between its rename and its mark (a few milliseconds, under the ledger's lock)
// would leave servers on the old file with nothing to tell them: a stat once a second, off the
// request path, catches that case.
//
// When the handle is opened, the path's identity is taken before and after the open, with the
// baseline data_version read in between: a swap racing the open is seen by the second stat, and a
// swap after it by data_version (its mark comes after the swap).
import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { releaseLedger } from './job-results.js';
import { openReadModels } from './runner.js';
import { checkpointOffThread } from '../events/store/sqlite-checkpointer.js';

export interface LiveReadModels {
  current(): Database.Database;
  /**
   * A number that changes whenever what the read models hold may have changed (a commit by any
   * connection, a swap); the same number means the same data, so a row read under it may be reused.
   */
  version(): number;
  /**
   * Like version(), except that this process's own projection commits do not move it: a commit by
   * another process or a swap does (and, to be safe, a companion commit after one on current()'s
   * connection, whose data_version cannot tell that one from another process's).
   */
  othersVersion(): number;
  /**
   * A second connection to the file current() reads, reopened with it after a swap: for a write
   * transaction that must stay open across turns of the event loop while current() goes on
   * reading the committed state (projections/runner.ts whileCommitting, issue 22q).
   */
  companion(): Database.Database;
  close(): void;
}

/** How long a replaced handle stays open: a caller that took it just before the swap may still use it. */
const RETIRE_AFTER_MS = 10_000;

/** How often the path is stat'ed anyway, for a swap whose mark never came. */
const BACKSTOP_MS = 1_000;

const identityOf = (path: string): string | undefined => {
  const st = statSync(path, { throwIfNoEntry: false });
  return st && `${st.dev}:${st.ino}`;
};

interface Handle {
  db: Database.Database;
  id: string | undefined;
  dataVersion: Database.Statement<[], number>;
  totalChanges: Database.Statement<[], number>;
  seenData: number;
  seenChanges: number;
}

/** `resultsIn`: the SQLite ledger's path, where completed jobs' results are read (job-results.ts); none with a server ledger. */
/**
 * `checkpointsOffThread`: this process's commits (its projections, on the event loop) do not
 * checkpoint the file; the checkpointer thread does (events/store/sqlite-checkpointer.ts, issue 22u).
 */
export function openLiveReadModels(path: string, opts: { busyTimeoutMs?: number; onSwap?: () => void; resultsIn?: string; checkpointsOffThread?: boolean } = {}): LiveReadModels {
  /** Per connection that handed its checkpoints over, how to give them back (at its close). */
  const handedOver = new Map<Database.Database, () => void>();
  const openOne = () => {
    const db = openReadModels(path, opts.busyTimeoutMs, opts.resultsIn);
    if (opts.checkpointsOffThread) handedOver.set(db, checkpointOffThread(db));
    return db;
  };
  const closeOne = (db: Database.Database) => {
    handedOver.get(db)?.();
    handedOver.delete(db);
    if (db.open) db.close();
  };

  function open(): Handle {
    for (;;) {
      const before = identityOf(path);
      const db = openOne();
      const dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
      const totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
      const handle = { db, id: before, dataVersion, totalChanges, seenData: dataVersion.get()!, seenChanges: totalChanges.get()! };
      const after = identityOf(path);
      // A missing path (mid-restore by hand) keeps what was opened.
      if (before === after || before === undefined || after === undefined) return { ...handle, id: after ?? before };
      closeOne(db);
    }
  }

  let handle = open();
  let second: { db: Database.Database; of: Database.Database; dataVersion: Database.Statement<[], number>; seen: number } | undefined;
  let version = 0;
  let others = 0;
  let checked = false;
  const retired = new Set<Database.Database>();

  function retire(old: Database.Database) {
    retired.add(old);
    setTimeout(() => {
      retired.delete(old);
      closeOne(old);
    }, RETIRE_AFTER_MS).unref();
  }

  // The backstop for a swap without its mark (above): the next check then stats the path.
  const backstop = setInterval(() => {
    if (identityOf(path) !== handle.id) handle.seenData = Number.NaN;
  }, BACKSTOP_MS);
  backstop.unref();

  function check(): void {
    if (checked) return;
    checked = true;
    queueMicrotask(() => {
      checked = false;
    });
    const changes = handle.totalChanges.get()!;
    const data = handle.dataVersion.get()!;
    if (changes === handle.seenChanges && data === handle.seenData) return;
    version += 1;
    handle.seenChanges = changes;
    if (data === handle.seenData) return;
    // NaN: the backstop found the path naming another file.
    const backstopped = Number.isNaN(handle.seenData);
    handle.seenData = data;
    // Read once: a commit landing between two reads would be taken for the companion's own.
    const companionNow = second?.dataVersion.get();
    const companionOnly = second?.of === handle.db && companionNow === second.seen;
    if (!companionOnly) {
      others += 1;
      if (second) second.seen = companionNow!;
    }
    // Only the companion committed (this process projecting its own appends): no swap's mark
    // landed, so the path still names this file and is not stat'ed (issue 22s: with the companion
    // committing every submission, this stat was made once per submission).
    if (companionOnly && !backstopped) return;
    const now = identityOf(path);
    if (now === undefined || now === handle.id) return;
    const old = handle.db;
    handle = open();
    others += 1;
    retire(old);
    opts.onSwap?.();
  }

  return {
    current() {
      check();
      return handle.db;
    },
    version() {
      if (!checked) check();
      else {
        // Checked earlier in this stretch: this connection's own writes since (this process
        // projecting) still count.
        const changes = handle.totalChanges.get()!;
        if (changes !== handle.seenChanges) {
          handle.seenChanges = changes;
          version += 1;
        }
      }
      return version;
    },
    othersVersion() {
      if (!checked) check();
      return others;
    },
    companion() {
      check();
      const db = handle.db;
      if (second?.of !== db) {
        if (second) retire(second.db);
        const conn = openOne();
        const dataVersion = conn.prepare<[], number>('PRAGMA data_version').pluck();
        second = { db: conn, of: db, dataVersion, seen: dataVersion.get()! };
        // Whatever came before it is not known to be the companion's: counted as another's.
        others += 1;
      }
      return second.db;
    },
    close() {
      clearInterval(backstop);
      if (second) closeOne(second.db);
      for (const old of retired) closeOne(old);
      retired.clear();
      closeOne(handle.db);
      if (opts.resultsIn !== undefined) releaseLedger(opts.resultsIn);
    },
  };
}
