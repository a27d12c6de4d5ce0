// The process's Prometheus metrics (prom-client), one registry per service so several services in
// one test process never share series. Counters and histograms are fed where things happen (HTTP
// hooks, the runner, every ledger append); the gauges about jobs and projections are read from the
// read models and the store when Prometheus scrapes, so they are right whichever process did the work.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type Database from 'better-sqlite3';
import type { EventStore } from '../events/store/port.js';
import { checkpointOf } from '../projections/runner.js';
import { prepared } from '../projections/statements.js';
import { jobCounts } from '../queue/projection.js';
import { httpMetrics, type HttpMetrics } from './http.js';

export interface Metrics {
  registry: Registry;
  /** Requests answered and their latencies (repcoach_http_requests_total, repcoach_http_request_duration_seconds). */
  http: HttpMetrics;
  analysisRatio: Histogram;
  ledgerAppend: Histogram;
  videosPurged: Counter;
}

const JOB_STATUSES = ['queued', 'processing', 'completed', 'failed', 'cancelled'] as const;

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    http: httpMetrics(registry, { requests: 'repcoach_http_requests_total', duration: 'repcoach_http_request_duration_seconds' }),
    analysisRatio: new Histogram({
      name: 'repcoach_analysis_seconds_per_video_second',
      help: 'Wall-clock seconds of analysis per second of video, per completed analysis (below 1 is faster than real time)',
      buckets: [0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10],
      registers,
    }),
    ledgerAppend: new Histogram({
      name: 'repcoach_ledger_append_seconds',
      help: 'Latency of one atomic append to the event store (lock, write, durable commit)',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    }),
    videosPurged: new Counter({
      name: 'repcoach_videos_purged_total',
      help: 'Videos deleted by this process under VIDEO_RETENTION_HOURS (VideoPurged recorded)',
      registers,
    }),
  };
}

/** Times every append of `store` (the instance keeps its class, so `instanceof` checks still hold). */
export function timeAppends(store: EventStore, metrics: Metrics): void {
  // A group-committing store's append() goes through its enqueue(): timing that one counts each append once.
  const enqueue = store.enqueue?.bind(store);
  if (enqueue) {
    store.enqueue = (...args) => {
      const end = metrics.ledgerAppend.startTimer();
      const queued = enqueue(...args);
      void queued.done.then(() => end(), () => end());
      return queued;
    };
    return;
  }
  const append = store.append.bind(store);
  store.append = async (...args) => {
    const end = metrics.ledgerAppend.startTimer();
    try {
      return await append(...args);
    } finally {
      end();
    }
  };
}

/**
 * A scrape must not fail because one source is down (GET /readyz says which): the gauge keeps its
 * last value and the others are still served.
 */
function quietly<T>(collect: (this: T) => void | Promise<void>) {
  return async function (this: T) {
    try {
      await collect.call(this);
    } catch {
      /* keep the last value */
    }
  };
}

/** Gauges computed at scrape time from the read models and the store. */
export function watchJobs(metrics: Metrics, readDb: () => Database.Database, store: EventStore, clock: () => Date): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'repcoach_jobs',
    help: 'Jobs by status, as the read models hold them',
    labelNames: ['status'] as const,
    registers,
    collect: quietly(function (this: Gauge<'status'>) {
      // Kept by the queue's projection: a COUNT over jobs would grow with every job ever run.
      const counts = jobCounts(readDb());
      for (const status of JOB_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    }),
  });
  new Gauge({
    name: 'repcoach_queue_depth',
    help: 'Jobs queued and not yet taken by a worker',
    registers,
    collect: quietly(function (this: Gauge) {
      this.set(jobCounts(readDb()).get('queued') ?? 0);
    }),
  });
  new Gauge({
    name: 'repcoach_queue_oldest_age_seconds',
    help: 'Age of the oldest queued job (0 when none is queued)',
    registers,
    collect: quietly(function (this: Gauge) {
      const oldest = prepared<[], { created_at: string }>(readDb(), "SELECT created_at FROM jobs WHERE status = 'queued' ORDER BY seq LIMIT 1").get();
      this.set(oldest ? Math.max(0, (clock().getTime() - Date.parse(oldest.created_at)) / 1000) : 0);
    }),
  });
  new Gauge({
    name: 'repcoach_projection_lag_events',
    help: 'Events in the ledger not yet in the read models (0 when caught up)',
    registers,
    collect: quietly(async function (this: Gauge) {
      const head = await store.lastPosition();
      this.set(Math.max(0, head - checkpointOf(readDb())));
    }),
  });
}

/** Process metrics (CPU, memory, event-loop lag, GC): only in processes that serve /metrics. */
export function collectProcessMetrics(metrics: Metrics): void {
  collectDefaultMetrics({ register: metrics.registry, prefix: 'repcoach_' });
}

