// Keeps this node's read models following events that OTHER nodes append (KurrentDB: each machine
// has its own read-model file). A catch-up subscription to the ledger streams wakes the projector,
// which drains from its checkpoint with applyBatch, so rows and checkpoint still commit in one
// SQLite transaction. The subscription is only a signal, never the source of rows: $all positions
// are byte offsets with holes, so a subscriber could not tell a missed event from a hole, while a
// drain from the checkpoint cannot skip one (and survives a rebuild swapping the file under it).
import type Database from 'better-sqlite3';
import type { RecordedEvent } from '../events/store/port.js';
import { checkpointOf, type Projector } from './runner.js';

export interface Subscribable {
  subscribe(afterPosition: number, onEvent: (e: RecordedEvent) => void, onError: (err: unknown) => void): { stop(): Promise<void> };
}

export interface Follower {
  stop(): Promise<void>;
}

export function followStore(
  store: Subscribable,
  projector: Projector,
  readDb: () => Database.Database,
  log: { warn(o: object, m: string): void },
  retryMs = 1000,
): Follower {
  let stopped = false;
  let current: { stop(): Promise<void> } | undefined;
  let retry: NodeJS.Timeout | undefined;

  const wake = () => {
    projector.catchUp().catch((err) => log.warn({ err: String(err) }, 'read-model catch-up failed; the next event retries'));
  };

  function start() {
    retry = undefined;
    if (stopped) return;
    let from = 0;
    try {
      from = checkpointOf(readDb());
    } catch (err) {
      log.warn({ err: String(err) }, 'read-model checkpoint unreadable; resubscribing');
      retry = setTimeout(start, retryMs);
      return;
    }
    let failed = false;
    current = store.subscribe(from, wake, (err) => {
      if (failed || stopped) return;
      failed = true;
      log.warn({ err: String(err) }, 'ledger subscription dropped; resubscribing from the checkpoint');
      void current?.stop().catch(() => undefined);
      retry = setTimeout(start, retryMs);
    });
    // Events appended while we were not subscribed.
    wake();
  }

  start();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await current?.stop().catch(() => undefined);
    },
  };
}
