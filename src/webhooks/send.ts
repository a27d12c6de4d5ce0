// One delivery attempt: POST the signed body, no redirects followed, the answer's body discarded,
// bounded by a timeout. Any 2xx is a success; everything else (other statuses, refused or reset
// connections, timeouts, forbidden addresses) is a failed attempt to retry.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, literalHostAllowed } from './addresses.js';

export interface AttemptResult {
  statusCode: number | null;
  /** Empty on a 2xx; otherwise what went wrong, for the ledger and the operator. */
  error: string;
  durationMs: number;
}

export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  opts: { timeoutMs: number; allowPrivateHosts: boolean },
): Promise<AttemptResult> {
  const started = performance.now();
  const done = (statusCode: number | null, error: string): AttemptResult => ({ statusCode, error, durationMs: Math.round(performance.now() - started) });
  const target = new URL(url);
  if (!literalHostAllowed(target, opts.allowPrivateHosts)) return done(null, 'refused: the url names a non-public address');
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request(target, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'rep-coach-webhooks/1' },
      lookup: guardedLookup(opts.allowPrivateHosts) as never,
      timeout: opts.timeoutMs,
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      res.resume(); // the receiver's body means nothing to us
      res.on('error', () => undefined);
      resolve(done(status, status >= 200 && status < 300 ? '' : `receiver answered ${status}`));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(done(null, err.name === 'AbortError' ? `no answer within ${opts.timeoutMs} ms` : `${err.code ?? err.name}: ${err.message}`)));
    req.end(body);
  });
}
