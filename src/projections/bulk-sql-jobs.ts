// The jobs thread of a two-thread set-based bulk phase (bulk-sql.ts, sqlBulkReplay): builds the jobs
// table into a file of its own while the rebuild's thread does the rest, and posts what is left.
import { parentPort, workerData } from 'node:worker_threads';
import { buildJobs } from './bulk-sql.js';

export interface JobsThreadData {
  /** This file's URL (bulk-worker-boot.mjs imports it). */
  entry: string;
  file: string;
  ledgerPath: string;
  upTo: number;
}

const { file, ledgerPath, upTo } = workerData as JobsThreadData;
parentPort!.postMessage(buildJobs(file, ledgerPath, upTo));
