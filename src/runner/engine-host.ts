// An AnalysisEngine whose work happens in child processes (engine-child.ts), one per analysis in
// flight, kept for the next job: the API's event loop only passes messages, so polling stays fast
// while videos are analysed, and an engine that crashes or is killed takes no other job with it.
// createPoseEngine (src/analysis/index.ts) stays usable in-process for the CLI, eval and benches.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { foundConfinement, type FoundConfinement } from '../analysis/decoder/confine.js';
import { ProviderUnavailableError, VideoProcessingError, type AnalysisEngine, type AnalysisInput, type AnalysisOutput } from '../analysis/engine.js';
import { createPoseEngine, type PoseEngineOptions } from '../analysis/index.js';
import { ENGINE_MALLOC_ENV } from '../analysis/malloc-env.js';
import type { AnalysisResult } from '../analysis/result.js';
import type { ChildMessage, EngineStats, HostMessage, JobOutput } from './engine-protocol.js';
import type { PoseReuse } from './pose-cache.js';

export interface EngineHostOptions extends PoseEngineOptions {
  /** V8 heap cap of each engine process, MB (its WebAssembly memory and the decoder are separate). */
  maxHeapMb?: number;
}

export interface EngineHost extends AnalysisEngine {
  analyzeWithPose(input: AnalysisInput, signal?: AbortSignal): Promise<AnalysisOutput>;
  /**
   * The analysis as the runner stores it (engine-protocol.ts JobOutput); with `reuse`, poses the
   * engine process extracted from the same bytes for the same partner may be reused (pose-cache.ts).
   */
  analyzeForJob(input: AnalysisInput, signal?: AbortSignal, reuse?: PoseReuse): Promise<JobOutput>;
  /**
   * Starts engine processes now, up to `count` idle ones, each loading its models and setting up
   * a decoder ahead of its first job: a worker pays that once when it starts, not in its first job.
   */
  warm(count: number): void;
  /** Highest memory figures reported by any engine process so far. */
  stats(): EngineStats;
  close(): Promise<void>;
}

const childPath = fileURLToPath(new URL('./engine-child.ts', import.meta.url));
/** How an engine process loads the TypeScript sources: as `npm start` does (runtime/ts-loader.mjs). */
const tsLoader = fileURLToPath(new URL('../runtime/ts-loader.mjs', import.meta.url));
/** Niceness of engine processes (0 normal, 19 lowest). */
const ENGINE_NICE = 10;

