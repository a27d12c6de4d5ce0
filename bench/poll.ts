// `npm run bench:poll`: GET /v1/jobs/{id} latency on a node that is analysing a video, with the
// engine in this process (createPoseEngine, how the API ran before) against the engine in child
// processes (createEngineHost, how it runs now), in the same run. The API, runner and storage are
// the real ones over loopback; 8 clients poll back to back while the job runs.
import type { TestContext } from 'node:test';
import { Worker } from 'node:worker_threads';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnalysisEngine } from '../src/analysis/engine.js';
import { createPoseEngine } from '../src/analysis/index.js';
import { createEngineHost } from '../src/runner/engine-host.js';
import { startHarness } from '../test/support/harness.js';
import { makeVideo } from '../test/support/videos.js';
import { videosDir } from './eval.js';

const CLIENTS = 8;

/** Pollers (plain JS on a worker thread): poll until the job ends, keep latencies while it runs. */
const POLLERS = `
const { parentPort, workerData: { url, key, clients } } = require('node:worker_threads');
(async () => {
  const latencies = [];
  let status = 'queued', analysing = false;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (status !== 'completed' && status !== 'failed') {
      const t0 = performance.now();
      const res = await fetch(url, { headers: { authorization: 'Bearer ' + key } });
      const body = await res.json();
      const ms = performance.now() - t0;
      if (body.status === 'processing') analysing = true;
      if (analysing && body.status === 'processing') latencies.push(ms);
      status = body.status;
    }
  }));
  parentPort.postMessage([status, latencies]);
})();`;

async function clip(): Promise<{ name: string; bytes: Buffer; exercise: string }> {
  const shared = join(videosDir, 'pushup_side_homegym.mp4');
  if (existsSync(shared)) return { name: 'pushup_side_homegym.mp4', bytes: readFileSync(shared), exercise: 'push-up' };
  return { name: 'generated 640x360, 15 s', bytes: await makeVideo({ width: 640, height: 360, frames: 450, fps: 30, paint: (i, px) => px.fill(40 + (i % 100)) }), exercise: 'squat' };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;

async function measure(label: string, engine: AnalysisEngine, video: { bytes: Buffer; exercise: string }) {
  const cleanups: (() => unknown)[] = [];
  const t = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
  const h = await startHarness(t, { engine });
  try {
    const { apiKey: key } = await h.createKey();
    const handle = await h.upload(key, video.bytes);
    const started = performance.now();
    const job = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: handle, exercise_id: video.exercise } });
    const id = job.body.job_id as string;
    // The clients run on their own thread, so their work is not counted as the server's latency.
    const worker = new Worker(POLLERS, { eval: true, workerData: { url: `${h.base}/v1/jobs/${id}`, key, clients: CLIENTS } });
    const [status, latencies] = await new Promise<[string, number[]]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    const wall = (performance.now() - started) / 1000;
    console.log(`${label.padEnd(34)} job ${status} in ${wall.toFixed(1)} s; ${latencies.length} polls while analysing: p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`);
    return pct(latencies, 99);
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}

const video = await clip();
console.log(`polling GET /v1/jobs/{id} with ${CLIENTS} clients while one job analyses ${video.name}\n`);
const inProcess = createPoseEngine();
const base = await measure('engine in the API process (before)', inProcess, video);
const host = createEngineHost();
const now = await measure('engine in a child process (now)', host, video);
await host.close();
console.log(`\np99 ratio child/in-process ${(now / base).toFixed(3)} (${now.toFixed(1)} ms against ${base.toFixed(1)} ms)`);
process.exit(0);
