// The one place where errors become SPEC's envelope and an HTTP status. 5xx never leak internals.
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, MalformedRequest, MethodNotAllowed, NotFound, PayloadTooLarge, RequestTimeout, StorageStatUnavailable, StoreUnavailable } from '../commands/errors.js';
import { StoreUnavailableError } from '../events/store/port.js';
import { StorageUnavailableError } from '../storage/port.js';

/**
 * Query parameters in words a partner can act on: Ajv's own ("must match pattern \"^...$\"", or
 * one "must be equal to constant" per allowed value) names a regular expression, not the rule. A
 * parameter given twice arrives as an array, refused by the same sentence.
 */
const QUERY_WORDS: Record<string, string> = {
  '/limit': 'limit must be a whole number from 1 to 1000, given once',
  '/cursor': 'cursor must be the next_cursor of the previous page, given once',
  '/status': 'status must be one of queued, processing, completed, failed, cancelled, given once',
};

function plainWords(fe: Partial<FastifyError>): string | undefined {
  const errors = fe.validation ?? [];
  if (fe.validationContext === 'querystring') return QUERY_WORDS[(errors[0]?.instancePath ?? '').split('/').slice(0, 2).join('/')];
  // A union of literals (webhook event types): Ajv lists one "must be equal to constant" per
  // value, then "must match a schema in anyOf". Said once, with the values.
  const anyOf = errors.find((e) => e.keyword === 'anyOf');
  const values = errors.filter((e) => e.keyword === 'const' && e.instancePath === anyOf?.instancePath).map((e) => String(e.params.allowedValue));
  if (!anyOf || values.length === 0) return undefined;
  return `${fe.validationContext ?? 'body'}${anyOf.instancePath} must be one of ${values.join(', ')}`;
}

export function toEnvelope(err: unknown): { status: number; code: string; message: string } {
  if (err instanceof DomainError) return { status: err.status, code: err.code, message: err.message };
  if (err instanceof StoreUnavailableError) return toEnvelope(new StoreUnavailable());
  if (err instanceof StorageUnavailableError) return toEnvelope(new StorageStatUnavailable());
  const fe = err as Partial<FastifyError>;
  if (fe.validation) return toEnvelope(new MalformedRequest(`Malformed request: ${plainWords(fe) ?? fe.message}.`));
  if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return toEnvelope(new PayloadTooLarge());
  if (fe.statusCode === 408) return toEnvelope(new RequestTimeout());
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status, code: 'bad_request', message: 'The request could not be understood.' };
  return { status: 500, code: 'internal_error', message: 'An unexpected error occurred.' };
}

/**
 * Retry-After on every 429 and 503 (and on the retryable 409 idempotency_key_in_use): the
 * decider's figure when it knows one (spot window, unclaimed bytes), else a fixed hint per code.
 */
const RETRY_AFTER_SECONDS: Record<string, number> = {
  store_unavailable: 1,
  storage_stat_unavailable: 5,
  idempotency_key_in_use: 1,
  // Does not clear by waiting (SPEC): an hour keeps well-behaved clients from hammering.
  usage_limit_exceeded: 3600,
};

export function send(reply: FastifyReply, err: unknown) {
  const { status, code, message } = toEnvelope(err);
  const known = err instanceof DomainError ? err.retryAfterSeconds : undefined;
  if (status === 429 || status === 503 || code in RETRY_AFTER_SECONDS) reply.header('retry-after', String(known ?? RETRY_AFTER_SECONDS[code] ?? 1));
  // RFC 9110 11.6.1: a 401 names the scheme to authenticate with. The same value whatever the
  // cause (no error="invalid_token"), so the answer still never says which case applied (SPEC).
  if (status === 401) reply.header('www-authenticate', 'Bearer');
  return reply.code(status).send({ error: { code, message } });
}

/** Path patterns of every route, to tell an unknown path (404) from a wrong method (405). */
export function trackRoutes(app: FastifyInstance) {
  const routes: { pattern: RegExp; methods: Set<string> }[] = [];
  app.addHook('onRoute', (route) => {
    // Exactly what the router matches: no trailing slash, and a parameter may be empty.
    const source = '^' + route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]*') + '$';
    const methods = [route.method].flat().map((m) => m.toUpperCase());
    const existing = routes.find((r) => r.pattern.source === source);
    if (existing) methods.forEach((m) => existing.methods.add(m));
    else routes.push({ pattern: new RegExp(source), methods: new Set(methods) });
  });
  return (path: string): string[] => routes.filter((r) => r.pattern.test(path)).flatMap((r) => [...r.methods]);
}

export function installErrorHandling(app: FastifyInstance, allowedMethods: (path: string) => string[]) {
  app.setErrorHandler((err, request: FastifyRequest, reply) => {
    const { status } = toEnvelope(err);
    if (status >= 500) request.log.error({ err }, 'request failed');
    return send(reply, err);
  });
  app.setNotFoundHandler((request, reply) => {
    const allowed = allowedMethods(request.url.split('?')[0] ?? '/');
    if (allowed.length > 0) {
      reply.header('allow', [...new Set(allowed)].join(', '));
      return send(reply, new MethodNotAllowed());
    }
    return send(reply, new NotFound());
  });
}

/** The envelope written straight to a socket, for requests that never reach a route. */
function writeRaw(socket: Duplex, err: unknown) {
  const { status, code, message } = toEnvelope(err);
  const body = JSON.stringify({ error: { code, message } });
  // The socket is ours now (CONNECT, upgrade) or about to be dropped (parse error): free it once
  // the answer is out, and if the peer is gone, at once; a half-closed socket would block close().
  socket.on('error', () => socket.destroy());
  if (!socket.writable) return void socket.destroy();
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, () => socket.destroy());
}

/** Requests Node's parser refuses (bad framing, NUL bytes, oversized headers) still get the envelope. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const statusCode = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  writeRaw(socket, { statusCode });
}

/** What Node would otherwise answer with an empty body, a dropped socket or not at all: CONNECT, upgrades, unknown Expect values. */
export function answerOutsideRoutes(server: Server) {
  server.on('connect', (_req, socket: Duplex) => writeRaw(socket, new MethodNotAllowed()));
  // No protocol upgrades are offered. Without this listener Node serves an upgrade request as a
  // plain one but hands its body to the (absent) upgrade: a route that reads the body waits forever.
  server.on('upgrade', (_req, socket: Duplex) => writeRaw(socket, { statusCode: 400 }));
  server.on('checkExpectation', (_req, res) => {
    const { status, code, message } = toEnvelope({ statusCode: 417 });
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff', 'cache-control': 'no-store', connection: 'close' }).end(JSON.stringify({ error: { code, message } }));
  });
}
