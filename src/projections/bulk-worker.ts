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
 * FOLDED[table], or `-1, event, tables` for an event the named tables' modules apply.
 */
export interface BulkPage {
  ops: unknown[];
  /** Events read in this page; the position of the last one. */
  events: number;
  position: number;
  /** The ledger's head when the page was read (progress), and whether this is the last page. */
  head: number;
  done: boolean;
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
    const fold = bulkFold((table, values) => ops.push(table, values));
    const toWebhooks = webhooksFilter();
    const post = (p: Omit<BulkPage, 'ops'>) => {
      // Back-pressure: the writer is the slower half; without it the whole ledger would queue up in memory.
      for (let n = Atomics.load(inFlight, 0); n >= opts.maxInFlight; n = Atomics.load(inFlight, 0)) Atomics.wait(inFlight, 0, n);
      Atomics.add(inFlight, 0, 1);
      parentPort!.postMessage({ ...p, ops } satisfies BulkPage);
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
          const tables: string[] = [];
          for (const t of FOLDED) if (!fold.intercept(t.name, e)) tables.push(t.name);
          if (toWebhooks(e)) tables.push('webhooks');
          if (tables.length === 0) continue;
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
