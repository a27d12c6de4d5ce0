import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { usageOf } from '../../projections/identity.js';
import { keyOf } from '../auth.js';
import { errorResponses, Identity } from '../schemas.js';

export const identityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/identity', { schema: { response: { 200: Identity, ...errorResponses(401, 503) } } }, async (request) => {
    const key = keyOf(request);
    return { partner_id: key.partner_id, partner_name: key.partner_name, status: key.status, usage: usageOf(key) };
  });
};
