// bulk-read.ts on a worker thread (bulk-replay.ts says when and why): posts each page to the
// writing thread, holding back when it is MAX pages ahead.
import { parentPort, workerData } from 'node:worker_threads';
import { FOLDED } from './bulk.js';
import { bulkRead, type BulkPage, type BulkReadOptions } from './bulk-read.js';

export interface BulkWorkerData extends BulkReadOptions {
  /** This file's URL (bulk-worker-boot.mjs imports it). */
  entry: string;
  /** Pages posted and not yet applied (an Int32 the writer decrements): the reader waits at `maxInFlight`. */
  inFlight: SharedArrayBuffer;
  maxInFlight: number;
}

/**
 * A page as posted: each row's FOLDED[table].bytes column holds, when it is a string, its UTF-8
 * length instead, the text itself being next in `bytes` (rows in order, back to back).
 */
export interface PostedPage extends BulkPage {
  bytes: ArrayBuffer;
}

/**
 * The long texts of a page as UTF-8, moved to the writing thread without a copy (a transferred
 * ArrayBuffer). Posted as strings, the 2 KB results cost more to clone on both threads than to
 * fold, and the writer binds the bytes as they are (bulk-replay.ts).
 */
class PageBytes {
  private buf = new Uint8Array(1 << 22);
  private used = 0;
  private readonly encoder = new TextEncoder();

  /** Appends `text`, returns its length in bytes. */
  put(text: string): number {
    const worst = text.length * 3;
    if (this.used + worst > this.buf.length) {
      const bigger = new Uint8Array(Math.max(this.buf.length * 2, this.used + worst));
      bigger.set(this.buf.subarray(0, this.used));
      this.buf = bigger;
    }
    const { written } = this.encoder.encodeInto(text, this.buf.subarray(this.used));
    this.used += written;
    return written;
  }

  /** The page's bytes in a buffer of their own (to transfer); the working buffer is reused. */
  take(): ArrayBuffer {
    const taken = this.buf.slice(0, this.used).buffer;
    this.used = 0;
    return taken;
  }
}

function run(opts: BulkWorkerData): void {
  const inFlight = new Int32Array(opts.inFlight);
  const bytes = new PageBytes();
  for (const page of bulkRead(opts)) {
    const ops = page.ops;
    for (let i = 0; i < ops.length; i += ops[i] === -1 ? 3 : 2) {
      const table = ops[i] as number;
      if (table < 0) continue;
      const values = ops[i + 1] as unknown[];
      const column = FOLDED[table]!.bytes;
      if (typeof values[column] === 'string') values[column] = bytes.put(values[column] as string);
    }
    // Back-pressure: the writer is the slower half; without it the whole ledger would queue up in memory.
    for (let n = Atomics.load(inFlight, 0); n >= opts.maxInFlight; n = Atomics.load(inFlight, 0)) Atomics.wait(inFlight, 0, n);
    Atomics.add(inFlight, 0, 1);
    const buffer = bytes.take();
    parentPort!.postMessage({ ...page, bytes: buffer } satisfies PostedPage, [buffer]);
  }
}

run(workerData as BulkWorkerData);
