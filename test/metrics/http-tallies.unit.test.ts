// The HTTP metrics are plain tallies registered as metrics built at scrape time (src/metrics/
// http.ts): what /metrics serves must be exactly what prom-client's own Counter and Histogram give
// for the same requests, as text and as JSON, before and after a reset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Histogram, Registry } from 'prom-client';
import { httpMetrics, REQUEST_SECONDS_BUCKETS } from '../../src/metrics/http.js';

const names = { requests: 'repcoach_http_requests_total', duration: 'repcoach_http_request_duration_seconds' };

function reference() {
  const registry = new Registry();
  const labelNames = ['route', 'method', 'status'] as const;
  const count = new Counter({ name: names.requests, help: 'API requests answered, by route pattern, method and status', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: names.duration,
    help: 'API request latency from arrival to the last byte sent, by route pattern, method and status',
    labelNames,
    buckets: [...REQUEST_SECONDS_BUCKETS],
    registers: [registry],
  });
  return {
    registry,
    observe(route: string, method: string, status: number, seconds: number) {
      const labels = { route, method, status: String(status) };
      count.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}

function ours() {
  const registry = new Registry();
  return { registry, ...httpMetrics(registry, names) };
}

const requests: [string, string, number, number][] = [
  ['/v1/identity', 'GET', 200, 0.0004],
  ['/v1/jobs/:job_id', 'GET', 200, 0.005], // on a bound: counted in it
  ['/v1/jobs/:job_id', 'GET', 404, 0.0051],
  ['/v1/identity', 'GET', 200, 0.3],
  ['unmatched', 'GET', 404, 7.5], // above every bound: +Inf only
  ['/v1/jobs', 'POST', 201, 0],
  ['/v1/identity', 'GET', 401, 1e-7],
  ['/v1/identity', 'GET', 200, 2.5],
  ['/v1/jobs/:job_id', 'GET', 200, 0.0125],
];

test('the HTTP tallies serve exactly what prom-client serves for the same requests', async () => {
  const a = reference();
  const b = ours();
  const same = async (when: string) => {
    assert.equal(await b.registry.metrics(), await a.registry.metrics(), `text, ${when}`);
    assert.deepEqual(await b.registry.getMetricsAsJSON(), await a.registry.getMetricsAsJSON(), `JSON, ${when}`);
  };
  await same('before any request');
  for (const [i, r] of requests.entries()) {
    a.observe(...r);
    b.observe(...r);
    if (i === 2) await same('after a few requests');
  }
  await same('after all requests');
  a.registry.resetMetrics();
  b.registry.resetMetrics();
  await same('after a reset');
  a.observe(...requests[1]!);
  b.observe(...requests[1]!);
  await same('after a request following the reset');
});
