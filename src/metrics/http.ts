// Request counts and latencies by route pattern (never the raw URL: ids and query strings would
// make a series per request), method and status.
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './registry.js';

/** Requests no route matched (404, 405) share one label. */
export const UNMATCHED = 'unmatched';

export function instrumentHttp(app: FastifyInstance, metrics: Metrics): void {
  // The labelled series, once per route, method and status: prom-client hashes a label object on
  // every inc/observe, and this runs on every request.
  const series = new Map<string, { count: { inc(): void }; latency: { observe(v: number): void } }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    const id = `${route} ${request.method} ${reply.statusCode}`;
    let s = series.get(id);
    if (!s) {
      const labels = { route, method: request.method, status: String(reply.statusCode) };
      s = { count: metrics.httpRequests.labels(labels), latency: metrics.httpDuration.labels(labels) };
      series.set(id, s);
    }
    s.count.inc();
    s.latency.observe(reply.elapsedTime / 1000);
    done();
  });
}
