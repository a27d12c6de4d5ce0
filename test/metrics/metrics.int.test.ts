// GET /metrics on its own listener: scraped over a real socket and parsed with a strict parser of
// the Prometheus text format (test/support/prometheus.ts), with every series the issue names:
// requests by route pattern / method / status with latency histograms, jobs by status, queue depth
// and oldest queued age, analysis seconds per video second, ledger append latency, projection lag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { ledgerStream } from '../../src/events/ledger.js';
import { startMetricsServer } from '../../src/metrics/server.js';
import { fixedEngine, until } from '../support/engines.js';
import { silentLog, startHarness, type Harness } from '../support/harness.js';
import { admin, freePort, startServer } from '../support/processes.js';
import { parsePrometheus, valueOf, type Family } from '../support/prometheus.js';
import { makeVideo } from '../support/videos.js';
import { removeDir } from '../support/remove-dir.js';

async function scrape(port: number): Promise<Map<string, Family>> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
}

async function withMetrics(h: Harness, t: { after(fn: () => unknown): void }): Promise<number> {
  const port = await freePort();
  const server = (await startMetricsServer(h.svc.metrics, '127.0.0.1', port, silentLog)) as Server;
  t.after(() => server.close());
  return port;
}

test('every named series is served and parses as Prometheus text', async (t) => {
  const h = await startHarness(t, { engine: fixedEngine() });
  const port = await withMetrics(h, t);
  const { apiKey, keyId } = await h.createKey();
  const handle = await h.upload(apiKey, await makeVideo({ width: 160, height: 120, fps: 10, frames: 20 }));
  const jobId = (await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } })).body.job_id;
  await until(async () => ((await h.request('GET', `/v1/jobs/${jobId}`, { key: apiKey })).body.status === 'completed' ? true : undefined));
  await h.request('GET', `/v1/jobs/${jobId}`, { key: apiKey });
  await h.request('GET', '/v1/jobs/job_does_not_exist', { key: apiKey });
  await h.request('GET', '/no/such/path?secret=1');

  const m = await scrape(port);
  // Route patterns, never raw URLs.
  const routes = new Set(m.get('repcoach_http_requests_total')!.samples.map((s) => s.labels.route));
  assert.ok(routes.has('/v1/jobs/:job_id'), [...routes].join(' '));
  assert.ok(routes.has('unmatched'));
  for (const r of routes) {
    assert.ok(!r!.includes(jobId) && !r!.includes('does_not_exist') && !/secret|\?|no\/such/.test(r!), `raw URL leaked into a label: ${r}`);
  }
  assert.ok(valueOf(m, 'repcoach_http_requests_total', { route: '/v1/jobs/:job_id', method: 'GET', status: '200' })! >= 2);
  assert.equal(valueOf(m, 'repcoach_http_requests_total', { route: '/v1/jobs/:job_id', method: 'GET', status: '404' }), 1);
  assert.equal(m.get('repcoach_http_request_duration_seconds')!.type, 'histogram');
  assert.ok(valueOf(m, 'repcoach_http_request_duration_seconds_count', { route: '/v1/jobs', method: 'POST', status: '201' })! >= 1);

  assert.equal(m.get('repcoach_jobs')!.type, 'gauge');
  assert.equal(valueOf(m, 'repcoach_jobs', { status: 'completed' }), 1);
  assert.equal(valueOf(m, 'repcoach_jobs', { status: 'queued' }), 0);
  assert.equal(valueOf(m, 'repcoach_queue_depth'), 0);
  assert.equal(valueOf(m, 'repcoach_queue_oldest_age_seconds'), 0);
  assert.equal(valueOf(m, 'repcoach_analysis_seconds_per_video_second_count'), 1, 'one analysis of a 2 s video observed');
  assert.ok(valueOf(m, 'repcoach_ledger_append_seconds_count')! >= 4, 'key issued, mint, upload, submit, start, complete');
  assert.equal(valueOf(m, 'repcoach_projection_lag_events'), 0);

  // Behind: an append nobody projected shows as lag; a queued job as depth and age.
  const stream = ledgerStream(keyId);
  const revision = (await h.svc.store.readStream(stream)).length - 1;
  await h.svc.store.append(stream, [{ type: 'LimitSet', data: { keyId, limit: 10, at: new Date().toISOString() } }], revision);
  assert.equal(valueOf(await scrape(port), 'repcoach_projection_lag_events'), 1);
});

test('queue depth and the age of the oldest queued job', async (t) => {
  let now = Date.parse('2026-03-01T10:00:00.000Z');
  const h = await startHarness(t, { clock: () => new Date(now) }); // no runner: jobs stay queued
  const port = await withMetrics(h, t);
  const { apiKey } = await h.createKey();
  for (let i = 0; i < 3; i++) {
    const handle = await h.upload(apiKey);
    assert.equal((await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } })).status, 201);
    now += 10_000;
  }
  const m = await scrape(port);
  assert.equal(valueOf(m, 'repcoach_queue_depth'), 3);
  assert.equal(valueOf(m, 'repcoach_jobs', { status: 'queued' }), 3);
  assert.equal(valueOf(m, 'repcoach_queue_oldest_age_seconds'), 30);
});

test('npm start serves /metrics on METRICS_PORT apart from the API; other paths are 404 in the envelope', { timeout: 60_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-metrics-'));
  const metricsPort = await freePort();
  admin({ DATA_DIR: dataDir }, 'keys', 'create', '--partner-name', 'M');
  const server = await startServer({ DATA_DIR: dataDir, METRICS_PORT: String(metricsPort), WORKER_CONCURRENCY: '0' });
  t.after(() => server.stop());
  t.after(() => removeDir(dataDir)); // after the stop: the server writes there until it exits
  assert.equal((await fetch(`${server.base}/metrics`)).status, 404, 'not on the API port');
  await fetch(`${server.base}/readyz`);
  const m = await scrape(metricsPort);
  assert.ok(valueOf(m, 'repcoach_http_requests_total', { route: '/readyz', method: 'GET', status: '200' })! >= 1);
  assert.ok(m.has('repcoach_process_cpu_seconds_total'), 'process metrics');
  const other = await fetch(`http://127.0.0.1:${metricsPort}/other`);
  assert.equal(other.status, 404);
  assert.equal((await other.json()).error.code, 'not_found');
});

test('the strict parser refuses what Prometheus would refuse', () => {
  assert.throws(() => parsePrometheus('x 1'), /newline/);
  assert.throws(() => parsePrometheus('# TYPE x counter\nx{a="1} 1\n'), /unterminated/);
  assert.throws(() => parsePrometheus('y 1\n'), /no declared family/);
  assert.throws(() => parsePrometheus('# TYPE x gauge\nx one\n'), /bad value/);
  assert.throws(() => parsePrometheus('# TYPE x gauge\nx 1\nx 2\n'), /duplicate/);
  assert.throws(() => parsePrometheus('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'), /cumulative/);
  assert.throws(() => parsePrometheus('# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n'), /_count/);
  assert.equal(parsePrometheus('# HELP x a\n# TYPE x gauge\nx{a="q\\"\\\\"} 1.5e3\n').get('x')!.samples[0]!.labels.a, 'q"\\');
});
