// bulk-read.ts on a worker thread (bulk-replay.ts says when and why): posts each page to the
// writing thread, holding back when it is MAX pages ahead.
import { parentPort, workerData } from 'node:worker_threads';
import { bulkRead, type BulkPage, type BulkReadOptions } from './bulk-read.js';

export interface BulkWorkerData extends BulkReadOptions {
  /** This file's URL (bulk-worker-boot.mjs imports it). */
  entry: string;
  /** Pages posted and not yet applied (an Int32 the writer decrements): the reader waits at `maxInFlight`. */
  inFlight: SharedArrayBuffer;
  maxInFlight: number;
}

function run(opts: BulkWorkerData): void {
  const inFlight = new Int32Array(opts.inFlight);
  for (const page of bulkRead(opts)) {
    // Back-pressure: the writer is the slower half; without it the whole ledger would queue up in memory.
    for (let n = Atomics.load(inFlight, 0); n >= opts.maxInFlight; n = Atomics.load(inFlight, 0)) Atomics.wait(inFlight, 0, n);
    Atomics.add(inFlight, 0, 1);
    parentPort!.postMessage(page satisfies BulkPage);
  }
}

run(workerData as BulkWorkerData);
