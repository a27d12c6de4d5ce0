import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { mintSpot, uploadStatus } from '../../commands/partner.js';
import { DomainError } from '../../commands/errors.js';
import type { KeyState } from '../../commands/state.js';
import { spotWindow } from '../../commands/uploads.js';
import type { Service } from '../../service.js';
import { keyOf } from '../auth.js';
import { withoutUploadUrl } from '../../idempotency/bearer.js';
import { IdempotencyHeaders, idempotent } from '../idempotency.js';
import { authErrors, errorResponses, idempotencyErrors, ReplayHeaders, withHeaders, HandleParams, UploadSpot, UploadStatus } from '../schemas.js';

export const uploadRoutes =
  (svc: Service): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/uploads',
      {
        schema: {
          operationId: 'createUpload',
          summary: 'Mint an upload spot',
          description: 'A single-use handle and a signed URL, valid 900 s. PUT the raw video bytes to upload_url (no Authorization header); the URL is a bearer credential, never log it.',
          tags: ['Uploads'],
          headers: IdempotencyHeaders,
          response: {
            201: withHeaders(UploadSpot, {
              ...ReplayHeaders,
              'ratelimit-policy': { type: 'string', description: 'The spot window, e.g. "spots";q=100;w=3600 (IETF httpapi RateLimit headers draft); also on 429.' },
              ratelimit: { type: 'string', description: 'Mints left and seconds until the oldest mint leaves the window, e.g. "spots";r=99;t=3600; also on 429.' },
            }),
            ...errorResponses(...authErrors, 'spots_per_window_exceeded', 'unclaimed_bytes_exceeded', 'storage_stat_unavailable', ...idempotencyErrors),
          },
        },
        // The record keeps the spot without its signed URL; a replay signs it again (idempotency/bearer.ts).
        ...idempotent(svc, (body) =>
          withoutUploadUrl(body, ({ expiresAt }) => new Date(Date.parse(expiresAt) - svc.config.spotTtlSeconds * 1000).toISOString()),
        ),
      },
      async (request, reply) => {
        const keyId = keyOf(request).key_id;
        const { spotsPerWindow, spotsWindowSeconds: windowSeconds } = svc.config;
        // IETF httpapi RateLimit headers (draft-ietf-httpapi-ratelimit-headers): the spot window.
        const rateLimit = (state: KeyState) => {
          const w = spotWindow(state, svc.clock().toISOString(), { spotsPerWindow, windowSeconds });
          reply.header('ratelimit-policy', `"spots";q=${spotsPerWindow};w=${windowSeconds}`).header('ratelimit', `"spots";r=${w.remaining};t=${w.resetSeconds}`);
        };
        try {
          const { spot, state } = await mintSpot(svc, keyId);
          rateLimit(state);
          return reply.code(201).send(spot);
        } catch (err) {
          if (err instanceof DomainError && err.status === 429) await svc.ledger.load(keyId).then((l) => rateLimit(l.state), () => undefined);
          throw err;
        }
      },
    );

    app.get(
      '/v1/uploads/:handle',
      {
        schema: {
          operationId: 'getUpload',
          summary: "Read an upload spot's state",
          description: 'minted, uploaded (bytes landed), claimed (by a job) or expired.',
          tags: ['Uploads'],
          params: HandleParams,
          response: { 200: UploadStatus, ...errorResponses(...authErrors, 'upload_not_found') },
        },
      },
      async (request) => uploadStatus(svc, keyOf(request).key_id, request.params.handle),
    );
  };
