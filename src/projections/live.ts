// The live read-model file as the API sees it. `projections rebuild` (rebuild.ts) swaps a fresh file
// in under DATA_DIR/read-models.db while servers keep running, so every reader asks for the handle
// through current(), which notices the swap and reopens.
//
// Why one stat per call and not a timer: a read after the swap must never come from the old file
// (another process's writes land in the new one only). A stat is ~1-2 µs, far below a request.
// The stat is taken BEFORE the open: if the swap happens between the two, the next call sees a
// different inode and reopens again, never the reverse (holding the old file while believing it new).
import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { releaseLedger } from './job-results.js';
import { openReadModels } from './runner.js';

export interface LiveReadModels {
  current(): Database.Database;
  close(): void;
}

/** How long a replaced handle stays open: a caller that took it just before the swap may still use it. */
const RETIRE_AFTER_MS = 10_000;

const identityOf = (path: string): string | undefined => {
  const st = statSync(path, { throwIfNoEntry: false });
  return st && `${st.dev}:${st.ino}`;
};

/** `resultsIn`: the SQLite ledger's path, where completed jobs' results are read (job-results.ts); none with a server ledger. */
export function openLiveReadModels(path: string, opts: { busyTimeoutMs?: number; onSwap?: () => void; resultsIn?: string } = {}): LiveReadModels {
  let id = identityOf(path);
  let db = openReadModels(path, opts.busyTimeoutMs, opts.resultsIn);
  id ??= identityOf(path);
  const retired = new Set<Database.Database>();

  function retire(old: Database.Database) {
    retired.add(old);
    setTimeout(() => {
      retired.delete(old);
      if (old.open) old.close();
    }, RETIRE_AFTER_MS).unref();
  }

  return {
    current() {
      const now = identityOf(path);
      // A missing path (mid-restore by hand) keeps the handle we have rather than failing reads.
      if (now === undefined || now === id) return db;
      const old = db;
      db = openReadModels(path, opts.busyTimeoutMs, opts.resultsIn);
      id = now;
      retire(old);
      opts.onSwap?.();
      return db;
    },
    close() {
      for (const old of retired) if (old.open) old.close();
      retired.clear();
      db.close();
      if (opts.resultsIn !== undefined) releaseLedger(opts.resultsIn);
    },
  };
}
