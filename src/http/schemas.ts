// Response and request schemas of SPEC.md. Routes validate and serialize with them and the
// OpenAPI document at /openapi.json is generated from them.
import { Type, type Static } from '@sinclair/typebox';
import { AnalysisResultSchema } from '../analysis/result.js';

/**
 * SPEC's error table (status, class, condition) plus the envelope codes the HTTP layer adds. The
 * OpenAPI document lists, on every operation, the codes it can answer, from here; the client's
 * retry policy is checked against the same table (test/client/errors.unit.test.ts).
 */
export const errorCatalog = {
  authentication_error: { status: 401, retryable: false, condition: 'credentials rejected: the Authorization header is missing or malformed, or the key is invalid, suspended or revoked (the answer never says which)' },
  malformed_request: { status: 400, retryable: false, condition: 'body not valid JSON, not an object, or a required field missing; the message names the problem' },
  unknown_exercise: { status: 404, retryable: false, condition: 'exercise id not in the catalog' },
  upload_not_found: { status: 404, retryable: false, condition: 'handle never minted or owned by another key' },
  upload_spot_expired: { status: 410, retryable: false, condition: 'spot lifetime passed' },
  upload_incomplete: { status: 409, retryable: false, condition: 'spot in window but no bytes have landed' },
  upload_already_claimed: { status: 409, retryable: false, condition: 'handle already claimed by a job with a different exercise_id' },
  spots_per_window_exceeded: { status: 429, retryable: true, condition: 'key minted the maximum spots in the rolling window; wait for the window to roll' },
  unclaimed_bytes_exceeded: { status: 429, retryable: true, condition: "key's unclaimed upload bytes exceed the cap; claim uploads via jobs or wait for spots to expire" },
  usage_limit_exceeded: { status: 429, retryable: false, condition: 'analysis budget (a lifetime total) used up; cancelling a queued job returns a unit, or the operator raises the limit' },
  store_unavailable: { status: 503, retryable: true, condition: 'key store, upload-spot store or job store unreachable' },
  storage_stat_unavailable: { status: 503, retryable: true, condition: 'query against video storage failed or timed out' },
  catalog_error: { status: 500, retryable: true, condition: 'exercise catalog could not be read or resolved' },
  internal_error: { status: 500, retryable: false, condition: 'video retained but job record write unconfirmed; do not resubmit the same handle at once, it may be claimed; contact the operator' },
  job_not_found: { status: 404, retryable: false, condition: 'no such job, or it belongs to another key' },
  job_already_started: { status: 409, retryable: false, condition: 'cancel called on a processing job' },
  job_already_finished: { status: 409, retryable: false, condition: 'cancel called on a completed, failed or cancelled job' },
  pose_not_available: { status: 409, retryable: false, condition: 'the job has not completed (or completed before pose tracks were kept)' },
  idempotency_key_reused: { status: 409, retryable: false, condition: 'this Idempotency-Key was used in the last 24 hours with a different request (method, path or body)' },
  idempotency_key_in_use: { status: 409, retryable: true, condition: 'a request with this Idempotency-Key is still in progress; retry after Retry-After' },
  invalid_idempotency_key: { status: 400, retryable: false, condition: 'the Idempotency-Key header is empty, longer than 255 characters or not printable ASCII' },
  webhook_endpoint_not_found: { status: 404, retryable: false, condition: 'no such webhook endpoint, or it belongs to another key' },
  invalid_webhook_url: { status: 400, retryable: false, condition: 'the url is not an absolute http(s) URL, carries credentials, or its host does not resolve' },
  webhook_url_not_allowed: { status: 400, retryable: false, condition: 'the url resolves to a loopback, private, link-local or metadata address' },
  webhook_endpoint_limit_reached: { status: 409, retryable: false, condition: 'the key has 16 webhook endpoints; delete one first' },
  payload_too_large: { status: 413, retryable: false, condition: 'request body larger than the configured limit (BODY_LIMIT_BYTES)' },
  bad_request: { status: 400, retryable: false, condition: 'the HTTP request itself could not be parsed (bad framing, NUL bytes, a protocol upgrade)' },
  request_timeout: { status: 408, retryable: false, condition: 'the request did not arrive whole within HTTP_REQUEST_TIMEOUT_SECONDS, or its headers within HTTP_HEADERS_TIMEOUT_SECONDS' },
  service_unavailable: { status: 503, retryable: true, condition: 'this server is shutting down; retry, another node or the restarted one answers' },
} as const satisfies Record<string, { status: number; retryable: boolean; condition: string }>;

