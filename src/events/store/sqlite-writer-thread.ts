// The SQLite ledger's writer thread (sqlite.ts says why): its own connection to the ledger file;
// writes each batch it is sent in one transaction and answers with the results, or with the error
// that rolled the batch back.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from './sqlite.js';
import { batchWriter, type BatchEntry } from './sqlite-batch.js';

export interface WriterData {
  entry: string;
  path: string;
  busyTimeoutMs?: number;
}

export interface WriteRequest {
  batch: BatchEntry[];
  recordedAt: string;
}

export type WriteReply = { results: ReturnType<ReturnType<typeof batchWriter>> } | { error: { message: string; code?: string } };

const { path, busyTimeoutMs } = workerData as WriterData;
const db = openSqlite(path, busyTimeoutMs);
const write = batchWriter(db);
parentPort!.on('message', (req: WriteRequest) => {
  let reply: WriteReply;
  try {
    reply = { results: write(req.batch, req.recordedAt) };
  } catch (err) {
    reply = { error: { message: (err as Error).message, code: (err as { code?: string }).code } };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ ready: true });
