// Moves the embedded ledger (DATA_DIR/ledger.db) into PostgreSQL, for the switch to the scale-out
// deployment: the same events (stream, revision, type, data, schema version, time) in the same
// global order, so every event gets the same chain hash and the ledger the same running root,
// which the migration checks at the end. Positions start at 1 in PostgreSQL (the SQLite ledger's
// may have holes); the root does not depend on them.
//
// Resumable: appends are sequential and each is atomic, so after an interruption PostgreSQL holds
// exactly the first k events of the SQLite order. A rerun checks that (the root stored at k must be
// the SQLite ledger's root after its k-th event, which proves the whole prefix) and goes on from
// there. Run it with every process stopped; an append made meanwhile in either store is refused.
import { ConflictError } from './port.js';
import type { CheckItem } from '../chain.js';
import type { PostgresEventStore, StoredEvent } from './postgres.js';
import { SqliteEventStore } from './sqlite.js';

export interface PostgresMigrationReport {
  events: number;
  copied: number;
  alreadyThere: number;
  /** The running root of both ledgers after the last event (they must be equal). */
  root: string;
  identical: boolean;
}

/** Events per append: one transaction each. */
const MAX_GROUP = 200;

export async function migrateSqliteToPostgres(
  ledgerPath: string,
  target: Pick<PostgresEventStore, 'appendStored' | 'lastPosition' | 'rootAt' | 'digest'>,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<PostgresMigrationReport> {
  const source = new SqliteEventStore(ledgerPath);
  try {
    // A ledger written before the chain existed is hashed first (its side table only), so the
    // roots can be compared.
    await source.completeChain();
    const want = await source.digest();
    const total = Number((source.db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n);
    const there = await target.lastPosition();
    const report: PostgresMigrationReport = { events: 0, copied: 0, alreadyThere: 0, root: want.root, identical: false };
    let group: NonNullable<CheckItem['event']>[] = [];
    const flush = async () => {
      if (group.length === 0) return;
      const first = group[0]!;
      const events: StoredEvent[] = group.map((e) => ({ type: e.type, data: e.data, schemaVersion: e.schemaVersion, recordedAt: e.recordedAt }));
      try {
        await target.appendStored(first.stream, events, first.revision - 1);
      } catch (err) {
        if (err instanceof ConflictError) throw new Error(`${first.stream} was written in PostgreSQL during the migration (at revision ${err.actual}, expected ${err.expected}): stop every process and rerun`);
        throw err;
      }
      report.copied += group.length;
      group = [];
      onProgress(report.events, total);
    };
    for await (const item of source.checkItems()) {
      if (!item.event || !item.stored) throw new Error(`the SQLite ledger does not verify at position ${item.position} (run \`audit verify\`): fix it before moving it`);
      report.events += 1;
      if (report.events <= there) {
        report.alreadyThere += 1;
        if (report.events === there) {
          const copy = await target.rootAt(there);
          if (!copy || !copy.root.equals(item.stored.root!)) {
            throw new Error(`PostgreSQL already holds ${there} events that are not the first ${there} of this ledger (the roots differ): the target is not a copy of it; use an empty database or POSTGRES_SCHEMA`);
          }
        }
        continue;
      }
      const e = item.event;
      if (group.length > 0 && (group[0]!.stream !== e.stream || group.length >= MAX_GROUP)) await flush();
      group.push(e);
    }
    await flush();
    if (report.events < there) throw new Error(`PostgreSQL holds ${there} events, more than this ledger's ${report.events}: the target is not a copy of it`);
    const got = await target.digest();
    report.identical = got.root === want.root;
    if (!report.identical) throw new Error(`after the copy the PostgreSQL root is ${got.root}, the SQLite ledger's ${want.root}: the copy is not identical (run \`audit verify\` on both)`);
    return report;
  } finally {
    await source.close();
  }
}
