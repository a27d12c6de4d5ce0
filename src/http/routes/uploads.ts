import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { mintSpot, uploadStatus } from '../../commands/partner.js';
import type { Service } from '../../service.js';
import { keyOf } from '../auth.js';
import { errorResponses, HandleParams, UploadSpot, UploadStatus } from '../schemas.js';

export const uploadRoutes =
  (svc: Service): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post('/v1/uploads', { schema: { response: { 201: UploadSpot, ...errorResponses(401, 429, 503) } } }, async (request, reply) => {
      const spot = await mintSpot(svc, keyOf(request).key_id);
      return reply.code(201).header('cache-control', 'no-store').send(spot);
    });

    app.get(
      '/v1/uploads/:handle',
      { schema: { params: HandleParams, response: { 200: UploadStatus, ...errorResponses(401, 404, 503) } } },
      async (request) => uploadStatus(svc, keyOf(request).key_id, request.params.handle),
    );
  };
