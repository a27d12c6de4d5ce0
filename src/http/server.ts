// `npm start`: the API on HOST:PORT, the storage host on STORAGE_PORT (disk driver), the job
// runner (WORKER_CONCURRENCY, 0 = API only), the spot and video-retention sweeper and the metrics
// listener on METRICS_PORT, all over DATA_DIR.
import '../runtime/require-node.js'; // first: stops at once on a Node too old for the SQLite addon
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { loadConfigOrExit, onShutdown, openServiceOrExit } from '../boot.js';
import { storageCallbacks } from '../commands/partner.js';
import { createEngineHost } from '../runner/engine-host.js';
import { startRunner } from '../runner/runner.js';
import { startSweeper } from '../runner/sweeper.js';
import { startDispatcher } from '../webhooks/dispatcher.js';
import { createStorageHost } from '../storage/host.js';
import { startMetricsServer } from '../metrics/server.js';
import { buildApp } from './app.js';
import { logInChunks } from './log-destination.js';
import { detectNetworkIsolation } from '../analysis/decoder/sandbox.js';
import { flushCompileCache } from '../runtime/compile-cache.js';

const config = loadConfigOrExit();
// STORAGE_PORT=0 (any free port) with the default STORAGE_PUBLIC_URL signed every upload URL for
// port 0, where no partner can PUT (issue rx). The port is picked now, before the service signs
// anything with it; the storage host then listens on it (another process taking it in between is
// the EADDRINUSE line below).
if (config.storageDriver === 'disk' && config.storagePort === 0 && !process.env.STORAGE_PUBLIC_URL) {
  const probe = createServer();
  probe.listen(0, config.host);
  await listenedOrExit(once(probe, 'listening'), 'the storage host', 'STORAGE_PORT', 0);
  config.storagePort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  config.storagePublicUrl = config.storagePublicUrl.replace(/:0$/, `:${config.storagePort}`);
}
// The engine runs in child processes: analyses never hold this process's event loop. With a
// worker in this process its engine starts now (at nice 10), loading its models while the service
// opens, so the first job does not wait for it.
const engine = createEngineHost();
if (config.workerConcurrency > 0) engine.warm(config.workerConcurrency);
const svc = await openServiceOrExit(config);
let runner: ReturnType<typeof startRunner> | undefined;
// Logs go out asynchronously: a synchronous write to stdout per log line was a large part of a
// request's fixed cost. Lines are gathered until 16 KiB or 100 ms, whichever comes first, so under
// load one write (and one wake-up of whatever reads stdout) carries ~60 request lines instead of one
// (issue 22; log-destination.ts says why it gathers them itself). What is gathered at shutdown or
// exit is written before the process exits; a SIGKILL loses at most those 100 ms.
const logStream = logInChunks(1, { bytes: 16_384, ms: 100 });
process.on('exit', () => {
  try {
    logStream.flushSync();
  } catch {
    // a write still in flight: the kernel has it
  }
});
const app = await buildApp(svc, { logger: { level: config.logLevel, stream: logStream }, wakeRunner: () => runner?.wake() });
const log = app.log;
// Which Node runs the service (npm's scripts use the Node 24 that npm ci installed: README, Runtime).
log.info({ node: process.version, exec_path: process.execPath }, 'runtime');
log.info({ master_key: svc.masterKey.source, master_key_id: svc.masterKey.id, path: svc.masterKey.path }, 'secrets vault open (webhook secrets sealed, README "Webhook secrets")');
// How the decoder is confined on this machine (found once by starting one): said at start.
void detectNetworkIsolation().then((c) => log.info({ net: c.net, mount: c.mount, user_namespace: c.user, isolation: c.describe }, 'decoder isolation'));

/**
 * A port already taken (another `npm start` on the same ports) or not ours to take: one line
 * naming the variable, exit 1, not Node's stack trace. Jobs the runner claimed just before are
 * taken again when their leases run out, as after any crash.
 */
async function listenedOrExit(listening: Promise<unknown>, what: string, variable: string, port: number): Promise<void> {
  try {
    await listening;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTFOUND / EAI_*: HOST is a name that does not resolve (issue rx: it was the DNS stack trace).
    const unresolved = code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NONAME';
    if (code !== 'EADDRINUSE' && code !== 'EACCES' && code !== 'EADDRNOTAVAIL' && !unresolved) throw err;
    const why = code === 'EADDRINUSE'
      ? `the port is already in use (another npm start?); set ${variable}`
      : code === 'EACCES'
        ? `this user may not listen on that port; set ${variable}`
        : unresolved
          ? 'HOST does not resolve to an address; set HOST'
          : 'the address is not one of this machine\'s; set HOST';
    process.stderr.write(`cannot listen for ${what} on ${config.host}:${port} (${code}: ${why})\n`);
    process.exit(1);
  }
}

let storageHost: Server | undefined;
if (svc.disk) {
  storageHost = createStorageHost({
    layout: svc.disk,
    clock: svc.clock,
    log,
    idleTimeoutMs: config.timeouts.storageIdleMs,
    headersTimeoutMs: config.timeouts.headersMs,
    ...storageCallbacks(svc),
  });
  storageHost.listen(config.storagePort, config.host);
  await listenedOrExit(once(storageHost, 'listening'), 'the storage host', 'STORAGE_PORT', config.storagePort);
  log.info({ port: config.storagePort }, 'storage host listening');
}

// Every module is loaded: what Node compiled goes to its cache for the next start now, before
// answering (on a cold cache that write takes a while, and it holds the event loop).
flushCompileCache();
// The runner's first claims before the API answers: behind a deep queue they read and fold the
// claimed key's whole history, CPU that, spent after the answer, left the first requests waiting
// (0.4-1.5 s on a loaded machine: issue 22). The jobs reach the engines no later for it.
runner = startRunner(svc, engine, {
  concurrency: config.workerConcurrency,
  leaseSeconds: config.jobLeaseSeconds,
  maxAttempts: config.jobMaxAttempts,
  providerRetries: config.providerRetries,
  log,
});
await runner.firstClaims;
await listenedOrExit(app.listen({ host: config.host, port: config.port }), 'the API', 'PORT', config.port);
const sweeper = startSweeper(svc, config.sweepIntervalSeconds * 1000, log);
// Every API node dispatches webhooks; leases in the ledger keep two nodes off one attempt.
const dispatcher = startDispatcher(svc, { log });
const metricsServer = await startMetricsServer(svc.metrics, config.host, config.metricsPort, log);

onShutdown(async () => {
  sweeper.stop();
  // The runner stops taking jobs at once; running ones get the grace, then give their leases back.
  const drained = runner?.stop(config.shutdownGraceSeconds * 1000);
  await app.close();
  storageHost?.close();
  metricsServer?.close();
  await drained;
  await dispatcher.stop();
  await engine.close();
  await svc.close();
}, config.shutdownGraceSeconds);
