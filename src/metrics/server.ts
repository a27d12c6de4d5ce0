// The metrics listener: Prometheus text at GET /metrics on METRICS_PORT (on HOST), apart from the
// API so it is never exposed to partners and a scrape never queues behind partner traffic.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { MethodNotAllowed, NotFound } from '../commands/errors.js';
import { collectProcessMetrics, type Metrics } from './registry.js';

const envelope = (err: InstanceType<typeof NotFound>) => JSON.stringify({ error: { code: err.code, message: err.message } });

/**
 * Listens, or returns undefined when port is 0. A port already taken (a second process on the same
 * machine left at the default) is logged and skipped: metrics are not worth refusing to serve for.
 */
export async function startMetricsServer(metrics: Metrics, host: string, port: number, log: { info(o: object, m: string): void; warn(o: object, m: string): void }): Promise<Server | undefined> {
  if (port === 0) return undefined;
  collectProcessMetrics(metrics);
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(envelope(new NotFound()));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json; charset=utf-8' }).end(envelope(new MethodNotAllowed()));
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: { code: 'internal_error', message: 'An unexpected error occurred.' } })),
    );
  });
  server.listen(port, host);
  try {
    await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
  } catch (err) {
    log.warn({ port, err: String(err) }, 'metrics listener not started (set METRICS_PORT to a free port, or 0)');
    server.close();
    return undefined;
  }
  log.info({ port }, 'metrics listening');
  return server;
}
