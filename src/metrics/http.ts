// Request counts and latencies by route pattern (never the raw URL: ids and query strings would
// make a series per request), method and status.
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './registry.js';

/** Requests no route matched (404, 405) share one label. */
export const UNMATCHED = 'unmatched';

export function instrumentHttp(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    const labels = { route: request.routeOptions.url ?? UNMATCHED, method: request.method, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
}
