// One JSON request to the API with SPEC's retry rules: Bearer key, Idempotency-Key when given,
// the typed error on any non-2xx answer, retries only for retryable codes (honouring Retry-After)
// and for connection failures of requests that are safe to repeat.
import { errorFromResponse, NETWORK_ERROR, RepCoachError } from './errors.js';
import { retryDelay, sleep, type RetryPolicy } from './retry.js';

export interface RequestOptions {
  signal?: AbortSignal;
  /** Sent as Idempotency-Key: the server replays the first answer to a repeat within 24 h. */
  idempotencyKey?: string;
  /** Extra request headers (e.g. X-Request-Id). */
  headers?: Record<string, string>;
}

export interface ApiRequest extends RequestOptions {
  method: string;
  /** Path with its parameters already substituted, e.g. /v1/jobs/123. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Transport {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  retry: RetryPolicy;
  userAgent: string;
}

export async function send<T>(t: Transport, req: ApiRequest): Promise<ApiResponse<T>> {
  const url = new URL(t.baseUrl.replace(/\/+$/, '') + req.path);
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': t.userAgent, authorization: `Bearer ${t.apiKey}`, ...req.headers };
  if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
  let body: string | undefined;
  if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  const repeatable = req.method === 'GET' || req.method === 'HEAD' || req.idempotencyKey !== undefined;

  for (let attempt = 0; ; attempt++) {
    let res: Response;
    let text: string;
    try {
      res = await t.fetch(url, { method: req.method, headers, body, signal: req.signal });
      text = await res.text();
    } catch (cause) {
      if (req.signal?.aborted) throw req.signal.reason;
      const err = new RepCoachError({ code: NETWORK_ERROR, message: `no answer from ${url.origin}: ${(cause as Error).message}`, status: 0, retryable: repeatable, cause });
      if (!repeatable || attempt >= t.retry.maxRetries) throw err;
      await sleep(retryDelay(t.retry, attempt, undefined), req.signal);
      continue;
    }
    if (res.ok) {
      try {
        return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T };
      } catch (cause) {
        // A 2xx that is not JSON came from something in front of the API (a proxy, a portal).
        throw new RepCoachError({ code: 'invalid_response', message: `HTTP ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`, status: res.status, retryable: false, requestId: res.headers.get('x-request-id') ?? undefined, cause });
      }
    }
    const err = errorFromResponse(res.status, res.headers, text);
    if (!err.retryable || attempt >= t.retry.maxRetries) throw err;
    const wait = retryDelay(t.retry, attempt, err.retryAfterMs);
    if (wait > t.retry.maxDelayMs) throw err;
    await sleep(wait, req.signal);
  }
}
