// Bearer authentication. Every failing case (missing, malformed, unknown, suspended, revoked) gets
// the same 401: the answer never says which.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticationError } from '../commands/errors.js';
import { guard } from '../events/store/sqlite.js';
import { hashApiKey } from '../ids.js';
import { keyByHash, type KeyRow } from '../projections/identity.js';
import type { Service } from '../service.js';
import { whileUnchanged } from '../projections/while-unchanged.js';

/** What authentication knows of a key: not its usage counters, which each job moves (read them fresh). */
export type AuthKey = Pick<KeyRow, 'key_id' | 'partner_id' | 'partner_name' | 'status'>;

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: AuthKey | null;
  }
}

// The auth scheme is case-insensitive (RFC 9110 11.1); the token is taken as is.
const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]{1,512})$/i;

/** Keys held by token at most (the map empties on any change anyway). */
const MAX_HELD_KEYS = 10_000;

/**
 * The /v1 onRequest hook: the key (Cache-Control: no-store is already set, by app.ts's first hook,
 * so an error keeps it). Callback style: it runs on every request (an async hook costs a promise
 * per request).
 *
 * Keys found are held by their token while no key may have changed (Service.keysVersion: a commit
 * by any other process, the admin CLI's revocation included, a swap, or a key event this process
 * projected empties the map; this process's own job events do not, issue 22w), which spares each
 * request the SHA-256 of its token and the point read (issue 22). Held by the token itself, not
 * its hash, since skipping the hash is half the gain; the tokens are in this process's memory as
 * requests arrive anyway. Unknown tokens are not held.
 */
export function authenticate(svc: Service) {
  const keys = whileUnchanged<string, AuthKey>(svc.keysVersion, MAX_HELD_KEYS);
  const read = (hash: string): AuthKey | undefined => {
    const row = keyByHash(svc.readDb(), hash);
    return row && { key_id: row.key_id, partner_id: row.partner_id, partner_name: row.partner_name, status: row.status };
  };
  const lookUp = (token: string) => keys(token, () => read(hashApiKey(token)));
  return (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    const header = request.headers.authorization;
    const token = typeof header === 'string' ? BEARER.exec(header.trim())?.[1] : undefined;
    if (!token) return done(new AuthenticationError());
    let row: AuthKey | undefined;
    try {
      row = guard(() => lookUp(token));
    } catch (err) {
      return done(err as Error);
    }
    if (!row || row.status !== 'active') return done(new AuthenticationError());
    request.apiKey = row;
    done();
  };
}

/** The authenticated key of a /v1 request (the hook above has run). */
export function keyOf(request: FastifyRequest): AuthKey {
  if (!request.apiKey) throw new AuthenticationError();
  return request.apiKey;
}
