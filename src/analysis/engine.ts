// The one interface the job runner calls. The real implementation lives beside this file; tests of
// the runner may pass a double, the composition root never does.
import type { AnalysisResult } from './result.js';

export interface AnalysisInput {
  /** Absolute path of a local, immutable copy of the uploaded bytes. */
  videoPath: string;
  /** An id from the catalog (src/analysis/catalog.ts). */
  exerciseId: string;
  /**
   * Whose video this is (the partner's API key id). A decoder process that decoded it may decode
   * that partner's next video, never another's (decoder/lifecycle.ts); none: it decodes this one only.
   */
  scope?: string;
}

/**
 * The keypoint series a result was judged from, compact enough to store beside the result and
 * serve to partners (GET /v1/jobs/{job_id}/pose): one row per analysed frame, and per landmark
 * three numbers (x, y normalised to the frame's width and height, 0..1; confidence 0..1), rounded
 * to 4 decimals. A landmark the model did not see has confidence 0.
 */
export interface PoseTrack {
  /** Landmark names, in the order of each frame's triples (e.g. "left_shoulder"). */
  landmarks: string[];
  /** Decoded frame size the coordinates were normalised by. */
  width: number;
  height: number;
  /** Frame times, ms from the start of the video, one per row of `keypoints`. */
  frames_ms: number[];
  /** Per frame, landmarks.length * 3 numbers: x, y, confidence. */
  keypoints: number[][];
}

export interface AnalysisOutput {
  result: AnalysisResult;
  pose: PoseTrack;
}

export interface AnalysisEngine {
  /** Engine and model version, recorded with every result so an auditor knows what produced it. */
  readonly version: string;
  analyze(input: AnalysisInput, signal?: AbortSignal): Promise<AnalysisResult>;
  /** The same analysis plus the pose track it was judged from (the real engine always has it). */
  analyzeWithPose?(input: AnalysisInput, signal?: AbortSignal): Promise<AnalysisOutput>;
}

/** The file cannot be decoded as video: the job fails with video_processing_failed. */
export class VideoProcessingError extends Error {
  override name = 'VideoProcessingError';
}

/** A transient fault of the analysis provider (model load, decoder spawn): the runner retries. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}
