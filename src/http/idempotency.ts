// Idempotency-Key on POST /v1/uploads, POST /v1/jobs and POST /v1/jobs/{job_id}/cancel: route
// hooks around the records (idempotency/records.ts). Without the header nothing changes. The
// fingerprint is the method, the path and (for routes that read one) the body as canonical JSON,
// so the same key with a different request is 409 idempotency_key_reused.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { withUploadUrl, type Rebuild } from '../idempotency/bearer.js';
import { begin, checkKey, finish, hashOf, type Claim } from '../idempotency/records.js';
import type { Service } from '../service.js';
import { InvalidIdempotencyKey } from '../commands/errors.js';
import { keyOf } from './auth.js';

/** How many times a header was sent (rawHeaders alternates names and values, as they arrived). */
function timesSent(rawHeaders: string[], name: string): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === name) n++;
  return n;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim?: Claim;
  }
}

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Up to 255 printable ASCII characters, unique per request (a UUID). Within 24 hours the same key replays the first answer (status and body) with Idempotent-Replayed: true; with a different request it is 409 idempotency_key_reused. Retryable answers (429, 5xx) are not kept.',
    }),
  ),
});

/** Text written as is, beside the values still to write (canonical's work stack). */
class Literal {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/**
 * JSON with object keys sorted at every level: the same body however its keys were ordered. With
 * a stack of its own, not recursion: a 64 KiB body can nest 30,000 levels in a field the route
 * ignores, and the recursive version overflowed the call stack there (500 internal_error for a
 * request that gets 404 without the header; issue rx). The text is the recursive version's, byte
 * for byte, so records made before keep matching.
 */
export function canonical(root: unknown): string {
  let out = '';
  const work: unknown[] = [root];
  while (work.length > 0) {
    const value = work.pop();
    if (value instanceof Literal) {
      out += value.text;
    } else if (Array.isArray(value)) {
      work.push(new Literal(']'));
      for (let i = value.length - 1; i >= 0; i--) {
        work.push(value[i]);
        if (i > 0) work.push(new Literal(','));
      }
      out += '[';
    } else if (value && typeof value === 'object') {
      const keys = Object.keys(value).sort();
      work.push(new Literal('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push((value as Record<string, unknown>)[keys[i]!]);
        work.push(new Literal(`${JSON.stringify(keys[i])}:`));
        if (i > 0) work.push(new Literal(','));
      }
      out += '{';
    } else {
      out += JSON.stringify(value) ?? 'null';
    }
  }
  return out;
}


/**
 * `keep` turns an answer into what may be stored (no bearer value) plus what rebuilds it; without
 * it the answer is stored as sent.
 */
export function idempotent(svc: Service, keep: (body: string) => { body: string; rebuild?: Rebuild } = (body) => ({ body })) {
  return {
    async preHandler(request: FastifyRequest, reply: FastifyReply) {
      const header = request.headers['idempotency-key'];
      if (header === undefined) return;
      // Node joins a repeated header into one value ("a, b"): used as a key it would match neither
      // request's own key, so a retry sending only one of them would run again. Two keys are a
      // bad key, refused before anything is recorded or created. (One header whose value holds a
      // comma is a key like any other.)
      if (Array.isArray(header) || timesSent(request.raw.rawHeaders, 'idempotency-key') > 1) {
        throw new InvalidIdempotencyKey('The Idempotency-Key header was sent more than once; send exactly one key.');
      }
      const key = header;
      checkKey(key);
      const readsBody = request.routeOptions.schema?.body !== undefined;
      const fingerprint = hashOf(canonical([request.method, request.url.split('?')[0], readsBody ? request.body : null]));
      const outcome = await begin(svc.store, svc.clock, keyOf(request).key_id, key, fingerprint);
      if (outcome.kind === 'replay') {
        const body = outcome.rebuild ? await withUploadUrl(outcome.body, outcome.rebuild, (h, e, s) => svc.storage.uploadUrl(h, e, s)) : outcome.body;
        return reply.code(outcome.status).header('idempotent-replayed', 'true').type('application/json; charset=utf-8').send(body);
      }
      request.idempotencyClaim = outcome.claim;
    },
    async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
      const claim = request.idempotencyClaim;
      if (!claim) return payload;
      request.idempotencyClaim = undefined;
      try {
        const kept = keep(typeof payload === 'string' ? payload : String(payload ?? ''));
        await finish(svc.store, svc.clock, claim, reply.statusCode, kept.body, kept.rebuild);
      } catch (err) {
        // The answer still goes out; the unrecorded claim frees the key when its lock runs out.
        request.log.warn({ err: String(err) }, 'idempotency record not written');
      }
      return payload;
    },
  };
}
