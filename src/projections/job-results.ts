// Where a completed job's result is read from. With the SQLite ledger the jobs read model does not
// copy it: the row keeps the JobCompleted event's ledger position (result_at) and a read takes the
// result from that event, a point read by primary key in a file on the same disk. The result (~2 KB)
// was most of the bytes a rebuild wrote (issue 22: a rebuild at least 0.5x a raw scan of the
// ledger); the ledger holds it anyway, append-only. With a server ledger (PostgreSQL, KurrentDB) a
// read would be a network round trip per poll, so there the read model keeps its copy.
//
// Which way a read-model connection projects is decided by whoever opens it (openReadModels'
// `resultsIn`), not by the file: a file written one way and caught up the other still serves every
// row right (a copied result is used as it is), and `projections verify` names the rows that differ.
import Database from 'better-sqlite3';
import type { EventStore } from '../events/store/port.js';
import { upcast } from '../events/upcasters.js';

/** Read-model connections whose results stay in the ledger at this path. */
const ledgerOf = new WeakMap<Database.Database, string>();

/** One read connection per ledger file, opened on the first result read. */
const readers = new Map<string, { db: Database.Database; event: Database.Statement<[number], { type: string; schema_version: number; data: string }> }>();

export function keepResultsInLedger(db: Database.Database, ledgerPath: string): void {
  ledgerOf.set(db, ledgerPath);
}

/** Whether `db` projects a completed job without copying its result (jobs.ts, bulk.ts). */
export const resultsInLedger = (db: Database.Database): boolean => ledgerOf.has(db);

/** The result of the JobCompleted event at `position`, parsed (upcast as any read of the ledger is). */
export function resultFromLedger(db: Database.Database, position: number): unknown {
  const path = ledgerOf.get(db);
  if (path === undefined) throw new Error(`a job's result is in the ledger (position ${position}) but this read-model connection was opened without it`);
  let reader = readers.get(path);
  if (!reader) {
    // Not readonly: a read-only connection cannot open a WAL file whose -shm is not there yet.
    const ledger = new Database(path, { fileMustExist: true });
    reader = { db: ledger, event: ledger.prepare('SELECT type, schema_version, data FROM events WHERE position = ?') };
    readers.set(path, reader);
  }
  const row = reader.event.get(position);
  if (row?.type !== 'JobCompleted') throw new Error(`ledger position ${position} is not a JobCompleted event`);
  return upcast({ type: row.type, data: JSON.parse(row.data), schemaVersion: row.schema_version }).data.result;
}

/** Closes the ledger's read connection (a later read opens it again). */
export function releaseLedger(ledgerPath: string): void {
  const reader = readers.get(ledgerPath);
  readers.delete(ledgerPath);
  reader?.db.close();
}

/**
 * For a node whose ledger moved from SQLite to PostgreSQL (`migrate --to postgres` keeps positions,
 * and the node keeps its read models): rows projected beside the SQLite ledger have no copy, and a
 * server ledger is not read per request, so their results are copied in once, from the store, before
 * the node serves. None to copy costs one pass over the completed jobs' index at start.
 */
export async function copyMissingResults(db: Database.Database, store: Pick<EventStore, 'readAll'>): Promise<number> {
  const missing = db
    .prepare<[], { job_id: string; result_at: number }>("SELECT job_id, result_at FROM jobs WHERE status = 'completed' AND result IS NULL AND result_at IS NOT NULL")
    .all();
  const fill = db.prepare('UPDATE jobs SET result = ? WHERE job_id = ?');
  for (const { job_id, result_at } of missing) {
    const [e] = await store.readAll(result_at - 1, 1);
    if (e?.position !== result_at || e.type !== 'JobCompleted') throw new Error(`job ${job_id}: its result is not at ledger position ${result_at} of this store (give the node a fresh DATA_DIR)`);
    fill.run(JSON.stringify(e.data.result), job_id);
  }
  return missing.length;
}
