// The analysis engine's own process (started by engine-host.ts): the pose model and the pipeline
// run here, so their CPU-bound frames never hold the API's event loop, and a crash or a runaway
// allocation here ends this process, not the API. The decoder runs one level further down, in
// its sandbox (src/analysis/decoder/): one process decodes a partner's successive videos (the job's
// key is the input's scope), and a spare is kept started for another partner's (keepDecoderWarm,
// decoder/lifecycle.ts).
import { createPoseEngine } from '../analysis/index.js';
import { adoptConfinement } from '../analysis/decoder/confine.js';
import { keepDecoderWarm, lastDecoderPeakRssMb, lastDecoderWaitMs } from '../analysis/decode.js';
import { encodePose } from '../storage/poses.js';
import { flushCompileCache } from '../runtime/compile-cache.js';
import type { HostMessage, ChildMessage } from './engine-protocol.js';
import { createPoseCache } from './pose-cache.js';

flushCompileCache(); // every module is loaded now

const engine = createPoseEngine(JSON.parse(process.env.ENGINE_OPTIONS || '{}'));
const poseCache = createPoseCache();
const running = new Map<number, AbortController>();
const send = (m: ChildMessage) => process.send!(m);
const stats = () => ({ peakRssMb: process.resourceUsage().maxRSS / 1024, decoderPeakRssMb: lastDecoderPeakRssMb });

// What every job would otherwise pay on its own, paid once here before the first job: the pose
// models (loaded and run once) and a decoder sandbox set up ahead of the first video, once the
// host has said how decoders are confined on this machine (it found that once for all its engine
// processes; a job that comes first finds it here instead).
void engine.ready().catch(() => undefined); // a failed load is retried by the first analysis

process.on('message', (m: HostMessage) => {
  if (m.type === 'confinement') {
    if (m.found) adoptConfinement(m.found);
    keepDecoderWarm(true);
    return;
  }
  if (m.type === 'abort') {
    running.get(m.id)?.abort();
    return;
  }
  const ctrl = new AbortController();
  running.set(m.id, ctrl);
  const started = performance.now();
  const forJob = async () => {
    let reused = false;
    const { result, pose, stats: s } = await engine.analyzeDetailed(m.input, ctrl.signal, async (input, signal) => {
      const x = await poseCache.get(input.videoPath, input.exerciseId, m.reuse, () => engine.extractPoses(input, signal));
      reused = x.reused;
      return x.poses;
    });
    const analysisMs = performance.now() - started;
    const poseGzip = encodePose(pose);
    const timings = { decoderWaitMs: reused ? 0 : lastDecoderWaitMs, analysisMs, encodeMs: performance.now() - started - analysisMs, posesReused: reused };
    return { result, poseGzip, videoMs: s.videoMs, timings };
  };
  const work = m.forJob
    ? forJob()
    : engine.analyzeWithPose(m.input, ctrl.signal);
  work.then(
    (out) => send({ type: 'done', id: m.id, out, stats: stats() }),
    (err: Error) => send({ type: 'failed', id: m.id, error: { name: err?.name ?? 'Error', message: String(err?.message ?? err) }, stats: stats() }),
  ).finally(() => running.delete(m.id));
});
// The host's death closes the IPC channel: nothing is left to report to.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', version: engine.version });
