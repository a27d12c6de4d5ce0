import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CatalogError } from '../../commands/errors.js';
import type { Service } from '../../service.js';
import { errorResponses, ExerciseList } from '../schemas.js';

export const exerciseRoutes =
  (svc: Service): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/v1/exercises', { schema: { response: { 200: ExerciseList, ...errorResponses(401, 500) } } }, async () => {
      try {
        return { exercises: svc.catalog().map(({ exercise_id, name, description }) => ({ exercise_id, name, description })) };
      } catch {
        throw new CatalogError();
      }
    });
  };
