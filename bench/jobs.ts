// `npm run bench:jobs [N]`: how many jobs per second one worker ends when the videos are tiny or
// hostile, the load the crash test puts on it (issue 17). N jobs of each kind are queued first
// (the real API over loopback), then a runner as `npm start` runs it (WORKER_CONCURRENCY=1, the
// engine in a child process, the decoder in its sandbox) drains them; the clock runs from the
// runner's start to the last job's end.
//
// Baseline, in the same run: the same runner and ledger with an engine that fails every job at
// once without reading it, i.e. what a job costs in the ledger and the queue alone. The ratio is
// kind / baseline: 1.0 means the video costs nothing beyond the bookkeeping.
import type { TestContext } from 'node:test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VideoProcessingError, type AnalysisEngine } from '../src/analysis/engine.js';
import { createEngineHost } from '../src/runner/engine-host.js';
import { startRunner } from '../src/runner/runner.js';
import { startHarness, silentLog } from '../test/support/harness.js';
import { makeVideo } from '../test/support/videos.js';

const N = Number(process.argv[2] ?? 60);

const failAtOnce: AnalysisEngine = {
  version: 'baseline',
  async analyze() {
    throw new VideoProcessingError('baseline: not read');
  },
};

async function drain(label: string, engine: AnalysisEngine, files: () => Promise<Buffer>): Promise<number> {
  const cleanups: (() => unknown)[] = [];
  const t = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
  const h = await startHarness(t);
  try {
    const { apiKey: key } = await h.createKey();
    for (let i = 0; i < N; i++) {
      const handle = await h.upload(key, await files());
      const res = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: handle, exercise_id: 'squat' } });
      if (res.status !== 201) throw new Error(`submission ${i}: ${res.status} ${res.text}`);
    }
    const left = () => (h.svc.readDb().prepare("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'processing')").get() as { n: number }).n;
    const started = performance.now();
    const runner = startRunner(h.svc, engine, { concurrency: 1, leaseSeconds: 30, maxAttempts: 3, providerRetries: 0, log: silentLog });
    while (left() > 0) await new Promise((r) => setTimeout(r, 20));
    const seconds = (performance.now() - started) / 1000;
    await runner.stop();
    const outcomes = h.svc.readDb().prepare('SELECT status, error_code, COUNT(*) AS n FROM jobs GROUP BY 1, 2').all() as { status: string; error_code: string | null; n: number }[];
    const rate = N / seconds;
    console.log(`${label.padEnd(44)} ${rate.toFixed(1).padStart(6)} jobs/s  (${N} in ${seconds.toFixed(1)} s; ${outcomes.map((o) => `${o.n} ${o.error_code ?? o.status}`).join(', ')})`);
    return rate;
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}

const tinyClip = await makeVideo({ width: 160, height: 120, frames: 10, fps: 10 });
const truncated = tinyClip.subarray(0, Math.floor(tinyClip.length / 3));
console.log(`one worker (WORKER_CONCURRENCY=1, engine child process, sandboxed decoder), ${N} jobs per kind\n`);
const engine = createEngineHost();
try {
  // What a worker pays once after every (re)start, before its first job ends: the engine process.
  const scratch = mkdtempSync(join(tmpdir(), 'bench-jobs-'));
  writeFileSync(join(scratch, 'x.mp4'), randomBytes(100));
  const t0 = performance.now();
  await engine.analyze({ videoPath: join(scratch, 'x.mp4'), exerciseId: 'squat' }).catch(() => undefined);
  console.log(`engine process start + first hostile job: ${(performance.now() - t0).toFixed(0)} ms (paid once per worker start; not in the rates below)\n`);
  rmSync(scratch, { recursive: true, force: true });
  const base = await drain('baseline: engine fails at once, reads nothing', failAtOnce, async () => randomBytes(1024));
  const kinds: [string, () => Promise<Buffer>][] = [
    ['random bytes, 1 B - 4 KiB', async () => randomBytes(1 + Math.floor(Math.random() * 4096))],
    ['MP4 cut after a third (decoder starts)', async () => truncated],
    ['tiny valid clip, 1 s 160x120 (full analysis)', async () => tinyClip],
  ];
  const rates: [string, number][] = [];
  for (const [label, files] of kinds) rates.push([label, await drain(label, engine, files)]);
  console.log('');
  for (const [label, rate] of rates) console.log(`ratio to baseline  ${label.padEnd(44)} ${(rate / base).toFixed(2)}`);
} finally {
  await engine.close();
}
