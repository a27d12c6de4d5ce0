// The bulk phase of `projections rebuild`: replays the ledger into the fresh (not yet live) file on
// two threads. A rebuild is half reading (SQLite rows, JSON, the in-memory fold) and half writing
// (SQLite inserts, page writes), and one thread did both in turn; bulk-worker.ts reads and folds
// while this thread writes what it posts, so the two halves overlap on two cores.
//
// The ledger order is kept: pages are applied in the order read, and within a page the ops are in
// the order the fold produced them, so a module's SQL on a row always runs after the row's insert.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { RecordedEvent } from '../events/store/port.js';
import { FOLDED } from './bulk.js';
import type { BulkPage, BulkWorkerData } from './bulk-worker.js';
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
export function bulkReplay(target: Database.Database, opts: BulkReplayOptions): Promise<number> {
  // The column that comes as UTF-8 bytes is bound as a blob and stored as the text it encodes:
  // CAST(blob AS TEXT) takes the bytes as they are, which is what binding the string would store.
  const inserts = FOLDED.map((t) => {
    const params = t.columns.map((_, i) => (i === t.bytes ? 'CAST(? AS TEXT)' : '?'));
    return target.prepare(`INSERT INTO ${t.name} (${t.columns.join(', ')}) VALUES (${params.join(', ')})`);
  });
  const setCheckpoint = prepared(target, 'UPDATE checkpoint SET position = ? WHERE id = 1');
  const inFlight = new SharedArrayBuffer(4);
  const pending = new Int32Array(inFlight);
  const data: BulkWorkerData = { entry: WORKER, ledgerPath: opts.ledgerPath, busyTimeoutMs: opts.busyTimeoutMs, fenceWhenBehind: opts.fenceWhenBehind, pageSize: PAGE, inFlight, maxInFlight: MAX_IN_FLIGHT };
  const worker = new Worker(BOOT, { workerData: data });

  let position = 0;
  let sinceCommit = 0;
  const apply = (page: BulkPage) => {
    const ops = page.ops;
    let cursor = 0;
    for (let i = 0; i < ops.length; ) {
      const table = ops[i] as number;
      if (table >= 0) {
        const values = ops[i + 1] as unknown[];
        const column = FOLDED[table]!.bytes;
        const length = values[column];
        if (typeof length === 'number') {
          values[column] = Buffer.from(page.bytes, cursor, length);
          cursor += length;
        }
        inserts[table]!.run(values);
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
  };

  return new Promise<number>((resolve, reject) => {
    let finished = false;
    const fail = (err: unknown) => {
      if (finished) return;
      finished = true;
      if (target.inTransaction) target.exec('ROLLBACK');
      void worker.terminate();
      reject(err);
    };
    target.exec('BEGIN');
    worker.on('message', (page: BulkPage) => {
      if (finished) return;
      try {
        apply(page);
      } catch (err) {
        return fail(err);
      }
      Atomics.sub(pending, 0, 1);
      Atomics.notify(pending, 0);
      if (page.done) {
        finished = true;
        resolve(position);
      }
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the rebuild's reader thread exited (code ${code}) before the end of the ledger`)));
  });
}
