// Request counts and latencies by route pattern (never the raw URL: ids and query strings would
// make a series per request), method and status.
//
// Why not prom-client's Counter and Histogram: each inc() and observe() hashes and validates its
// label object, on every request, even through a child from labels() (issue 22: ~5% of a request
// beyond the bare server). Here a request adds to its series' plain tallies, found by one Map
// lookup; the two metrics are registered with prom-client as objects that build, when scraped,
// exactly the values prom-client's own Counter and Histogram would (test/metrics/http-tallies.unit).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Metric, Registry } from 'prom-client';

/** Requests no route matched (404, 405) share one label. */
export const UNMATCHED = 'unmatched';

export const REQUEST_SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;

type Labels = { route: string; method: string; status: string };

interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  inBucket: number[];
}

export interface HttpMetrics {
  /** One answered request. */
  observe(route: string, method: string, status: number, seconds: number): void;
}

export function httpMetrics(registry: Registry, names: { requests: string; duration: string }): HttpMetrics {
  const bounds = REQUEST_SECONDS_BUCKETS;
  let series = new Map<string, Series>();
  const all = () => series.values();

  register(registry, {
    name: names.requests,
    help: 'API requests answered, by route pattern, method and status',
    type: 'counter',
    values: () => Array.from(all(), (s) => ({ value: s.count, labels: s.labels })),
    reset: () => (series = new Map()),
  });
  register(registry, {
    name: names.duration,
    help: 'API request latency from arrival to the last byte sent, by route pattern, method and status',
    type: 'histogram',
    // The shape prom-client's Histogram gives the text format: cumulative buckets, +Inf, sum, count.
    values: () =>
      Array.from(all()).flatMap((s) => {
        let acc = 0;
        const bucket = (le: number | string, value: number) => ({ labels: { le }, sharedLabels: s.labels, value, metricName: `${names.duration}_bucket`, exemplar: null });
        return [
          ...bounds.map((le, i) => bucket(le, (acc += s.inBucket[i]!))),
          bucket('+Inf', s.count),
          { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${names.duration}_sum`, exemplar: undefined },
          { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${names.duration}_count`, exemplar: undefined },
        ];
      }),
    // As JSON (getMetricsAsJSON), prom-client's Histogram gives each value its series' labels too.
    splay: true,
    reset: () => (series = new Map()),
  });

  return {
    observe(route, method, status, seconds) {
      const id = `${route} ${method} ${status}`;
      let s = series.get(id);
      if (!s) {
        s = { labels: { route, method, status: String(status) }, count: 0, sum: 0, inBucket: new Array<number>(bounds.length + 1).fill(0) };
        series.set(id, s);
      }
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]!) i++;
      s.inBucket[i]! += 1;
      s.count += 1;
      s.sum += seconds;
    },
  };
}

/**
 * What the API counts when an answer is out (called from http/request-log.ts's requestCompleted,
 * which fastify calls for every answer: no onResponse hook of its own to run per request).
 */
export const countAnswer = (metrics: HttpMetrics) => (request: FastifyRequest, reply: FastifyReply): void =>
  metrics.observe(request.routeOptions.url ?? UNMATCHED, request.method, reply.statusCode, reply.elapsedTime / 1000);

interface View {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values(): { labels: Record<string, string | number>; sharedLabels?: Labels; value: number; metricName?: string; exemplar?: null }[];
  splay?: boolean;
  reset(): void;
}

/** Registers a metric built at scrape time (what a Registry asks of a metric: its name, get(), reset()). */
function register(registry: Registry, view: View): void {
  const metric = {
    name: view.name,
    help: view.help,
    type: view.type,
    aggregator: 'sum',
    getForPromString: async () => ({ name: view.name, help: view.help, type: view.type, values: view.values(), aggregator: 'sum' }),
    get: async () => {
      const values = view.values();
      return {
        name: view.name,
        help: view.help,
        type: view.type,
        values: view.splay ? values.map(({ sharedLabels, labels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })) : values,
        aggregator: 'sum',
      };
    },
    reset: view.reset,
  };
  registry.registerMetric(metric as unknown as Metric);
}
