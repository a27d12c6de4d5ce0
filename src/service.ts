// The composition root: builds the store, read models, ledger and storage from the config. The
// API server, the worker and the admin CLI all open the same service over the same DATA_DIR.
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { createLedger, type Ledger } from './commands/handle.js';
import { catalog, type CatalogEntry } from './analysis/catalog.js';
import type { Config } from './config.js';
import type { EventStore } from './events/store/port.js';
import { SqliteEventStore } from './events/store/sqlite.js';
import { openLiveReadModels } from './projections/live.js';
import { copyMissingResults } from './projections/job-results.js';
import { createPrivately, makeDirs, makePrivate } from './private-files.js';
import { createProjector, type Projector } from './projections/runner.js';
import { followStore } from './projections/follow.js';
import { createDiskStorage, diskLayout, type DiskLayout } from './storage/disk.js';
import type { VideoStorage } from './storage/port.js';
import { createMetrics, timeAppends, watchJobs, type Metrics } from './metrics/registry.js';
import { loadMasterKey, type MasterKey } from './secrets/master-key.js';
import { openVault, vaultPath, type SecretVault } from './secrets/vault.js';

export interface Service {
  config: Config;
  store: EventStore;
  ledger: Ledger;
  projector: Projector;
  /** The read-model database; a function because a rebuild swaps the file under it. */
  readDb(): Database.Database;
  /** Changes whenever the read models may have changed, from any process (projections/live.ts): rows read under one value may be reused while it holds. */
  readVersion(): number;
  /** The same for what authentication reads of a key (http/auth.ts): not moved by this process's own job events. */
  keysVersion(): number;
  storage: VideoStorage;
  /** Present with the disk driver: the storage host serves it. */
  disk?: DiskLayout;
  clock: () => Date;
  /** The exercise catalog as it stands now (SPEC: it changes over time and is read live). */
  catalog(): readonly CatalogEntry[];
  /** Prometheus metrics of this process (served by metrics/server.ts where METRICS_PORT is set). */
  metrics: Metrics;
  /** Webhook signing secrets, sealed (src/secrets/): the only place they are kept. */
  vault: SecretVault;
  /** Where the vault's master key came from (logged at start, never the key). */
  masterKey: Pick<MasterKey, 'id' | 'source' | 'path'>;
  close(): Promise<void>;
}

export const paths = (dataDir: string) => ({
  ledger: join(dataDir, 'ledger.db'),
  readModels: join(dataDir, 'read-models.db'),
  secrets: vaultPath(dataDir),
});

/** The ledger EVENT_STORE names; a server store is connected (and PostgreSQL's schema migrated) before this returns. */
export interface OpenOptions {
  /**
   * Where the SQLite ledger commits (events/store/sqlite.ts): 'thread' for the long-running API
   * server and worker (boot.ts), so a commit's fsync never holds their event loop; 'inline' (the
   * default) for one-shot commands, which need no thread started.
   */
  ledgerWriter?: 'thread' | 'inline';
}

export async function openEventStore(config: Config, clock: () => Date = () => new Date(), opts: OpenOptions = {}): Promise<EventStore> {
  // The server stores' clients are imported only when chosen, so the default never loads them.
  if (config.eventStore === 'kurrentdb') return new (await import('./events/store/kurrentdb.js')).KurrentDbEventStore(config.kurrentdbUrl!, { clock });
  if (config.eventStore === 'postgres') {
    const { PostgresEventStore } = await import('./events/store/postgres.js');
    const { url, schema, poolSize } = config.postgres;
    return PostgresEventStore.open(url!, { schema, poolSize, clock, busyTimeoutMs: config.storeBusyTimeoutMs });
  }
  return new SqliteEventStore(paths(config.dataDir).ledger, { clock, busyTimeoutMs: config.storeBusyTimeoutMs, writer: opts.ledgerWriter });
}

export async function openService(config: Config, clock: () => Date = () => new Date(), opts: OpenOptions = {}): Promise<Service> {
  // Private from birth (0600/0700), and anything an older version or a copy left open is closed now.
  createPrivately();
  makeDirs(config.dataDir, 'DATA_DIR');
  const privacy = makePrivate(config.dataDir);
  if (privacy.fixed.length > 0) {
    process.stderr.write(`DATA_DIR ${config.dataDir}: took group and other access away from ${privacy.fixed.length} of ${privacy.checked} entries (${privacy.fixed.slice(0, 5).join(', ')}${privacy.fixed.length > 5 ? ', ...' : ''})\n`);
  }
  const files = paths(config.dataDir);
  const store = await openEventStore(config, clock, opts);
  // A rebuild swaps the file under a running server; readDb() notices and reopens (projections/live.ts).
  const readModels = openLiveReadModels(files.readModels, {
    busyTimeoutMs: config.storeBusyTimeoutMs,
    // With the SQLite ledger a completed job's result is read from it, not copied (projections/job-results.ts).
    resultsIn: store instanceof SqliteEventStore ? files.ledger : undefined,
    onSwap: () => void projector.catchUp().catch(() => undefined),
    // A long-running server's projections commit on its event loop: their checkpoints go to a thread (issue 22u).
    checkpointsOffThread: opts.ledgerWriter === 'thread',
  });
  const readDb = readModels.current;
  const metrics = createMetrics();
  timeAppends(store, metrics);
  watchJobs(metrics, readDb, store, clock);
  const projector = createProjector(store, readDb, readModels.companion);
  const ledger = createLedger(store, () => projector.catchUpOwn());
  // Our own appends are projected while their fsync runs, committed once durable (issue 22q).
  if (store instanceof SqliteEventStore) store.whileCommitting = projector.whileCommitting;
  const disk = config.storageDriver === 'disk' ? diskLayout(config.dataDir) : undefined;
  // The S3 driver is imported only when configured: the AWS SDK costs a fresh process ~0.25 s of
  // CPU to load, inside the seconds in which `npm start` must answer and end its first jobs.
  const storage = disk ? createDiskStorage(disk, config.storagePublicUrl) : (await import('./storage/s3.js')).createS3Storage(config.s3, clock);
  // A ledger written before the hash chain existed gets it once (resumable; a no-op once sealed).
  if (store instanceof SqliteEventStore) await store.completeChain();
  // A node moved off the SQLite ledger keeps rows whose results were left in it (projections/job-results.ts).
  if (!(store instanceof SqliteEventStore)) await copyMissingResults(readDb(), store);
  // Events appended while no process was projecting (a crash between append and projection).
  await projector.catchUp();
  const master = loadMasterKey(config.dataDir, config.secretsKeyFile);
  const vault = openVault(files.secrets, master, config.storeBusyTimeoutMs);
  // Other nodes append to KurrentDB or PostgreSQL too: follow their events into this node's read models.
  const follower = 'subscribe' in store
    ? followStore(store as Parameters<typeof followStore>[0], projector, readDb, { warn: (o, m) => process.stderr.write(`${m} ${JSON.stringify(o)}\n`) })
    : undefined;
  return {
    config,
    store,
    ledger,
    projector,
    readDb,
    readVersion: readModels.version,
    // Both counters only grow, so their sum moves when either does: another process's commit (or a
    // swap), or a key change this process projected (issue 22w).
    keysVersion: () => readModels.othersVersion() + projector.keyChanges(),
    storage,
    disk,
    clock,
    catalog: () => catalog,
    metrics,
    vault,
    masterKey: { id: master.id, source: master.source, path: master.path },
    async close() {
      await follower?.stop();
      await storage.close();
      await store.close();
      readModels.close();
      vault.close();
    },
  };
}
