// The bulk phase of `projections rebuild`: replays the ledger into the fresh (not yet live) file.
// A rebuild is half reading (SQLite rows, JSON, the in-memory fold: bulk-read.ts) and half writing
// (SQLite inserts, page writes: here). With `threads: 2` the reading half runs on a worker thread
// (bulk-worker.ts) and the two halves overlap on two cores; inline, one thread does both in turn,
// without the cost of handing pages between threads.
//
// The ledger order is kept: pages are applied in the order read, and within a page the ops are in
// the order the fold produced them, so a module's SQL on a row always runs after the row's insert.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { RecordedEvent } from '../events/store/port.js';
import { FOLDED } from './bulk.js';
import { bulkRead, type BulkPage, type BulkReadOptions } from './bulk-read.js';
import type { BulkWorkerData } from './bulk-worker.js';
import { resultsInLedger } from './job-results.js';
import { applyModules } from './runner.js';
import { prepared } from './statements.js';

export interface BulkReplayOptions {
  ledgerPath: string;
  busyTimeoutMs: number;
  /** The reader keeps going until the ledger's head is at most this far ahead. */
  fenceWhenBehind: number;
  /** Events between two commits of the target; after each, `onRound` (the caller fsyncs there). */
  round: number;
  onRound: () => void;
  onPage?: (events: number, head: number) => void;
  /** 2: read on a worker thread while this one writes; 1: both here. */
  threads: 1 | 2;
}

/** The worker's file, with this file's extension (.ts from the sources), started by a plain-JS bootstrap (it says why). */
const WORKER = new URL(`./bulk-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
const BOOT = new URL('./bulk-worker-boot.mjs', import.meta.url);

/**
 * Events per page read (small pages measured a little cheaper than 5,000 or 20,000: their garbage
 * dies young); pages a reader may have posted ahead of the writer.
 */
const PAGE = 2_000;
const MAX_IN_FLIGHT = 8;

/**
 * Replays the ledger from its start into `target` (empty, checkpoint 0) until the reader stops
 * within `fenceWhenBehind` of the head; returns the target's checkpoint. Every folded row is written
 * out by then, so the modules' SQL can take over from that position.
 */
export async function bulkReplay(target: Database.Database, opts: BulkReplayOptions): Promise<number> {
  // The fold leaves completed jobs' results in the ledger (bulk.ts): the target must be opened so.
  if (!resultsInLedger(target)) throw new Error('a bulk replay needs a read-model connection that reads results from the ledger (openReadModels resultsIn)');
  const read: BulkReadOptions = { ledgerPath: opts.ledgerPath, busyTimeoutMs: opts.busyTimeoutMs, fenceWhenBehind: opts.fenceWhenBehind, pageSize: PAGE };
  const writer = pageWriter(target, opts);
  target.exec('BEGIN');
  try {
    if (opts.threads === 2) await onWorker(read, writer);
    else {
      let sinceYield = 0;
      for (const page of bulkRead(read)) {
        writer.apply(page);
        // Between rounds, let a server sharing this process answer.
        if ((sinceYield += page.events) >= opts.round) {
          sinceYield = 0;
          await new Promise((r) => setImmediate(r));
        }
      }
    }
    return writer.position();
  } catch (err) {
    if (target.inTransaction) target.exec('ROLLBACK');
    throw err;
  }
}

/** Applies pages to the target in one transaction per round; the caller has begun the first. */
function pageWriter(target: Database.Database, opts: BulkReplayOptions) {
  const inserts = FOLDED.map((t) => target.prepare(`INSERT INTO ${t.name} (${t.columns.join(', ')}) VALUES (${t.columns.map(() => '?').join(', ')})`));
  const setCheckpoint = prepared(target, 'UPDATE checkpoint SET position = ? WHERE id = 1');
  let position = 0;
  let sinceCommit = 0;
  return {
    position: () => position,
    apply(page: BulkPage) {
      const ops = page.ops;
      for (let i = 0; i < ops.length; ) {
        const table = ops[i] as number;
        if (table >= 0) {
          inserts[table]!.run(ops[i + 1] as unknown[]);
          i += 2;
        } else {
          applyModules(target, ops[i + 1] as RecordedEvent, ops[i + 2] as string[]);
          i += 3;
        }
      }
      position = page.position;
      setCheckpoint.run(position);
      sinceCommit += page.events;
      if (sinceCommit >= opts.round || page.done) {
        target.exec('COMMIT');
        opts.onRound();
        sinceCommit = 0;
        if (!page.done) target.exec('BEGIN');
      }
      opts.onPage?.(page.events, page.head);
    },
  };
}

/** Runs bulkRead on a worker thread and applies the pages it posts, in order, as they come. */
function onWorker(read: BulkReadOptions, writer: ReturnType<typeof pageWriter>): Promise<void> {
  const inFlight = new SharedArrayBuffer(4);
  const pending = new Int32Array(inFlight);
  const data: BulkWorkerData = { ...read, entry: WORKER, inFlight, maxInFlight: MAX_IN_FLIGHT };
  const worker = new Worker(BOOT, { workerData: data });
  return new Promise<void>((resolve, reject) => {
    let finished = false;
    const fail = (err: unknown) => {
      if (finished) return;
      finished = true;
      void worker.terminate();
      reject(err);
    };
    worker.on('message', (page: BulkPage) => {
      if (finished) return;
      try {
        writer.apply(page);
      } catch (err) {
        return fail(err);
      }
      Atomics.sub(pending, 0, 1);
      Atomics.notify(pending, 0);
      if (page.done) {
        finished = true;
        resolve();
      }
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the rebuild's reader thread exited (code ${code}) before the end of the ledger`)));
  });
}
