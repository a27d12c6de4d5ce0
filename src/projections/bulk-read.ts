// The reading half of a rebuild's bulk phase (bulk-replay.ts runs it on a worker thread, or inline):
// reads the ledger page by page, decodes each event, folds keys, uploads and jobs in memory
// (bulk.ts), and hands over each page's work in ledger order: the rows the fold finished, and the
// events a module's SQL must still apply (each with the tables it is for).
import Database from 'better-sqlite3';
import { bulkFold, webhooksFilter } from './bulk.js';
import { recorded, type EventRow } from './replay.js';

export interface BulkReadOptions {
  ledgerPath: string;
  busyTimeoutMs: number;
  /** Keep reading rounds until the ledger's head is at most this far ahead (rebuild.ts's fence). */
  fenceWhenBehind: number;
  pageSize: number;
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

/** The pages of the bulk phase, the last one (done) with every row still folded. */
export function* bulkRead(opts: BulkReadOptions): Generator<BulkPage> {
  const db = new Database(opts.ledgerPath, { readonly: true, fileMustExist: true, timeout: opts.busyTimeoutMs });
  // Read the ledger's pages where the OS cache holds them rather than copying each into SQLite's cache.
  db.pragma('mmap_size = 1073741824');
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
    const take = () => {
      const taken = ops;
      ops = [];
      return taken;
    };

    let position = 0;
    let head = headOf();
    do {
      for (;;) {
        const rows = page.all(position, head, opts.pageSize);
        if (rows.length === 0) break;
        for (const r of rows) {
          const e = recorded(r);
          let tables = fold.fold(e);
          if (toWebhooks(e)) (tables ??= []).push('webhooks');
          if (tables) ops.push(-1, e, tables);
        }
        position = rows[rows.length - 1]![0];
        yield { ops: take(), events: rows.length, position, head, done: false };
      }
      head = headOf();
    } while (head - position > opts.fenceWhenBehind);
    fold.finish();
    yield { ops: take(), events: 0, position, head, done: true };
  } finally {
    db.close();
  }
}
