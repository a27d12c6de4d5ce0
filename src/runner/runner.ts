// The job runner: claims queued jobs with a JobStarted lease, keeps the lease alive while the
// engine runs, retries provider faults with backoff and records the outcome. A worker that dies
// leaves its lease to run out; another worker then takes the job again (up to JOB_MAX_ATTEMPTS).
import { Value } from '@sinclair/typebox/value';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { ProviderUnavailableError, VideoProcessingError, type AnalysisEngine, type AnalysisInput, type PoseTrack } from '../analysis/engine.js';
import type { JobOutput } from './engine-protocol.js';
import type { PoseReuse } from './pose-cache.js';
import { AnalysisResultSchema } from '../analysis/result.js';
import { decideJob, GENERIC_FAILURE, type JobCommand } from '../commands/jobs.js';
import type { JobRow } from '../projections/jobs.js';
import { nextJobs } from '../queue/pick.js';
import type { Service } from '../service.js';
import { StorageUnavailableError } from '../storage/port.js';
import { encodePose } from '../storage/poses.js';
import { jobEnded } from './retention.js';
import { observeAnalysis } from '../metrics/analysis.js';

export const FAILURES = {
  video: { errorCode: 'video_processing_failed', message: 'The video could not be processed for analysis.' },
  provider: { errorCode: 'provider_temporarily_unavailable', message: 'The analysis provider was temporarily unavailable and retries were exhausted.' },
} as const;

export interface RunnerOptions {
  concurrency: number;
  leaseSeconds: number;
  maxAttempts: number;
  providerRetries: number;
  /** Backoff before retry n (0-based) after a provider fault. */
  backoffMs?: (retry: number) => number;
  pollMs?: number;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void };
}

