// @rep-coach/client: a typed client of the Rep Coach API.
export {
  createClient,
  TERMINAL_STATUSES,
  UNKNOWN_EXERCISE_MESSAGE,
  type AnalysisResult,
  type AnalyzeOptions,
  type ClientOptions,
  type ErrorCode,
  type Exercise,
  type Identity,
  type Input,
  type Issue,
  type Job,
  type JobList,
  type JobStatus,
  type JobSummary,
  type OperationId,
  type OperationMethod,
  type Output,
  type PoseTrack,
  type RepCoachClient,
  type Repetition,
  type UploadSpot,
  type UploadStatus,
  type WaitOptions,
} from './client.js';
export { RepCoachError, RETRYABLE_CODES, NETWORK_ERROR, parseRetryAfter } from './errors.js';
export { defaultRetryPolicy, type RetryPolicy } from './retry.js';
export type { RequestOptions, ApiResponse } from './transport.js';
export { putVideo, contentTypeOf, type UploadProgress, type VideoSource } from './upload.js';
export { operationTable } from './generated/operations.js';
export type { paths, operations, components } from './generated/schema.js';
