// `npm run bench:jobs [N]`: how many jobs per second a worker ends (issue 17: tiny or hostile
// files; issue 22: two-second clips, at least 4 per second per worker). N jobs of each kind are
// queued first (the real API over loopback), then runners as `npm start` runs them (the engine in
// a child process at nice 10, the decoder in its sandbox, one started ahead of each video) drain
// them; the clock runs from the runners' start to the last job's end, the engine processes having
// been started (warm) before, as a worker does when it starts.
//
// Baselines, in the same run:
// - ledger only: the same runner and ledger with an engine that fails every job at once without
//   reading it: what a job costs in the ledger and the queue alone;
// - engine alone: the same two-second clip analysed back to back by the engine in this process
//   (its decoder sandboxed and started ahead, as in the worker): what the analysis itself costs,
//   with no runner, ledger, IPC or storage. A worker can at best match it.
// Also printed, as the machine's load does not move it much: the CPU time per job of the engine
// processes and of their decoders, and the jobs per second that makes on a core of its own.
import type { TestContext } from 'node:test';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { VideoProcessingError, type AnalysisEngine } from '../src/analysis/engine.js';
import { createPoseEngine } from '../src/analysis/index.js';
import * as decode from '../src/analysis/decode.js';
import { createEngineHost, type EngineHost } from '../src/runner/engine-host.js';
import { startRunner } from '../src/runner/runner.js';
import { startHarness, silentLog } from '../test/support/harness.js';
import { makeVideo } from '../test/support/videos.js';
import { distinctFile, shortClip } from './support/clip.js';
import { descendantsCpuMs, engineThreadCpuMs, serviceCpuMs, threadCpuMs, threadsPer } from './support/cpu.js';

const N = Number(process.argv[2] ?? 40);
const KINDS = (process.env.BENCH_JOBS_KINDS ?? 'hostile,clip').split(',');

const failAtOnce: AnalysisEngine = {
  version: 'baseline',
  async analyze() {
    throw new VideoProcessingError('baseline: not read');
  },
};

interface Drained { rate: number; seconds: number; cpuMsPerJob: number; ends: Record<string, number>[] }

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function drain(label: string, engines: AnalysisEngine[], files: () => Promise<Buffer>, n = N): Promise<Drained> {
  // The runner's 'job finished' lines carry where each job's time went.
  const ends: Record<string, number>[] = [];
  const log = { ...silentLog, info: (o: object, m: string) => { if (m === 'job finished') ends.push(o as Record<string, number>); } };
  const cleanups: (() => unknown)[] = [];
  const t = { after: (fn: () => unknown) => cleanups.push(fn) } as unknown as TestContext;
  const h = await startHarness(t);
  try {
    const { apiKey: key } = await h.createKey();
    for (let i = 0; i < n; i++) {
      const handle = await h.upload(key, await files());
      const res = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: handle, exercise_id: 'squat' } });
      if (res.status !== 201) throw new Error(`submission ${i}: ${res.status} ${res.text}`);
    }
    const left = () => (h.svc.readDb().prepare("SELECT COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'processing')").get() as { n: number }).n;
    const cpu0 = descendantsCpuMs();
    const split0 = serviceCpuMs(process.pid);
    const threads0 = engineThreadCpuMs(process.pid);
    const started = performance.now();
    const runners = engines.map((engine) => startRunner(h.svc, engine, { concurrency: 1, leaseSeconds: 30, maxAttempts: 3, providerRetries: 0, log }));
    while (left() > 0) await new Promise((r) => setTimeout(r, 10));
    const seconds = (performance.now() - started) / 1000;
    const cpu = descendantsCpuMs() - cpu0;
    const split1 = serviceCpuMs(process.pid);
    const threads1 = engineThreadCpuMs(process.pid);
    await Promise.all(runners.map((r) => r.stop()));
    const outcomes = h.svc.readDb().prepare('SELECT status, error_code, COUNT(*) AS n FROM jobs GROUP BY 1, 2').all() as { status: string; error_code: string | null; n: number }[];
    const rate = n / seconds;
    const perWorker = rate / engines.length;
    console.log(`${label.padEnd(50)} ${rate.toFixed(2).padStart(6)} jobs/s  ${perWorker.toFixed(2).padStart(6)} per worker  ` +
      `(${n} in ${seconds.toFixed(1)} s; ${outcomes.map((o) => `${o.n} ${o.error_code ?? o.status}`).join(', ')}; engine+decoder CPU ${(cpu / n).toFixed(0)} ms/job)`);
    // The same CPU split: the engine processes by thread (the pose model and pipeline on main, V8's
    // collector on V8Worker), then their decoders (started ahead ones included).
    if (split1.engines > split0.engines) {
      console.log(`  CPU per job, ms: engine processes ${((split1.engines - split0.engines) / n).toFixed(0)} (${threadsPer(threads0, threads1, n)}), ` +
        `their decoders ${((split1.decoders - split0.decoders) / n).toFixed(0)}`);
    }
    return { rate, seconds, cpuMsPerJob: cpu / n, ends };
  } finally {
    for (const fn of cleanups.reverse()) await fn();
  }
}

