// The SQLite ledger's writer thread (sqlite.ts says why): its own connection to the ledger file;
// writes each batch it is sent in one transaction and answers with the results, or with the error
// that rolled the batch back. A batch sent with `announce` is also told about from inside its
// transaction, after the last insert and before COMMIT (`written`: where its rows went), so the
// event loop can project it while the fsync runs (issue 22q); the answer follows as usual.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from './sqlite.js';
import { batchWriter, type BatchEntry, type BatchResult } from './sqlite-batch.js';

export interface WriterData {
  entry: string;
  path: string;
  busyTimeoutMs?: number;
  /** The file's checkpoints are run by the checkpointer thread (sqlite-checkpointer.ts), not in this thread's commits. */
  checkpointsElsewhere?: boolean;
}

export interface WriteRequest {
  batch: BatchEntry[];
  recordedAt: string;
  /** Post `written` before COMMIT. */
  announce?: boolean;
}

export type WriteReply =
  | { results: BatchResult[] }
  | { error: { message: string; code?: string } }
  | { written: BatchResult[] };

const { path, busyTimeoutMs, checkpointsElsewhere } = workerData as WriterData;
const db = openSqlite(path, busyTimeoutMs);
if (checkpointsElsewhere) db.pragma('wal_autocheckpoint = 0');
let announce = false;
const write = batchWriter(db, (results) => {
  if (announce) parentPort!.postMessage({ written: results } satisfies WriteReply);
});
parentPort!.on('message', (req: WriteRequest) => {
  announce = req.announce === true;
  let reply: WriteReply;
  try {
    reply = { results: write(req.batch, req.recordedAt) };
  } catch (err) {
    reply = { error: { message: (err as Error).message, code: (err as { code?: string }).code } };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true });
