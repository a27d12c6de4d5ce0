import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { keyById, usageOf } from '../../projections/identity.js';
import type { Service } from '../../service.js';
import { AuthenticationError } from '../../commands/errors.js';
import { keyOf } from '../auth.js';
import { authErrors, errorResponses, Identity } from '../schemas.js';

export const identityRoutes = (svc: Service): FastifyPluginAsyncTypebox => async (app) => {
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
      // Usage read now: the key authentication holds is not updated by jobs (http/auth.ts).
      const key = keyById(svc.readDb(), keyOf(request).key_id);
      if (!key) throw new AuthenticationError();
      return { partner_id: key.partner_id, partner_name: key.partner_name, status: key.status, usage: usageOf(key) };
    },
  );
};