export interface Runner {
  wake(): void;
  /**
   * Stops taking jobs and waits for running ones. With `graceMs`, a job still running after it is
   * abandoned and its lease given back (JobLeaseReleased), so another worker takes it at once
   * instead of waiting for the lease to run out.
   */
  stop(graceMs?: number): Promise<void>;
  /**
   * Settles once the first poll has claimed what it could and handed it to the engines (at once
   * without a worker). `npm start` answers only after it: that first poll reads the whole history
   * of each key it claims for (thousands of events behind a deep queue), and done after the answer
   * it competed with the first requests (issue 22).
   */
  firstClaims: Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The engine host's extras (engine-host.ts), used when the engine has them. */
export type RunnerEngine = AnalysisEngine & {
  analyzeForJob?(input: AnalysisInput, signal?: AbortSignal, reuse?: PoseReuse): Promise<JobOutput>;
  warm?(count: number): void;
};

export function startRunner(svc: Service, engine: RunnerEngine, opts: RunnerOptions): Runner {
  const worker = `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
  const backoff = opts.backoffMs ?? ((n) => Math.min(30_000, 1000 * 4 ** n));
  // Jobs whose leases this worker holds, until their outcome is recorded (stop() waits for them).
  const running = new Map<string, { task: Promise<void>; job: JobRow; lost: AbortController }>();
  // Those of them in the engine: `concurrency` bounds these. A job leaves this set once the engine
  // has answered, so the next job's pick, claim and analysis overlap the recording of this one's
  // outcome (pose file and ledger append: fsyncs, not CPU).
  const analysing = new Set<string>();
  /** When an engine slot last came free (performance.now()): the gap before the next claim is logged. */
  let freedAt: number | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let polled!: () => void;
  const firstClaims = new Promise<void>((resolve) => (polled = resolve));

  const leaseUntil = () => new Date(svc.clock().getTime() + opts.leaseSeconds * 1000).toISOString();
  const now = () => svc.clock().toISOString();
  const run = (keyId: string, command: JobCommand) => svc.ledger.handle(keyId, (s) => decideJob(command, s));

  /** Where a job's time went before the engine (ms), for its 'job finished' line. */
  type Lead = { gap_ms: number | undefined; pick_ms: number; claim_ms: number };

  async function execute(job: JobRow, lost: AbortController, engineDone: () => void, lead: Lead) {
    const { job_id: jobId, key_id: keyId } = job;
    const heartbeat = setInterval(() => {
      if (lost.signal.aborted) return;
      run(keyId, { type: 'ExtendLease', jobId, worker, leaseUntil: leaseUntil(), now: now() })
        .then((d) => d.events.length === 0 && lost.abort())
        .catch((err) => opts.log.warn({ jobId, err: String(err) }, 'lease extension failed'));
    }, (opts.leaseSeconds * 1000) / 3);
    let finished = false;
    try {
      const t0 = performance.now();
      const outcome = await analyze(job, lost.signal);
      engineDone();
      if (lost.signal.aborted) return; // cancelled by an operator, or re-taken: the outcome is not ours
      const t1 = performance.now();
      const { pose, poseGzip, timings, ...decided } = outcome as Outcome & { pose?: PoseTrack; poseGzip?: Buffer; timings?: JobOutput['timings'] };
      // Stored before JobCompleted, so a completed job's track is always there to serve.
      if (poseGzip) await svc.storage.savePose(jobId, poseGzip);
      else if (pose) await svc.storage.savePose(jobId, encodePose(pose));
      const decision = await run(keyId, { ...decided, jobId, worker, now: now() } as JobCommand);
      finished = decision.events.length > 0;
      // Where a job's time goes (bench:jobs reads these): the wait from a free engine slot to this
      // job's claim (gap_ms, which holds the pick and the claim), the engine's round trip and the
      // engine's own account of it, and recording the outcome (pose file, ledger).
      const ms = (x: number) => Math.round(x * 10) / 10;
      opts.log.info({
        jobId, outcome: outcome.type === 'CompleteJob' ? 'completed' : outcome.errorCode,
        gap_ms: lead.gap_ms === undefined ? undefined : ms(lead.gap_ms), pick_ms: ms(lead.pick_ms), claim_ms: ms(lead.claim_ms),
        engine_ms: ms(t1 - t0), record_ms: ms(performance.now() - t1),
        ...(timings ? { decoder_wait_ms: ms(timings.decoderWaitMs), analysis_ms: ms(timings.analysisMs), encode_ms: ms(timings.encodeMs), poses_reused: timings.posesReused } : {}),
      }, 'job finished');
    } finally {
      clearInterval(heartbeat);
      if (finished) await jobEnded(svc, keyId, jobId);
    }
  }

  type Outcome =
    | { type: 'CompleteJob'; result: Extract<JobCommand, { type: 'CompleteJob' }>['result']; engineVersion: string; pose?: PoseTrack; poseGzip?: Buffer; timings?: JobOutput['timings'] }
    | { type: 'FailJob'; errorCode: string; message: string; detail?: string };

  async function analyze(job: JobRow, signal: AbortSignal): Promise<Outcome> {
    for (let retry = 0; ; retry++) {
      try {
        const video = await svc.storage.openFrozen(job.job_id);
        try {
          const input = { videoPath: video.path, exerciseId: job.exercise_id, scope: job.key_id };
          const started = performance.now();
          if (engine.analyzeForJob) {
            // The engine process hands over the stored form of the pose track and the video's
            // length: nothing heavy here, on what is the API's event loop under `npm start`.
            // Poses of the same bytes may be reused for this partner while the video is kept.
            const reuse = { scope: job.key_id, forMs: svc.config.videoRetentionHours * 3_600_000 };
            const { result, poseGzip, videoMs, timings } = await engine.analyzeForJob(input, signal, reuse);
            if (videoMs > 0) svc.metrics.analysisRatio.observe((performance.now() - started) / videoMs);
            if (!Value.Check(AnalysisResultSchema, result)) {
              return { type: 'FailJob', ...GENERIC_FAILURE, detail: 'engine returned a result outside the schema' };
            }
            return { type: 'CompleteJob', result, engineVersion: engine.version, poseGzip, timings };
          }
          const { result, pose } = engine.analyzeWithPose ? await engine.analyzeWithPose(input, signal) : { result: await engine.analyze(input, signal), pose: undefined };
          await observeAnalysis(svc.metrics, video.path, (performance.now() - started) / 1000);
          if (!Value.Check(AnalysisResultSchema, result)) {
            return { type: 'FailJob', ...GENERIC_FAILURE, detail: 'engine returned a result outside the schema' };
          }
          return { type: 'CompleteJob', result, engineVersion: engine.version, pose };
        } finally {
          await video.release();
        }
      } catch (err) {
        if (err instanceof VideoProcessingError) return { type: 'FailJob', ...FAILURES.video, detail: err.message };
        // An object store that cannot hand over the frozen video right now (S3 driver) is as
        // transient as a provider fault: retry it rather than fail the job for good.
        const transient = err instanceof ProviderUnavailableError || err instanceof StorageUnavailableError;
        if (!transient) return { type: 'FailJob', ...GENERIC_FAILURE, detail: String(err) };
        if (retry >= opts.providerRetries) return { type: 'FailJob', ...FAILURES.provider, detail: err.message };
        opts.log.warn({ jobId: job.job_id, retry, err: err.message }, 'provider unavailable; retrying');
        await sleep(backoff(retry));
      }
    }
  }

  async function claim(job: JobRow): Promise<boolean> {
    const decision = await run(job.key_id, {
      type: 'StartJob', jobId: job.job_id, worker, leaseUntil: leaseUntil(), maxAttempts: opts.maxAttempts, now: now(),
    });
    return decision.events[0]?.type === 'JobStarted';
  }

  async function poll() {
    timer = undefined;
    if (stopped) return;
    try {
      const free = opts.concurrency - analysing.size;
      if (free > 0) {
        const polled = performance.now();
        const candidates = nextJobs(svc.readDb(), svc.clock(), free + running.size + 8).filter((j) => !running.has(j.job_id));
        const pickMs = performance.now() - polled;
        for (const job of candidates) {
          if (analysing.size >= opts.concurrency || stopped) break;
          const claiming = performance.now();
          if (!(await claim(job))) continue;
          const now = performance.now();
          const lead = { gap_ms: freedAt === undefined ? undefined : now - freedAt, pick_ms: pickMs, claim_ms: now - claiming };
          const id = job.job_id;
          const lost = new AbortController();
          analysing.add(id);
          const engineDone = () => {
            if (!analysing.delete(id)) return;
            freedAt = performance.now();
            wake();
          };
          const task = execute(job, lost, engineDone, lead)
            .catch((err) => opts.log.error({ jobId: id, err: String(err) }, 'job execution failed'))
            .finally(() => {
              engineDone();
              running.delete(id);
            });
          running.set(id, { task, job, lost });
        }
      }
    } catch (err) {
      opts.log.error({ err: String(err) }, 'runner poll failed');
    }
    polled();
    schedule(opts.pollMs ?? 1000);
  }

  function schedule(ms: number) {
    if (stopped || timer) return;
    timer = setTimeout(() => void poll(), ms);
  }

  function wake() {
    if (timer) clearTimeout(timer);
    timer = undefined;
    schedule(0);
  }

  if (opts.concurrency > 0) {
    // Engine processes start now (at low priority), not when the first job is claimed.
    engine.warm?.(opts.concurrency);
    schedule(0);
  } else polled();

  return {
    firstClaims,
    wake: () => opts.concurrency > 0 && wake(),
    async stop(graceMs = Infinity) {
      stopped = true;
      polled();
      if (timer) clearTimeout(timer);
      const all = Promise.allSettled([...running.values()].map((r) => r.task));
      let graceTimer: NodeJS.Timeout | undefined;
      const grace = Number.isFinite(graceMs) ? new Promise((r) => (graceTimer = setTimeout(r, graceMs))) : new Promise(() => {});
      await Promise.race([all, grace]);
      clearTimeout(graceTimer);
      // Abort first: an outcome that lands after the release must not be recorded as ours.
      const left = [...running.values()];
      for (const r of left) r.lost.abort();
      await Promise.all(left.map(({ job }) =>
        run(job.key_id, { type: 'ReleaseLease', jobId: job.job_id, worker, now: now() })
          .then((d) => opts.log.info({ jobId: job.job_id, released: d.events.length > 0 }, 'draining: lease given back'))
          // The lease then runs out instead, as after a crash.
          .catch((err) => opts.log.warn({ jobId: job.job_id, err: String(err) }, 'draining: lease release failed')),
      ));
    },
  };
}
