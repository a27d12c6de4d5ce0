// `projections verify`: replays the ledger into a scratch file up to the live file's checkpoint and
// compares the two row by row, every column of every table (checkpoint included). The live file is
// read inside one read transaction, so the API may keep writing while we compare a fixed snapshot.
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { checkpointOf, openReadModels } from './runner.js';
import { bulkLoadMode } from './rebuild.js';
import { openLedgerSource, replayInto } from './replay.js';
import { replayFromStore } from './rebuild-from-store.js';
import type { EventStore } from '../events/store/port.js';

export interface RowDifference {
  table: string;
  key: unknown;
  kind: 'missing' | 'unexpected' | 'changed';
  /** For "changed": column -> [live, replayed]. */
  columns?: Record<string, [unknown, unknown]>;
}

export interface VerifyReport {
  position: number;
  rows: Record<string, number>;
  schema: string[];
  differences: RowDifference[];
  /** Differences found in all, when more than `maxDifferences` were listed. */
  differenceCount: number;
}

type Row = Record<string, unknown>;

/** The ledger is the SQLite file at `ledgerPath`, or `store` (a server store, read through the port). */
export async function verify(opts: { ledgerPath?: string; store?: EventStore; readModelsPath: string; busyTimeoutMs?: number; maxDifferences?: number }): Promise<VerifyReport> {
  const max = opts.maxDifferences ?? 50;
  const scratch = `${opts.readModelsPath}.verify-${process.pid}`;
  const live = new Database(opts.readModelsPath, { fileMustExist: true, timeout: opts.busyTimeoutMs ?? 5000 });
  const source = opts.store ? undefined : openLedgerSource(opts.ledgerPath!, opts.busyTimeoutMs);
  let fresh: Database.Database | undefined;
  try {
    live.exec('BEGIN');
    const position = checkpointOf(live); // the first read fixes the snapshot
    // Projected as the live file is: with the SQLite ledger, results are left in it (job-results.ts).
    fresh = openReadModels(scratch, undefined, source ? opts.ledgerPath : undefined);
    bulkLoadMode(fresh);
    if (source) replayInto(source, fresh, { upTo: position });
    else await replayFromStore(opts.store!, fresh, { upTo: position });
    const report: VerifyReport = { position, rows: {}, schema: [], differences: [], differenceCount: 0 };
    const tables = fresh.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
    for (const { name } of tables) compareTable(live, fresh, name, report, max);
    return report;
  } finally {
    if (live.inTransaction) live.exec('COMMIT');
    live.close();
    source?.close();
    fresh?.close();
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(scratch + suffix, { force: true });
  }
}

/** `pk`: the primary key's columns in key order (several for queue/projection.ts's queued_jobs). */
function columnsOf(db: Database.Database, table: string): { names: string[]; pk: string[] } {
  const cols = db.prepare<[], { name: string; pk: number }>(`SELECT name, pk FROM pragma_table_info('${table}')`).all();
  return { names: cols.map((c) => c.name), pk: cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name) };
}

/** Orders two primary keys (column by column, as SQLite orders them: numbers before text). */
function compareKeys(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string | number;
    const y = b[i] as string | number;
    if (x === y) continue;
    if (typeof x !== typeof y) return typeof x === 'number' ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

function compareTable(live: Database.Database, fresh: Database.Database, table: string, report: VerifyReport, max: number): void {
  const want = columnsOf(fresh, table);
  const have = columnsOf(live, table);
  if (have.names.length === 0) {
    report.schema.push(`table ${table} is missing from the live file`);
    return;
  }
  for (const c of want.names) if (!have.names.includes(c)) report.schema.push(`${table}.${c} is missing from the live file`);
  for (const c of have.names) if (!want.names.includes(c)) report.schema.push(`${table}.${c} is in the live file but no projection writes it`);
  const pk = want.pk.length > 0 ? want.pk : ['rowid'];
  const keyOf = (row: Row) => pk.map((c) => row[c]);
  const shown = (key: unknown[]) => (key.length === 1 ? key[0] : key);
  const add = (d: RowDifference) => {
    report.differenceCount += 1;
    if (report.differences.length < max) report.differences.push(d);
  };
  // A merge join over both tables in primary-key order: flat memory whatever the size.
  const a = live.prepare(`SELECT * FROM ${table} ORDER BY ${pk.join(', ')}`).iterate() as IterableIterator<Row>;
  const b = fresh.prepare(`SELECT * FROM ${table} ORDER BY ${pk.join(', ')}`).iterate() as IterableIterator<Row>;
  let x = a.next();
  let y = b.next();
  let count = 0;
  while (!x.done || !y.done) {
    const kx = x.done ? [] : keyOf(x.value);
    const ky = y.done ? [] : keyOf(y.value);
    if (y.done || (!x.done && compareKeys(kx, ky) < 0)) {
      add({ table, key: shown(kx), kind: 'unexpected' });
      x = a.next();
    } else if (x.done || compareKeys(ky, kx) < 0) {
      add({ table, key: shown(ky), kind: 'missing' });
      y = b.next();
      count += 1;
    } else {
      const columns: Record<string, [unknown, unknown]> = {};
      for (const c of want.names) if (have.names.includes(c) && !Object.is(x.value[c], y.value[c])) columns[c] = [x.value[c], y.value[c]];
      if (Object.keys(columns).length > 0) add({ table, key: shown(kx), kind: 'changed', columns });
      x = a.next();
      y = b.next();
      count += 1;
    }
  }
  report.rows[table] = count;
}
