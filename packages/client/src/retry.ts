// When and how long to wait before trying a request again. Only what SPEC's error table calls
// retryable is retried, plus a connection that failed before any answer when the request is safe
// to repeat (a GET, a PUT of the same bytes, or a POST carrying an Idempotency-Key).

export interface RetryPolicy {
  /** Retries after the first attempt. Default 4. */
  maxRetries: number;
  /** Longest single wait; a Retry-After beyond it is not waited for (the error is thrown). Default 5 min. */
  maxDelayMs: number;
  /** Backoff without Retry-After: base * 2^attempt with full jitter, capped at 30 s. Default 1 s. */
  baseDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 4, maxDelayMs: 5 * 60_000, baseDelayMs: 1000 };

/** The wait before retry number `attempt` (0 = first retry): the server's Retry-After when given. */
export function retryDelay(policy: RetryPolicy, attempt: number, retryAfterMs: number | undefined, random = Math.random): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const cap = Math.min(30_000, policy.baseDelayMs * 2 ** attempt);
  return Math.round(cap / 2 + (random() * cap) / 2);
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
