import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { usageOf } from '../../projections/identity.js';
import { keyOf } from '../auth.js';
import { authErrors, errorResponses, Identity } from '../schemas.js';

export const identityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/identity',
    {
      schema: {
        operationId: 'getIdentity',
        summary: "Identify the calling partner and the key's usage",
        description: 'usage has the same shape for capped and uncapped keys: limit and remaining are null when uncapped.',
        tags: ['Identity'],
        response: { 200: Identity, ...errorResponses(...authErrors) },
      },
    },
    async (request) => {
      const key = keyOf(request);
      return { partner_id: key.partner_id, partner_name: key.partner_name, status: key.status, usage: usageOf(key) };
    },
  );
};
