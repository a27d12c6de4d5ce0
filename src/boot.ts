// Shared start-up for the processes: config validated once, a bad value stops the boot with a
// message naming it; SIGINT/SIGTERM close everything gracefully (running jobs drain first).
import { ConfigError, loadConfig, type Config } from './config.js';
import { createPrivately } from './private-files.js';
import { openService, type Service } from './service.js';

export function loadConfigOrExit(): Config {
  // Every process that touches DATA_DIR (API, worker, admin: rebuilds, backups, migrations) creates
  // its files private to its user, from the first one on (private-files.ts).
  createPrivately();
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** `graceSeconds`: how long `close` may wait for running work (SHUTDOWN_GRACE_SECONDS); 10 s more are allowed for the rest. */
export function onShutdown(close: () => Promise<void>, graceSeconds = 0) {
  let closing = false;
  const handler = (signal: string) => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(1), (graceSeconds + 10) * 1000);
    force.unref();
    close()
      .then(() => process.exit(0))
      .catch((err) => {
        process.stderr.write(`shutdown after ${signal} failed: ${String(err)}\n`);
        process.exit(1);
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** Opens the stores, or stops the boot with one line saying which could not be reached. */
export async function openServiceOrExit(config: Config): Promise<Service> {
  try {
    // Long-running processes (API server, worker): the ledger commits on a thread of its own.
    return await openService(config, undefined, { ledgerWriter: 'thread' });
  } catch (err) {
    process.stderr.write(`cannot open the service's stores (EVENT_STORE=${config.eventStore}, STORAGE_DRIVER=${config.storageDriver}, DATA_DIR=${config.dataDir}): ${(err as Error).message}\n`);
    process.exit(1);
  }
}
