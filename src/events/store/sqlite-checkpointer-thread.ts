// The thread of sqlite-checkpointer.ts: every TICK_MS, a PASSIVE checkpoint of each file it is told
// to watch whose WAL changed since its last one, on a connection of its own (reopened when the path
// names another file: a read-model swap). PASSIVE never waits for readers or writers; a checkpoint
// that finds the lock taken (another process checkpointing) is simply tried again at the next tick.
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

export interface CheckpointerData {
  entry: string;
  tickMs: number;
}

/** What the thread is sent: start or stop watching a file. */
export type CheckpointerRequest = { watch: string } | { unwatch: string };

interface Watched {
  db: Database.Database | undefined;
  /** The file the connection is on (dev:ino), and the WAL as last checkpointed (size:mtime). */
  id: string | undefined;
  wal: string | undefined;
}

const { tickMs } = workerData as CheckpointerData;
const watched = new Map<string, Watched>();

const stamp = (path: string, what: 'id' | 'wal'): string | undefined => {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return undefined;
  return what === 'id' ? `${st.dev}:${st.ino}` : `${st.size}:${st.mtimeMs}`;
};

function checkpoint(path: string, w: Watched): void {
  const wal = stamp(`${path}-wal`, 'wal');
  if (wal === undefined || wal === w.wal) return;
  const id = stamp(path, 'id');
  if (id === undefined) return;
  if (w.id !== id) {
    w.db?.close();
    w.db = new Database(path, { fileMustExist: true, timeout: 0 });
    // The checkpoint's syncs are its connection's: FULL, as the ledger's own writers would have done it.
    w.db.pragma('synchronous = FULL');
    w.id = id;
  }
  w.db!.pragma('wal_checkpoint(PASSIVE)');
  w.wal = wal;
}

setInterval(() => {
  for (const [path, w] of watched) {
    try {
      checkpoint(path, w);
    } catch {
      // Busy (another process's checkpoint), or the file went away mid-swap: the next tick tries again.
    }
  }
}, tickMs);

parentPort!.on('message', (req: CheckpointerRequest) => {
  if ('watch' in req) {
    if (!watched.has(req.watch)) watched.set(req.watch, { db: undefined, id: undefined, wal: undefined });
    return;
  }
  watched.get(req.unwatch)?.db?.close();
  watched.delete(req.unwatch);
});
