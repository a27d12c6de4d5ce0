// `projections rebuild` and `projections verify` on a server ledger (EVENT_STORE=postgres): the
// events come through the store port, page by page, instead of straight from a SQLite file. Each
// node rebuilds its own read models (DATA_DIR/read-models.db) in the same generations as the SQLite
// rebuild (generations.ts), and the swap is fenced the same way: under the store's appender lock,
// so no event is committed between the last catch-up and the rename.
import type Database from 'better-sqlite3';
import type { EventStore } from '../events/store/port.js';
import { fsyncFile, isLive, removeDb, removeLeftovers, retire, swapIn, takeRebuildLock } from './generations.js';
import { bulkLoadMode, createWithPageSize, type RebuildReport } from './rebuild.js';
import type { Progress } from './replay.js';
import { applyBatch, checkpointOf, openReadModels } from './runner.js';

/** A store whose appenders can be held back while a callback runs (PostgresEventStore.holdingAppends). */
export interface FencedStore extends EventStore {
  holdingAppends<T>(fn: () => Promise<T>): Promise<T>;
}

const PAGE = 2_000;

/** Applies the store's events after the target's checkpoint, up to `upTo` (default: all). Returns the new checkpoint. */
export async function replayFromStore(
  store: EventStore,
  target: Database.Database,
  opts: { upTo?: number; onBatch?: (done: number) => void } = {},
): Promise<number> {
  const upTo = opts.upTo ?? Infinity;
  let position = checkpointOf(target);
  while (position < upTo) {
    const events = (await store.readAll(position, PAGE)).filter((e) => e.position <= upTo);
    if (events.length === 0) break;
    position = applyBatch(target, events);
    opts.onBatch?.(events.length);
  }
  return position;
}

const stamp = (d: Date) => d.toISOString().replace(/[-:]/g, '');

export async function rebuildFromStore(opts: {
  store: FencedStore;
  readModelsPath: string;
  busyTimeoutMs?: number;
  onProgress?: (p: Progress) => void;
  clock?: () => Date;
}): Promise<RebuildReport> {
  const clock = opts.clock ?? (() => new Date());
  const lock = takeRebuildLock(opts.readModelsPath);
  const file = `${opts.readModelsPath}.rebuild-${stamp(clock())}-${process.pid}`;
  let target: Database.Database | undefined;
  try {
    removeLeftovers(opts.readModelsPath);
    createWithPageSize(file, 16_384);
    target = openReadModels(file, opts.busyTimeoutMs);
    const restore = bulkLoadMode(target);
    const started = Date.now();
    let done = 0;
    let total = await opts.store.lastPosition();
    const onBatch = (n: number) => {
      done += n;
      total = Math.max(total, done);
      opts.onProgress?.({ done, total, elapsedMs: Date.now() - started });
    };
    const tgt = target;
    await replayFromStore(opts.store, tgt, { onBatch });
    restore();
    await replayFromStore(opts.store, tgt, { onBatch });
    tgt.pragma('wal_checkpoint(TRUNCATE)');
    fsyncFile(file);
    const fenceStarted = Date.now();
    const { position, previous } = await opts.store.holdingAppends(async () => {
      const at = await replayFromStore(opts.store, tgt, { onBatch });
      return { position: at, previous: swapIn(opts.readModelsPath, file, opts.busyTimeoutMs) };
    });
    const fenceMs = Date.now() - fenceStarted;
    retire(opts.readModelsPath, previous);
    return { file, position, events: done, elapsedMs: Date.now() - started, fenceMs };
  } catch (err) {
    target?.close();
    target = undefined;
    if (!isLive(opts.readModelsPath, file)) removeDb(file);
    throw err;
  } finally {
    target?.close();
    lock.release();
  }
}
