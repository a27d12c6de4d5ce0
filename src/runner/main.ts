// `npm run worker`: only the job runner, for scaling analysis out to more processes or machines.
import '../runtime/require-node.js'; // first: stops at once on a Node too old for the SQLite addon
import pino from 'pino';
import { loadConfigOrExit, onShutdown, openServiceOrExit } from '../boot.js';
import { createEngineHost } from './engine-host.js';
import { startRunner } from './runner.js';
import { startMetricsServer } from '../metrics/server.js';
import { detectNetworkIsolation } from '../analysis/decoder/sandbox.js';
import { flushCompileCache } from '../runtime/compile-cache.js';

const config = loadConfigOrExit();
const log = pino({ level: config.logLevel });
// The engine runs in child processes, so lease renewals are never starved by a long analysis;
// they start now, loading their models while the service opens.
const engine = createEngineHost();
engine.warm(Math.max(1, config.workerConcurrency));
const svc = await openServiceOrExit(config);
const runner = startRunner(svc, engine, {
  concurrency: Math.max(1, config.workerConcurrency),
  leaseSeconds: config.jobLeaseSeconds,
  maxAttempts: config.jobMaxAttempts,
  providerRetries: config.providerRetries,
  log,
});
log.info({ concurrency: Math.max(1, config.workerConcurrency), node: process.version }, 'worker started');
flushCompileCache(); // its modules are loaded: the next start reads them compiled
void detectNetworkIsolation().then((c) => log.info({ net: c.net, mount: c.mount, user_namespace: c.user, isolation: c.describe }, 'decoder isolation'));
// A worker on the same machine as `npm start` needs its own METRICS_PORT (or 0).
const metricsServer = await startMetricsServer(svc.metrics, config.host, config.metricsPort, log);
onShutdown(async () => {
  metricsServer?.close();
  await runner.stop(config.shutdownGraceSeconds * 1000);
  await engine.close();
  await svc.close();
}, config.shutdownGraceSeconds);
