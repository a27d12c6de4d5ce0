// Bearer authentication. Every failing case (missing, malformed, unknown, suspended, revoked) gets
// the same 401: the answer never says which.
import type { FastifyRequest } from 'fastify';
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

export function authenticate(svc: Service) {
  return async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const token = typeof header === 'string' ? BEARER.exec(header.trim())?.[1] : undefined;
    if (!token) throw new AuthenticationError();
    const row = guard(() => keyByHash(svc.readDb(), hashApiKey(token)));
    if (!row || row.status !== 'active') throw new AuthenticationError();
    request.apiKey = row;
  };
}

/** The authenticated key of a /v1 request (the hook above has run). */
export function keyOf(request: FastifyRequest): KeyRow {
  if (!request.apiKey) throw new AuthenticationError();
  return request.apiKey;
}
