// WAL checkpoints off the request path (issue 22u). SQLite's automatic checkpoint runs inside the
// COMMIT that fills the WAL past 1,000 pages, before that commit returns: on the ledger's writer
// thread before a batch is answered, and for the read models on the event loop itself (their
// commits are this process's projections), where a checkpoint's page copies and two fsyncs held
// every request for several milliseconds once every ~70 submissions at one connection (strace of
// the service: 5-40 ms a time under load). A long-running server turns that off on the
// connections it writes with (`wal_autocheckpoint = 0`) and has one thread of its own checkpoint
// their files instead, on a timer, PASSIVE (it never waits for or blocks a reader or a writer).
// One-shot commands and other processes keep SQLite's default; any connection may checkpoint.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import type { CheckpointerData, CheckpointerRequest } from './sqlite-checkpointer-thread.js';

/**
 * How often the thread looks. A WAL then holds at most what is committed in that time (at one
 * connection ~300 commits of ~13 pages of read models a second: ~8 MB in 0.5 s, reused after).
 */
const TICK_MS = 500;

const ENTRY = new URL(`./sqlite-checkpointer-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
const BOOT = new URL('../../projections/bulk-worker-boot.mjs', import.meta.url);

/**
 * The thread starts this long after the first hand-over, not at once: a server's first seconds
 * (npm start answering and claiming its first jobs, issue 22) need the cores more than a WAL that
 * has barely begun needs a checkpoint.
 */
const START_AFTER_MS = 2_000;

let thread: Worker | undefined;
let starting: NodeJS.Timeout | undefined;
/** Per file path, how many connections of this process have handed it over. */
const handedOver = new Map<string, number>();

function start(): void {
  starting = undefined;
  if (handedOver.size === 0) return;
  const worker = new Worker(BOOT, { workerData: { entry: ENTRY, tickMs: TICK_MS } satisfies CheckpointerData });
  // Never what keeps a process alive. One that dies unasked is started again after the same delay
  // and told every file still handed over: the connections that handed them over checkpoint no
  // more, so without it their WALs would grow for as long as the server runs.
  worker.unref();
  const gone = () => {
    if (thread !== worker) return; // terminated when nothing was left to watch
    thread = undefined;
    if (handedOver.size > 0) starting ??= setTimeout(start, START_AFTER_MS).unref();
  };
  worker.on('error', gone);
  worker.on('exit', gone);
  thread = worker;
  for (const path of handedOver.keys()) worker.postMessage({ watch: path } satisfies CheckpointerRequest);
}

/**
 * Turns the automatic checkpoint off on `db` (a connection to a WAL file this process writes with)
 * and has the checkpointer thread checkpoint its file instead. The returned function gives it back:
 * automatic checkpoints on again if the connection is still open, and the file no longer watched
 * once no connection of this process hands it over.
 */
export function checkpointOffThread(db: Database.Database): () => void {
  return handOver(db.name, () => db.pragma('wal_autocheckpoint = 0'), () => {
    if (db.open) db.pragma('wal_autocheckpoint = 1000');
  });
}

/** The same for a connection on another thread (the ledger's writer), which turns its own checkpoints off. */
export function checkpointFileOffThread(path: string): () => void {
  return handOver(path, () => undefined, () => undefined);
}

function handOver(path: string, off: () => void, on: () => void): () => void {
  off();
  const n = handedOver.get(path) ?? 0;
  handedOver.set(path, n + 1);
  if (thread) {
    if (n === 0) thread.postMessage({ watch: path } satisfies CheckpointerRequest);
  } else starting ??= setTimeout(start, START_AFTER_MS).unref();
  let given = false;
  return () => {
    if (given) return;
    given = true;
    on();
    const left = (handedOver.get(path) ?? 1) - 1;
    if (left > 0) {
      handedOver.set(path, left);
      return;
    }
    handedOver.delete(path);
    if (handedOver.size === 0) {
      // Nothing left to watch: the thread goes (tests open and close many servers in one process).
      clearTimeout(starting);
      starting = undefined;
      void thread?.terminate();
      thread = undefined;
    } else thread?.postMessage({ unwatch: path } satisfies CheckpointerRequest);
  };
}