/** Engine processes started and their models loaded, as a worker does when it starts. */
async function warmHost(scratch: string): Promise<EngineHost> {
  const engine = createEngineHost();
  const t0 = performance.now();
  writeFileSync(join(scratch, 'x.mp4'), randomBytes(100));
  engine.warm(1);
  // A hostile file ends at the container check: this waits for the process, not for a video.
  await engine.analyze({ videoPath: join(scratch, 'x.mp4'), exerciseId: 'squat' }).catch(() => undefined);
  console.log(`engine process start: ${(performance.now() - t0).toFixed(0)} ms (once per worker start; not in the rates below)`);
  return engine;
}

const scratch = mkdtempSync(join(tmpdir(), 'bench-jobs-'));
const hosts: EngineHost[] = [];
try {
  console.log(`bench:jobs, ${N} jobs per kind; ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  const a = await warmHost(scratch);
  hosts.push(a);
  const base = await drain('baseline: ledger only (engine fails at once)', [failAtOnce], async () => randomBytes(1024));
  if (KINDS.includes('hostile')) {
    const tinyClip = await makeVideo({ width: 160, height: 120, frames: 10, fps: 10 });
    const truncated = tinyClip.subarray(0, Math.floor(tinyClip.length / 3));
    const kinds: [string, () => Promise<Buffer>][] = [
      ['random bytes, 1 B - 4 KiB', async () => randomBytes(1 + Math.floor(Math.random() * 4096))],
      ['MP4 cut after a third (decoder starts)', async () => truncated],
      ['tiny valid clip, 1 s 160x120 (full analysis)', async () => tinyClip],
    ];
    for (const [label, files] of kinds) {
      const r = await drain(label, [a], files);
      console.log(`${''.padEnd(50)} ratio to the ledger-only baseline ${(r.rate / base.rate).toFixed(2)}`);
    }
  }
  if (KINDS.includes('clip')) {
    const clip = await shortClip(2);
    const clipPath = join(scratch, 'clip.mp4');
    writeFileSync(clipPath, clip.bytes);
    console.log(`\ntwo-second clips: ${clip.name}`);
    // Engine alone, same clip, same run: the floor a worker's job cannot go below.
    decode.keepDecoderWarm(true);
    const alone = createPoseEngine();
    await alone.ready();
    // One partner's videos, as in the worker's runs below: its decoder process is reused.
    const input = { videoPath: clipPath, exerciseId: clip.exercise, scope: 'bench' };
    await alone.analyze(input);
    // Where the engine alone's CPU goes, by process and thread: this process's own thread (the pose
    // model, the warps, reading the frames, counting and rules), its helper threads (V8's
    // collector), the decoder's own thread (demuxing, handing packets over, the colour conversion)
    // and the decoder's other threads (FFmpeg's decoding, V8's collector).
    const decoderPid = decode.lastDecoderPid!;
    const threads0 = { engine: threadCpuMs(process.pid), decoder: threadCpuMs(decoderPid) };
    const stats = { frames: 0, landmarkRuns: 0, detections: 0, landmarkMs: 0, warpMs: 0, waitMs: 0 };
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const reps = Math.max(5, Math.round(N / 2));
    for (let i = 0; i < reps; i++) {
      const { stats: s } = await alone.analyzeDetailed(input);
      for (const k of ['frames', 'landmarkRuns', 'detections', 'landmarkMs', 'warpMs'] as const) stats[k] += k === 'frames' ? s.frames : s.pose[k];
      stats.waitMs += decode.lastDecoderWaitMs;
    }
    const aloneRate = reps / ((performance.now() - t0) / 1000);
    const c1 = process.cpuUsage(c0);
    const sameDecoder = decode.lastDecoderPid === decoderPid;
    const threads1 = { engine: threadCpuMs(process.pid), decoder: threadCpuMs(decoderPid) };
    // The engine's own thread is a job's critical path (its decoder runs beside it, in its own
    // process): its CPU time per clip says what one worker does on a core of its own.
    const aloneCpuMs = (c1.user + c1.system) / 1000 / reps;
    decode.keepDecoderWarm(false);
    console.log(`${'baseline: engine alone, in process, back to back'.padEnd(50)} ${aloneRate.toFixed(2).padStart(6)} clips/s (${reps} clips; ` +
      `${aloneCpuMs.toFixed(0)} ms of CPU per clip in the engine's process, i.e. ${(1000 / aloneCpuMs).toFixed(2)} clips/s on a core of its own)`);
    const per = (x: number) => (x / reps).toFixed(1);
    console.log(`  per clip: ${per(stats.frames)} frames analysed, ${per(stats.landmarkRuns)} landmark runs (${per(stats.landmarkMs)} ms), ${per(stats.detections)} detector runs, ` +
      `warps ${per(stats.warpMs)} ms, waiting for the decoder's description ${per(stats.waitMs)} ms (wall)`);
    console.log(`  CPU per clip by thread, ms: engine process: ${threadsPer(threads0.engine, threads1.engine, reps)}; ` +
      `decoder process${sameDecoder ? '' : ' (not the same process throughout: partial)'}: ${threadsPer(threads0.decoder, threads1.decoder, reps)}`);
    // Every job its own file (the clip plus a distinct trailing box): no job can reuse another's
    // poses (runner/pose-cache.ts), so these rates are the analysis's own.
    let serial = 0;
    const distinct = async () => distinctFile(clip.bytes, `bench:jobs ${process.pid} ${serial++}`);
    const one = await drain('one worker', [a], distinct);
    const b = await warmHost(scratch);
    hosts.push(b);
    const two = await drain('two workers', [a, b], distinct, 2 * N);
    // The extra, apart: the same file in every job, as a partner resubmitting it. After its first
    // job each worker reuses the poses; counting, rules and feedback still run per job.
    const same = await drain('extra: one worker, the same file every job (pose cache)', [a], async () => clip.bytes);
    const reused = same.ends.filter((e) => Boolean(e.poses_reused)).length;
    console.log(`\n  one worker: ${one.rate.toFixed(2)} jobs/s = ${(1000 / one.rate).toFixed(0)} ms per job; ratio to the engine alone ${(one.rate / aloneRate).toFixed(2)}; ` +
      `engine + decoder CPU ${one.cpuMsPerJob.toFixed(0)} ms per job`);
    const m = (k: string) => mean(one.ends.map((e) => e[k]!).filter((x) => x !== undefined));
    const perJob = 1000 / one.rate;
    const [gap, pick, claim, eng, rec, wait, analysis, gzip] = ['gap_ms', 'pick_ms', 'claim_ms', 'engine_ms', 'record_ms', 'decoder_wait_ms', 'analysis_ms', 'encode_ms'].map(m);
    console.log(`  one worker, where a job's ${perJob.toFixed(0)} ms go (means): from an engine slot coming free to the next job claimed ${gap!.toFixed(1)} ms ` +
      `(picking ${pick!.toFixed(1)}, claiming ${claim!.toFixed(1)}); the engine round trip ${eng!.toFixed(0)} ms (in the engine process: the decoder's description ` +
      `${wait!.toFixed(0)}, frames and poses ${(analysis! - wait!).toFixed(0)}, gzipping the pose track ${gzip!.toFixed(1)}; messages and the rest ` +
      `${(eng! - analysis! - gzip!).toFixed(0)}); not accounted ${(perJob - gap! - eng!).toFixed(0)}. Recording the outcome (pose file, ledger) ${rec!.toFixed(0)} ms ` +
      'runs beside the next job\'s analysis');
    console.log(`  two workers: ${two.rate.toFixed(2)} jobs/s, ${(two.rate / one.rate).toFixed(2)}x one worker (${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')})`);
    console.log(`  target: 4 jobs/s per worker; one worker here ${one.rate >= 4 ? 'meets it' : 'does not'} (the engine alone: ${aloneRate.toFixed(2)}/s on this machine now)`);
    console.log(`  extra, not the figures above: the same file every job, ${same.rate.toFixed(2)} jobs/s (${reused} of ${N} reused the poses), ${(same.rate / one.rate).toFixed(1)}x distinct files`);
  }
} finally {
  await Promise.all(hosts.map((h) => h.close()));
  rmSync(scratch, { recursive: true, force: true });
}
