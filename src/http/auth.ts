// Bearer authentication. Every failing case (missing, malformed, unknown, suspended, revoked) gets
// the same 401: the answer never says which.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticationError } from '../commands/errors.js';
import { guard } from '../events/store/sqlite.js';
import { hashApiKey } from '../ids.js';
import { keyByHash, type KeyRow } from '../projections/identity.js';
import type { Service } from '../service.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: KeyRow | null;
  }
}

// The auth scheme is case-insensitive (RFC 9110 11.1); the token is taken as is.
const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]{1,512})$/i;

/**
 * The /v1 onRequest hook: the key (Cache-Control: no-store is already set, by app.ts's first hook,
 * so an error keeps it). Callback style: it runs on every request (an async hook costs a promise
 * per request).
 */
export function authenticate(svc: Service) {
  return (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    const header = request.headers.authorization;
    const token = typeof header === 'string' ? BEARER.exec(header.trim())?.[1] : undefined;
    if (!token) return done(new AuthenticationError());
    let row: KeyRow | undefined;
    try {
      row = guard(() => keyByHash(svc.readDb(), hashApiKey(token)));
    } catch (err) {
      return done(err as Error);
    }
    if (!row || row.status !== 'active') return done(new AuthenticationError());
    request.apiKey = row;
    done();
  };
}

/** The authenticated key of a /v1 request (the hook above has run). */
export function keyOf(request: FastifyRequest): KeyRow {
  if (!request.apiKey) throw new AuthenticationError();
  return request.apiKey;
}
