// One error class per SPEC error code. http/errors.ts maps them to the envelope and the status, in
// one place; deciders and handlers only throw them.
export abstract class DomainError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  /** Seconds until a retry can succeed, when the decider knows (sent as Retry-After). */
  retryAfterSeconds?: number;
}

/** Attaches when a retry can succeed: whole seconds, at least 1 (RFC 9110 delay-seconds). */
export function withRetryAfter<E extends DomainError>(err: E, seconds: number): E {
  err.retryAfterSeconds = Math.max(1, Math.ceil(seconds));
  return err;
}

const define = (code: string, status: number, defaultMessage: string) =>
  class extends DomainError {
    readonly code = code;
    readonly status = status;
    constructor(message: string = defaultMessage) {
      super(message);
      this.name = code;
    }
  };

export const AuthenticationError = define('authentication_error', 401, 'Invalid, suspended, or revoked API key.');
export const MalformedRequest = define('malformed_request', 400, 'The request body is malformed.');
export const UnknownExercise = define('unknown_exercise', 404, 'The exercise_id is not in the exercise catalog.');
export const UploadNotFound = define('upload_not_found', 404, 'No upload spot with this handle exists for this API key.');
export const UploadSpotExpired = define('upload_spot_expired', 410, 'The upload spot has expired.');
export const UploadIncomplete = define('upload_incomplete', 409, 'No bytes have been uploaded to this spot yet.');
export const UploadAlreadyClaimed = define('upload_already_claimed', 409, 'The upload handle is already claimed by a job with a different exercise_id.');
export const SpotsPerWindowExceeded = define('spots_per_window_exceeded', 429, 'Upload spot limit for the rolling window reached; wait for the window to roll.');
export const UnclaimedBytesExceeded = define('unclaimed_bytes_exceeded', 429, 'Unclaimed upload bytes exceed the cap; claim uploads with jobs or wait for spots to expire.');
export const UsageLimitExceeded = define('usage_limit_exceeded', 429, 'The analysis limit of this API key is used up.');
export const StoreUnavailable = define('store_unavailable', 503, 'The backing store is temporarily unavailable.');
export const StorageStatUnavailable = define('storage_stat_unavailable', 503, 'The video storage could not be queried.');
export const CatalogError = define('catalog_error', 500, 'The exercise catalog could not be read.');
export const InternalError = define('internal_error', 500, 'The video was retained but the job record write was not confirmed. Do not resubmit this handle at once; contact the operator.');
export const JobNotFound = define('job_not_found', 404, 'No job with this id exists for this API key.');
export const JobAlreadyStarted = define('job_already_started', 409, 'The job has already started and cannot be cancelled.');
export const JobAlreadyFinished = define('job_already_finished', 409, 'The job has already finished.');
// Extensions beyond SPEC (issue 11): partner conveniences, never in place of a SPEC answer.
export const PoseNotAvailable = define('pose_not_available', 409, 'The pose track is available once the job has completed.');
export const IdempotencyKeyReused = define('idempotency_key_reused', 409, 'This Idempotency-Key was already used with a different request.');
export const IdempotencyKeyInUse = define('idempotency_key_in_use', 409, 'A request with this Idempotency-Key is still in progress; retry shortly.');
export const InvalidIdempotencyKey = define('invalid_idempotency_key', 400, 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.');
export const WebhookEndpointNotFound = define('webhook_endpoint_not_found', 404, 'No webhook endpoint with this id exists for this API key.');
export const InvalidWebhookUrl = define('invalid_webhook_url', 400, 'The webhook url must be an absolute http(s) URL without credentials.');
export const WebhookUrlNotAllowed = define('webhook_url_not_allowed', 400, 'The webhook url resolves to a loopback, private, link-local or metadata address.');
export const WebhookEndpointLimit = define('webhook_endpoint_limit_reached', 409, 'This API key has the most webhook endpoints allowed; delete one first.');
export const ShuttingDown = define('service_unavailable', 503, 'This server is shutting down; retry shortly.');
export const NotFound = define('not_found', 404, 'No route matches this path.');
export const MethodNotAllowed = define('method_not_allowed', 405, 'This method is not allowed on this path.');
/** GET /readyz: a dependency does not answer or the read models are behind (message says which). */
export const NotReady = define('not_ready', 503, 'The service is not ready to serve traffic.');
export const PayloadTooLarge = define('payload_too_large', 413, 'The request body is too large.');
/** The request did not arrive whole within HTTP_REQUEST_TIMEOUT_SECONDS (or its headers within HTTP_HEADERS_TIMEOUT_SECONDS). */
export const RequestTimeout = define('request_timeout', 408, 'The request did not arrive in time.');

/** Operator commands refused for the key's state (e.g. a revoked key cannot be reinstated). */
export class OperatorError extends Error {
  override name = 'OperatorError';
}