export type ErrorCode = keyof typeof errorCatalog;

const RetryAfterHeader = { type: 'integer', minimum: 1, description: 'Seconds to wait before retrying (on every 429 and 503).' };

const WwwAuthenticateHeader = { type: 'string', description: '`Bearer` (RFC 9110 11.6.1), whatever the reason for the 401.' };

/** Documents response headers (OpenAPI) on a response schema; the serializer ignores them. */
export const withHeaders = <T extends object>(schema: T, headers: Record<string, { type: string; description: string }>): T => ({ ...schema, headers });

export const ReplayHeaders = {
  'idempotent-replayed': { type: 'string', description: '"true" when this answer replays the first answer to the same Idempotency-Key.' },
};

/**
 * The error responses of one operation, one per status, each listing the codes the operation can
 * answer with that status (as an enum, so generated clients get the union) and what each means.
 */
export const errorResponses = (...own: ErrorCode[]) => {
  const byStatus = new Map<number, ErrorCode[]>();
  const codes = [...new Set([...own, ...transportErrors])];
  for (const code of codes) byStatus.set(errorCatalog[code].status, [...(byStatus.get(errorCatalog[code].status) ?? []), code]);
  const described = new Map<number, string>();
  for (const [status, why] of Object.entries(transportStatuses)) {
    byStatus.set(Number(status), ['bad_request']);
    described.set(Number(status), why);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      Type.Object(
        {
          error: Type.Object({
            code: Type.Unsafe<string>({ type: 'string', enum: list, description: 'Stable machine-readable code: branch on this.' }),
            message: Type.String({ description: 'Human-readable; informational, never parse it.' }),
          }),
        },
        {
          description:
            described.get(status) ??
            list.map((c) => `\`${c}\` (${errorCatalog[c].retryable ? 'retryable' : 'terminal'}): ${errorCatalog[c].condition}.`).join(' '),
          ...(status === 429 || status === 503 ? { headers: { 'retry-after': RetryAfterHeader } } : {}),
          ...(status === 401 ? { headers: { 'www-authenticate': WwwAuthenticateHeader } } : {}),
        },
      ),
    ]),
  );
};

/**
 * What any request can be answered with, whatever its operation: a request that cannot be parsed,
 * arrives too slowly, reaches a server that is shutting down, or meets an unexpected fault. Listed
 * on every operation so no answer the service gives is outside the OpenAPI document.
 */
export const transportErrors = ['bad_request', 'request_timeout', 'service_unavailable', 'internal_error'] as const satisfies readonly ErrorCode[];

/**
 * Statuses Node's HTTP layer answers before any route sees the request (src/http/errors.ts), in the
 * envelope with code `bad_request`: documented on every operation, since any request can meet them.
 */
const transportStatuses: Record<number, string> = {
  417: '`bad_request` (terminal): an Expect header other than `100-continue`.',
  431: "`bad_request` (terminal): the request line and headers together exceed 16 KiB (Node's header limit), e.g. a path id of about 16,000 characters or more.",
};

/** What an operation taking Idempotency-Key can answer besides its own errors. */
export const idempotencyErrors = ['invalid_idempotency_key', 'idempotency_key_reused', 'idempotency_key_in_use'] as const satisfies readonly ErrorCode[];

/** Every operation behind Bearer authentication can answer these. */
export const authErrors = ['authentication_error', 'store_unavailable'] as const satisfies readonly ErrorCode[];

const Nullable = <T extends ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

export const Identity = Type.Object({
  partner_id: Type.String(),
  partner_name: Type.String(),
  status: Type.String({ description: 'active for any key that authenticates' }),
  usage: Type.Object({
    limit: Nullable(Type.Integer({ minimum: 0 })),
    used: Type.Integer({ minimum: 0 }),
    remaining: Nullable(Type.Integer({ minimum: 0 })),
  }),
});

export const Exercise = Type.Object({ exercise_id: Type.String(), name: Type.String(), description: Type.String() });
export const ExerciseList = Type.Object({ exercises: Type.Array(Exercise) });

