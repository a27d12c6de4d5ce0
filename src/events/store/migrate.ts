// Moves the embedded ledger (DATA_DIR/ledger.db) into KurrentDB, for the switch to the scale-out
// deployment. Events keep their stream, revision, type, data, schema version and time, and are
// appended in the SQLite global order. A rerun continues where the last one stopped: a stream's
// events at or below its KurrentDB head are already there. Run it with every process stopped.
import Database from 'better-sqlite3';
import { ConflictError } from './port.js';
import type { KurrentDbEventStore, StoredEvent } from './kurrentdb.js';
import type { EventRow as Row } from './sqlite.js';

export interface MigrationReport {
  events: number;
  copied: number;
  alreadyThere: number;
  streams: number;
}

const BATCH = 1000;
/** Events per append: well under KurrentDB's default 16 MB append limit for ledger-sized events. */
const MAX_GROUP = 200;

export async function migrateSqliteToKurrentDb(
  ledgerPath: string,
  target: Pick<KurrentDbEventStore, 'appendStored' | 'streamTail'>,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<MigrationReport> {
  const db = new Database(ledgerPath, { readonly: true, fileMustExist: true });
  const at = db.prepare<[string, number], Row>('SELECT * FROM events WHERE stream = ? AND revision = ?');
  const heads = new Map<string, number>();
  const report: MigrationReport = { events: 0, copied: 0, alreadyThere: 0, streams: 0 };
  try {
    const total = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM events').get()?.n ?? 0;
    const page = db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?');
    let after = 0;
    for (;;) {
      const rows = page.all(after, BATCH);
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.position;
      // Consecutive events of one stream (an append of several events) go in one append.
      for (let i = 0; i < rows.length; ) {
        let j = i + 1;
        while (j < rows.length && j - i < MAX_GROUP && rows[j]!.stream === rows[i]!.stream) j++;
        await copy(rows.slice(i, j));
        i = j;
      }
      report.events += rows.length;
      onProgress(report.events, total);
    }
  } finally {
    db.close();
  }
  report.streams = heads.size;
  return report;

  async function copy(group: Row[]) {
    const stream = group[0]!.stream;
    let head = heads.get(stream) ?? (await knownHead(stream));
    const missing = group.filter((r) => r.revision > head);
    report.alreadyThere += group.length - missing.length;
    if (missing.length > 0) {
      const events: StoredEvent[] = missing.map((r) => ({ type: r.type, data: JSON.parse(r.data), schemaVersion: r.schema_version, recordedAt: r.recorded_at }));
      try {
        await target.appendStored(stream, events, head);
      } catch (err) {
        if (err instanceof ConflictError) throw new Error(`${stream} was written in KurrentDB during the migration: stop every process and rerun`);
        throw err;
      }
      head = missing[missing.length - 1]!.revision;
      report.copied += missing.length;
    }
    heads.set(stream, head);
  }

  /** Where the stream stands in KurrentDB, after checking that what is there came from this ledger. */
  async function knownHead(stream: string): Promise<number> {
    const tail = await target.streamTail(stream);
    if (!tail) return -1;
    const mine = at.get(stream, tail.revision);
    if (!mine || mine.type !== tail.type || mine.recorded_at !== tail.recordedAt) {
      throw new Error(`${stream} in KurrentDB ends with an event (revision ${tail.revision}) that is not in this ledger: the target is not a copy of it`);
    }
    return tail.revision;
  }
}
