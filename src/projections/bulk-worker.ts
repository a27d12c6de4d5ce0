// The reading half of a rebuild's bulk phase, on a worker thread (bulk-replay.ts says why): reads
// the ledger page by page, decodes each event, folds keys, uploads and jobs in memory (bulk.ts), and
// posts each page's work to the writing thread in ledger order: the rows the fold finished, and the
// events a module's SQL must still apply (each with the tables it is for).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { CURRENT_SCHEMA_VERSION } from '../events/ledger.js';
import type { RecordedEvent } from '../events/store/port.js';
import { bulkFold, CompletedData, FOLDED, webhooksFilter } from './bulk.js';
import { completedFields } from './canonical-json.js';
import { recorded, type EventRow } from './replay.js';

export interface BulkWorkerData {
  /** This file's URL (bulk-worker-boot.mjs imports it). */
  entry: string;
  ledgerPath: string;
  busyTimeoutMs: number;
  /** Keep reading rounds until the ledger's head is at most this far ahead (rebuild.ts's fence). */
  fenceWhenBehind: number;
  pageSize: number;
  /** Pages posted and not yet applied (an Int32 the writer decrements): the reader waits at `maxInFlight`. */
  inFlight: SharedArrayBuffer;
  maxInFlight: number;
}

/**
 * One page's work. `ops` is flat, in ledger order: `table, values` for a finished row of
 * FOLDED[table], or `-1, event, tables` for an event the named tables' modules apply. A row's
 * FOLDED[table].bytes column holds, when it is a string, its UTF-8 length instead: the text itself
 * is next in `bytes` (rows in order, back to back).
 */
export interface BulkPage {
  ops: unknown[];
  bytes: ArrayBuffer;
  /** Events read in this page; the position of the last one. */
  events: number;
  position: number;
  /** The ledger's head when the page was read (progress), and whether this is the last page. */
  head: number;
  done: boolean;
}

/**
 * The long texts of a page as UTF-8, moved to the writing thread without a copy (a transferred
 * ArrayBuffer). Posted as strings, the 2 KB results cost more to clone on both threads than to
 * fold, and the writer binds the bytes as they are (bulk-replay.ts).
 */
class PageBytes {
  private buf = new Uint8Array(1 << 22);
  private used = 0;
  private readonly encoder = new TextEncoder();

  /** Appends `text`, returns its length in bytes. */
  put(text: string): number {
    const worst = text.length * 3;
    if (this.used + worst > this.buf.length) {
      const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.used + worst));
      bigger.set(this.buf.subarray(0, this.used));
      this.buf = bigger;
    }
    const { written } = this.encoder.encodeInto(text, this.buf.subarray(this.used));
    this.used += written;
    return written;
  }

  /** The page's bytes in a buffer of their own (to transfer); the working buffer is reused. */
  take(): ArrayBuffer {
    const taken = this.buf.slice(0, this.used).buffer;
    this.used = 0;
    return taken;
  }
}

/** JobCompleted without parsing its result when canonical-json.ts can prove the copy exact. */
function decode(r: EventRow): RecordedEvent {
  if (r[3] === 'JobCompleted' && r[4] === CURRENT_SCHEMA_VERSION) {
    const fields = completedFields(r[5]);
    if (fields) return { stream: r[1], revision: r[2], position: r[0], schemaVersion: r[4], type: 'JobCompleted', data: new CompletedData(fields), recordedAt: r[6] } as unknown as RecordedEvent;
  }
  return recorded(r);
}

function run(opts: BulkWorkerData): void {
  const db = new Database(opts.ledgerPath, { readonly: true, fileMustExist: true, timeout: opts.busyTimeoutMs });
  // Read the ledger's pages where the OS cache holds them rather than copying each into SQLite's cache.
  db.pragma('mmap_size = 1073741824');
  const inFlight = new Int32Array(opts.inFlight);
  try {
    const last = db.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events');
    const headOf = () => last.get()?.p ?? 0;
    const page = db
      .prepare<[number, number, number], EventRow>(
        'SELECT position, stream, revision, type, schema_version, data, recorded_at FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?',
      )
      .raw(true);
    let ops: unknown[] = [];
    const bytes = new PageBytes();
    const fold = bulkFold((table, values) => {
      const column = FOLDED[table]!.bytes;
      const text = values[column];
      if (typeof text === 'string') values[column] = bytes.put(text);
      ops.push(table, values);
    });
    const toWebhooks = webhooksFilter();
    const post = (p: Omit<BulkPage, 'ops' | 'bytes'>) => {
      // Back-pressure: the writer is the slower half; without it the whole ledger would queue up in memory.
      for (let n = Atomics.load(inFlight, 0); n >= opts.maxInFlight; n = Atomics.load(inFlight, 0)) Atomics.wait(inFlight, 0, n);
      Atomics.add(inFlight, 0, 1);
      const buffer = bytes.take();
      parentPort!.postMessage({ ...p, ops, bytes: buffer } satisfies BulkPage, [buffer]);
      ops = [];
    };

    let position = 0;
    let head = headOf();
    do {
      for (;;) {
        const rows = page.all(position, head, opts.pageSize);
        if (rows.length === 0) break;
        for (const r of rows) {
          let e = decode(r);
          let tables = fold.fold(e);
          if (toWebhooks(e)) (tables ??= []).push('webhooks');
          if (!tables) continue;
          // The modules get the event as the live projection does, whatever decode() left out.
          if (e.data instanceof CompletedData) e = recorded(r);
          ops.push(-1, e, tables);
        }
        position = rows[rows.length - 1]![0];
        post({ events: rows.length, position, head, done: false });
      }
      head = headOf();
    } while (head - position > opts.fenceWhenBehind);
    fold.finish();
    post({ events: 0, position, head, done: true });
  } finally {
    db.close();
  }
}

run(workerData as BulkWorkerData);
