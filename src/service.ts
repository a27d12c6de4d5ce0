// The composition root: builds the store, read models, ledger and storage from the config. The
// API server, the worker and the admin CLI all open the same service over the same DATA_DIR.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { createLedger, type Ledger } from './commands/handle.js';
import type { Config } from './config.js';
import type { EventStore } from './events/store/port.js';
import { SqliteEventStore } from './events/store/sqlite.js';
import { createProjector, openReadModels, type Projector } from './projections/runner.js';
import { createDiskStorage, diskLayout, type DiskLayout } from './storage/disk.js';
import type { VideoStorage } from './storage/port.js';

export interface Service {
  config: Config;
  store: EventStore;
  ledger: Ledger;
  projector: Projector;
  /** The read-model database; a function because a rebuild swaps the file under it. */
  readDb(): Database.Database;
  storage: VideoStorage;
  /** Present with the disk driver: the storage host serves it. */
  disk?: DiskLayout;
  clock: () => Date;
  close(): Promise<void>;
}

export const paths = (dataDir: string) => ({
  ledger: join(dataDir, 'ledger.db'),
  readModels: join(dataDir, 'read-models.db'),
});

export async function openService(config: Config, clock: () => Date = () => new Date()): Promise<Service> {
  mkdirSync(config.dataDir, { recursive: true });
  const files = paths(config.dataDir);
  if (config.eventStore !== 'sqlite') throw new Error(`EVENT_STORE=${config.eventStore} is not available in this build`);
  const store: EventStore = new SqliteEventStore(files.ledger, { clock, busyTimeoutMs: config.storeBusyTimeoutMs });
  let db = openReadModels(files.readModels, config.storeBusyTimeoutMs);
  const readDb = () => db;
  const projector = createProjector(store, readDb);
  const ledger = createLedger(store, () => projector.catchUp());
  if (config.storageDriver !== 'disk') throw new Error(`STORAGE_DRIVER=${config.storageDriver} is not available in this build`);
  const disk = diskLayout(config.dataDir);
  const storage = createDiskStorage(disk, config.storagePublicUrl);
  // Events appended while no process was projecting (a crash between append and projection).
  await projector.catchUp();
  return {
    config,
    store,
    ledger,
    projector,
    readDb,
    storage,
    disk,
    clock,
    async close() {
      await storage.close();
      await store.close();
      db.close();
    },
  };
}
