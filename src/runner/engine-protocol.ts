// Messages between the engine host (API or worker process) and the engine process.
import type { FoundConfinement } from '../analysis/decoder/confine.js';
import type { AnalysisInput, AnalysisOutput } from '../analysis/engine.js';
import type { AnalysisResult } from '../analysis/result.js';
import type { PoseReuse } from './pose-cache.js';

export interface EngineStats {
  /** Peak resident memory of the engine process so far, MB. */
  peakRssMb: number;
  /** Peak resident memory of the last decoder process it ran, MB. */
  decoderPeakRssMb: number;
}

/**
 * What a job needs from an analysis, made ready in the engine process: the pose track already
 * gzipped as it is stored (a ten-minute video's track is MBs of JSON: serialising and compressing
 * it on the API's event loop held requests for tens of ms), and the video's length for the
 * analysis-speed metric (read by the decoder, so nothing probes the video a second time).
 */
export interface JobOutput {
  result: AnalysisResult;
  poseGzip: Buffer;
  videoMs: number;
  /**
   * Where the engine process's time went, ms (the runner logs it with the job's end); posesReused:
   * the poses came from pose-cache.ts, not from decoding the video (decoderWaitMs is then 0).
   */
  timings: { decoderWaitMs: number; analysisMs: number; encodeMs: number; posesReused: boolean };
}

export type HostMessage =
  | { type: 'analyze'; id: number; input: AnalysisInput; forJob?: boolean; reuse?: PoseReuse }
  | { type: 'abort'; id: number }
  /** How decoders are confined here, as the host found it (undefined: it could not; find it). */
  | { type: 'confinement'; found: FoundConfinement | undefined };

export type ChildMessage =
  | { type: 'ready'; version: string }
  | { type: 'done'; id: number; out: AnalysisOutput | JobOutput; stats: EngineStats }
  | { type: 'failed'; id: number; error: { name: string; message: string }; stats: EngineStats };
