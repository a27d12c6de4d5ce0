// Starts a worker thread's module (bulk-worker, bulk-sql-jobs, the event store's writer thread). Run
// from the TypeScript sources (tsx), the thread needs a loader of its own: on Node 20 tsx registers
// its loader in the main thread only. A namespaced loader applies to this import alone, so it never
// doubles one a newer Node already gave the thread.
import { workerData } from 'node:worker_threads';

if (workerData.entry.endsWith('.ts')) {
  const { register } = await import('tsx/esm/api');
  await register({ namespace: 'rebuild-reader' }).import(workerData.entry, import.meta.url);
} else {
  await import(workerData.entry);
}
