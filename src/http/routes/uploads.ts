import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { mintSpot, uploadStatus } from '../../commands/partner.js';
import type { Service } from '../../service.js';
import { keyOf } from '../auth.js';
import { authErrors, errorResponses, HandleParams, UploadSpot, UploadStatus } from '../schemas.js';

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
          response: { 201: UploadSpot, ...errorResponses(...authErrors, 'spots_per_window_exceeded', 'unclaimed_bytes_exceeded', 'storage_stat_unavailable') },
        },
      },
      async (request, reply) => {
        const spot = await mintSpot(svc, keyOf(request).key_id);
        return reply.code(201).header('cache-control', 'no-store').send(spot);
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
