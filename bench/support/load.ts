// A small closed-loop HTTP load generator: `concurrency` workers issue requests back to back for
// `seconds`, recording each latency. Runs in the bench process, the servers in child processes.
export interface LoadResult {
  requests: number;
  errors: number;
  /** How many times each failure was seen (its message: the status and body for an HTTP answer). */
  failures: Record<string, number>;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export async function load(seconds: number, concurrency: number, once: () => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const failures: Record<string, number> = {};
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const ok = await once().catch((err: unknown) => {
          const what = String((err as Error)?.message ?? err).slice(0, 200);
          failures[what] = (failures[what] ?? 0) + 1;
          return false;
        });
        latencies.push(performance.now() - t0);
        if (!ok) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { requests: latencies.length, errors, failures, perSecond: latencies.length / elapsed, p50Ms: pick(0.5), p99Ms: pick(0.99) };
}