function rehydrate(e: { name: string; message: string }): Error {
  if (e.name === 'VideoProcessingError') return new VideoProcessingError(e.message);
  if (e.name === 'ProviderUnavailableError') return new ProviderUnavailableError(e.message);
  if (e.name === 'RangeError') return new RangeError(e.message);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

/**
 * Each engine process gets a directory for its decoders' stages (decoder/sandbox.ts WarmDecoder:
 * a link to the video being decoded), removed when the process ends, even killed. Directories of
 * a host that was itself killed are removed by the next host on the machine.
 */
const STAGES_PREFIX = 'rc-engine-stages-';

function removeOrphanedStages() {
  for (const name of readdirSync(tmpdir())) {
    const owner = Number(name.startsWith(STAGES_PREFIX) ? name.slice(STAGES_PREFIX.length).split('-')[0] : NaN);
    if (!Number.isInteger(owner) || owner === process.pid) continue;
    try {
      process.kill(owner, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

export function createEngineHost(opts: EngineHostOptions = {}): EngineHost {
  const { maxHeapMb = 1024, ...engineOpts } = opts;
  try {
    removeOrphanedStages();
  } catch {
    // an unreadable temp directory: nothing of ours can be there either
  }
  // The same factory the child runs: the version string cannot drift from what produced a result.
  const version = createPoseEngine(engineOpts).version;
  const idle: ChildProcess[] = [];
  const all = new Set<ChildProcess>();
  const peak: EngineStats = { peakRssMb: 0, decoderPeakRssMb: 0 };
  let nextId = 1;
  let closed = false;
  let confined: Promise<FoundConfinement | undefined> | undefined;

  function spawnChild(): ChildProcess {
    const stages = mkdtempSync(join(tmpdir(), `${STAGES_PREFIX}${process.pid}-`));
    const child = fork(childPath, [], {
      // --expose-gc: the pose models' bytes are collected once their sessions are made (pose/models.ts).
      // --max-semi-space-size=1 (MB; V8 grows it up to 16 here): when the frames came through a
      // pipe, its 64 KB chunks were malloc'ed buffers freed only when V8 collected their small
      // handles, so a young generation that filled slowly held up to ~13 MB of dead chunks; a 1 MB
      // one was swept every few frames (issue 22: an engine process 4-8 MB smaller during a job).
      // Since issue 22t the frames are read straight into their buffers (decoder/framing.ts) and
      // those chunks are gone; the flag stays, not measured again without them.
      execArgv: ['--import', tsLoader, `--max-old-space-size=${maxHeapMb}`, '--max-semi-space-size=1', '--expose-gc'],
      env: { ...process.env, ...ENGINE_MALLOC_ENV, ENGINE_OPTIONS: JSON.stringify(engineOpts), DECODER_STAGE_DIR: stages },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    // Analysis is batch work and the API is interactive: on a shared machine the scheduler serves
    // the API first. The decoder the engine starts inherits the lower priority.
    try {
      if (child.pid) setPriority(child.pid, ENGINE_NICE);
    } catch {
      // not permitted here: the engine runs at normal priority
    }
    // The decoder's confinement, found once in this process for all its engine processes.
    confined ??= foundConfinement().catch(() => undefined);
    void confined.then((found) => {
      if (child.connected) child.send({ type: 'confinement', found } satisfies HostMessage);
    });
    all.add(child);
    child.once('exit', () => {
      rmSync(stages, { recursive: true, force: true });
      all.delete(child);
      const i = idle.indexOf(child);
      if (i >= 0) idle.splice(i, 1);
    });
    return child;
  }

  function run(input: AnalysisInput, signal?: AbortSignal): Promise<AnalysisOutput>;
  function run(input: AnalysisInput, signal: AbortSignal | undefined, forJob: true, reuse?: PoseReuse): Promise<JobOutput>;
  function run(input: AnalysisInput, signal?: AbortSignal, forJob = false, reuse?: PoseReuse): Promise<AnalysisOutput | JobOutput> {
    if (closed) return Promise.reject(new ProviderUnavailableError('the engine host is closed'));
    signal?.throwIfAborted();
    const child = idle.pop() ?? spawnChild();
    const id = nextId++;
    return new Promise<AnalysisOutput | JobOutput>((resolve, reject) => {
      const cleanup = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
      };
      const onMessage = (m: ChildMessage) => {
        if (m.type === 'ready' || m.id !== id) return;
        cleanup();
        peak.peakRssMb = Math.max(peak.peakRssMb, m.stats.peakRssMb);
        peak.decoderPeakRssMb = Math.max(peak.decoderPeakRssMb, m.stats.decoderPeakRssMb);
        if (!closed && child.connected) idle.push(child);
        if (m.type === 'done') resolve(m.out);
        else reject(rehydrate(m.error));
      };
      const onExit = (code: number | null, sig: string | null) => {
        cleanup();
        reject(signal?.aborted ? signal.reason : new ProviderUnavailableError(`the engine process exited (${sig ?? code}) during the analysis`));
      };
      // An abandoned analysis may be stuck in a long frame: the process is ended, not asked.
      const onAbort = () => child.kill('SIGKILL');
      child.on('message', onMessage);
      child.once('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      child.send({ type: 'analyze', id, input, forJob, reuse } satisfies HostMessage);
    });
  }

  return {
    version,
    analyzeWithPose: (input, signal) => run(input, signal),
    analyzeForJob: (input, signal, reuse) => run(input, signal, true, reuse),
    async analyze(input: AnalysisInput, signal?: AbortSignal): Promise<AnalysisResult> {
      return (await run(input, signal)).result;
    },
    warm(count: number) {
      while (!closed && idle.length < count) idle.push(spawnChild());
    },
    stats: () => ({ ...peak }),
    async close() {
      closed = true;
      const exits = [...all].map((c) => new Promise((r) => { c.once('exit', r); c.kill('SIGKILL'); }));
      await Promise.all(exits);
    },
  };
}
