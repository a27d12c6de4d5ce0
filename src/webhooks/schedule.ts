// When a failed delivery is tried again: exponential backoff from 5 s, doubling, each delay capped
// at 6 h, with ±25% jitter (so receivers coming back from an outage are not hit by every delivery
// at once), for 3 days from the job's end. About 23 attempts in all. WEBHOOK_RETRY_SCALE multiplies
// every delay and the window, so tests run the whole schedule in seconds.
export const RETRY_WINDOW_MS = 3 * 24 * 3600 * 1000;
const FIRST_RETRY_MS = 5_000;
const MAX_DELAY_MS = 6 * 3600 * 1000;

/** After failed attempt `attempt` (1-based): when to try again, or null to give up. */
export function nextAttemptAt(opts: { since: Date; failedAt: Date; attempt: number; scale: number; random?: () => number }): Date | null {
  const { since, failedAt, attempt, scale } = opts;
  const base = Math.min(MAX_DELAY_MS, FIRST_RETRY_MS * 2 ** Math.min(30, attempt - 1));
  const jitter = 0.75 + 0.5 * (opts.random ?? Math.random)();
  const at = failedAt.getTime() + base * jitter * scale;
  return at > since.getTime() + RETRY_WINDOW_MS * scale ? null : new Date(at);
}
