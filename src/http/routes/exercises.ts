import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CatalogError } from '../../commands/errors.js';
import type { Service } from '../../service.js';
import { authErrors, errorResponses, ExerciseList } from '../schemas.js';

export const exerciseRoutes =
  (svc: Service): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/v1/exercises', {
        schema: {
          operationId: 'listExercises',
          summary: 'List the exercise catalog',
          description: 'The full catalog. It changes over time: fetch it live; only an id listed now is sure to be accepted by job submission.',
          tags: ['Exercises'],
          response: { 200: ExerciseList, ...errorResponses(...authErrors, 'catalog_error') },
        },
      }, async () => {
      try {
        return { exercises: svc.catalog().map(({ exercise_id, name, description }) => ({ exercise_id, name, description })) };
      } catch {
        throw new CatalogError();
      }
    });
  };