export const UploadSpot = Type.Object({
  handle: Type.String(),
  upload_url: Type.String({ format: 'uri', description: 'A bearer credential: PUT the raw bytes here, without Authorization.' }),
  expires_at: Type.String({ format: 'date-time' }),
});

export const UploadStatus = Type.Object({
  handle: Type.String(),
  state: Type.Union([Type.Literal('minted'), Type.Literal('uploaded'), Type.Literal('claimed'), Type.Literal('expired')]),
  expires_at: Type.String({ format: 'date-time' }),
});

export const HandleParams = Type.Object({ handle: Type.String() });
export const JobParams = Type.Object({ job_id: Type.String() });

export const JobStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('processing'),
  Type.Literal('completed'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);

export const SubmitJobBody = Type.Object({
  upload_handle: Type.String({ minLength: 1 }),
  exercise_id: Type.String(),
});
export type SubmitJobBody = Static<typeof SubmitJobBody>;

export const JobSummary = Type.Object({ job_id: Type.String(), status: JobStatus });

export const Job = Type.Object({
  job_id: Type.String(),
  status: JobStatus,
  result: Type.Optional(AnalysisResultSchema),
  error_code: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

export const JobListQuery = Type.Object({
  status: Type.Optional(JobStatus),
  // 1 to 1000 (leading zeros allowed): 0 or 5000 is refused rather than quietly read as 1 or 1000.
  limit: Type.Optional(Type.String({ pattern: '^0*([1-9][0-9]{0,2}|1000)$', description: 'a whole number from 1 to 1000, default 100' })),
  cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$', description: 'next_cursor of the previous page' })),
});

export const JobList = Type.Object({
  jobs: Type.Array(JobSummary),
  next_cursor: Type.Optional(Type.String({ description: 'present when more jobs follow; pass it as ?cursor=' })),
});

export const Liveness = Type.Object({ status: Type.Literal('ok') });

export const PoseTrackSchema = Type.Object(
  {
    landmarks: Type.Array(Type.String(), { description: 'Landmark names (nose, left_eye, ..., left_heel, ...), in the order of each frame\'s triples.' }),
    width: Type.Integer({ description: 'Decoded frame width the x coordinates are normalised by.' }),
    height: Type.Integer({ description: 'Decoded frame height the y coordinates are normalised by.' }),
    frames_ms: Type.Array(Type.Integer(), { description: 'Frame times in ms from the start of the video, one per row of keypoints.' }),
    keypoints: Type.Array(Type.Array(Type.Number()), {
      description: 'Per frame, landmarks.length x 3 numbers: x and y normalised to 0..1, confidence 0..1 (0: not seen).',
    }),
  },
  { description: 'The keypoint series the result was judged from. Send Accept-Encoding: gzip for the compressed form.' },
);

const WebhookEventType = Type.Union([Type.Literal('job.completed'), Type.Literal('job.failed'), Type.Literal('job.cancelled')]);

export const CreateWebhookEndpointBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL that receives the events; must resolve to a public address.' }),
  events: Type.Optional(Type.Array(WebhookEventType, { minItems: 1, description: 'Event types to receive; all three when omitted.' })),
});
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBody>;

const endpointFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(WebhookEventType),
  created_at: Type.String({ format: 'date-time' }),
};

export const WebhookEndpointCreated = Type.Object({
  ...endpointFields,
  secret: Type.String({ description: 'whsec_ + base64 key for verifying webhook-signature (Standard Webhooks). Shown only in this answer.' }),
});
export const WebhookSecretRotated = Type.Object({
  ...endpointFields,
  secret: Type.String({ description: 'The new whsec_ signing secret. Shown only in this answer.' }),
  rotated_at: Type.String({ format: 'date-time' }),
  previous_secret_expires_at: Type.String({
    format: 'date-time',
    description: 'Until then every delivery carries two signatures in webhook-signature (space-separated): by the new secret and by the one it replaced; after it, by the new one only.',
  }),
});
export const WebhookEndpoint = Type.Object(endpointFields);
export const WebhookEndpointList = Type.Object({ webhook_endpoints: Type.Array(WebhookEndpoint) });
export const WebhookEndpointParams = Type.Object({ id: Type.String() });
export const NoContent = Type.Null({ description: 'No content.' });
