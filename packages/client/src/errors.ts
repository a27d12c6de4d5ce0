// One error class for everything the API (or the way to it) refuses, carrying what a caller
// branches on: the stable code, the HTTP status, whether SPEC calls it retryable, the request id
// to quote to the operator, and the server's Retry-After when it sent one.

/**
 * SPEC's error table, Class column: the codes a retry later without changes can fix, plus the one
 * retryable codes the API adds (idempotency_key_in_use: the first request with this key is still
 * running; service_unavailable: the server is shutting down). Every other code is terminal (internal_error above all: never resubmit the handle).
 */
export const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  'spots_per_window_exceeded',
  'unclaimed_bytes_exceeded',
  'store_unavailable',
  'storage_stat_unavailable',
  'catalog_error',
  'idempotency_key_in_use',
  'service_unavailable',
]);

/** The connection failed or dropped before any answer (status 0). */
export const NETWORK_ERROR = 'network_error';

export class RepCoachError extends Error {
  override name = 'RepCoachError';
  /** SPEC's error.code, `network_error` when no answer came, or `http_<status>` for a body that is not the envelope. */
  readonly code: string;
  /** HTTP status; 0 when no answer came. */
  readonly status: number;
  /** True when SPEC's error table classes the code Retryable (or the network failed). */
  readonly retryable: boolean;
  /** The X-Request-Id of the failed answer, to quote to the operator. */
  readonly requestId: string | undefined;
  /** The server's Retry-After, in ms, when it sent one. */
  readonly retryAfterMs: number | undefined;

  constructor(init: { code: string; message: string; status: number; retryable?: boolean; requestId?: string; retryAfterMs?: number; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.retryable = init.retryable ?? RETRYABLE_CODES.has(init.code);
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** Retry-After as delta-seconds or an HTTP-date (RFC 9110 10.2.3), in ms from now. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The error an answer carries: SPEC's envelope when the body is one, else the bare status. */
export function errorFromResponse(status: number, headers: { get(name: string): string | null }, bodyText: string): RepCoachError {
  const requestId = headers.get('x-request-id') ?? undefined;
  const retryAfterMs = parseRetryAfter(headers.get('retry-after'));
  let envelope: { error?: { code?: unknown; message?: unknown } } | undefined;
  try {
    envelope = JSON.parse(bodyText);
  } catch {
    envelope = undefined;
  }
  const code = envelope?.error?.code;
  const message = envelope?.error?.message;
  if (typeof code === 'string' && typeof message === 'string') return new RepCoachError({ code, message, status, requestId, retryAfterMs });
  return new RepCoachError({ code: `http_${status}`, message: `HTTP ${status}${bodyText ? `: ${bodyText.slice(0, 200)}` : ''}`, status, retryable: false, requestId, retryAfterMs });
}
