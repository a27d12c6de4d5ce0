// The one interface the job runner calls. The real implementation lives beside this file; tests of
// the runner may pass a double, the composition root never does.
import type { AnalysisResult } from './result.js';

export interface AnalysisInput {
  /** Absolute path of a local, immutable copy of the uploaded bytes. */
  videoPath: string;
  /** An id from the catalog (src/analysis/catalog.ts). */
  exerciseId: string;
}

export interface AnalysisEngine {
  /** Engine and model version, recorded with every result so an auditor knows what produced it. */
  readonly version: string;
  analyze(input: AnalysisInput, signal?: AbortSignal): Promise<AnalysisResult>;
}

/** The file cannot be decoded as video: the job fails with video_processing_failed. */
export class VideoProcessingError extends Error {
  override name = 'VideoProcessingError';
}

/** A transient fault of the analysis provider (model load, decoder spawn): the runner retries. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}
