// Webhook endpoints (issue 11): partners register where job.completed, job.failed and
// job.cancelled are sent, signed per Standard Webhooks. Scoped to the key: a foreign id is 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Service } from '../../service.js';
import { listEndpoints, registerEndpoint, removeEndpoint, rotateSecret } from '../../webhooks/endpoints.js';
import { keyOf } from '../auth.js';
import { authErrors, CreateWebhookEndpointBody, errorResponses, NoContent, WebhookEndpointCreated, WebhookEndpointList, WebhookEndpointParams, WebhookSecretRotated } from '../schemas.js';

export const webhookRoutes =
  (svc: Service): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/webhook-endpoints',
      {
        schema: {
          summary: 'Register a webhook endpoint',
          description: 'The answer carries the signing secret; it is never shown again.',
          operationId: 'createWebhookEndpoint',
          tags: ['Webhooks'],
          body: CreateWebhookEndpointBody,
          response: {
            201: WebhookEndpointCreated,
            ...errorResponses(...authErrors, 'malformed_request', 'payload_too_large', 'invalid_webhook_url', 'webhook_url_not_allowed', 'webhook_endpoint_limit_reached'),
          },
        },
      },
      async (request, reply) => {
        const created = await registerEndpoint(svc, keyOf(request).key_id, request.body.url, request.body.events);
        return reply.code(201).send(created);
      },
    );

    app.get(
      '/v1/webhook-endpoints',
      {
        schema: {
          summary: 'List webhook endpoints',
          description: 'Without their secrets.',
          operationId: 'listWebhookEndpoints',
          tags: ['Webhooks'],
          response: { 200: WebhookEndpointList, ...errorResponses(...authErrors) },
        },
      },
      async (request) => ({ webhook_endpoints: listEndpoints(svc, keyOf(request).key_id) }),
    );

    app.post(
      '/v1/webhook-endpoints/:id/rotate-secret',
      {
        schema: {
          summary: 'Rotate the signing secret of a webhook endpoint',
          description:
            'Answers the new secret (shown only here). For 24 hours deliveries are signed by both the new and the previous secret (two space-separated signatures in webhook-signature), then by the new one only; a secret replaced again within its overlap stops signing at once.',
          operationId: 'rotateWebhookSecret',
          tags: ['Webhooks'],
          params: WebhookEndpointParams,
          response: { 200: WebhookSecretRotated, ...errorResponses(...authErrors, 'webhook_endpoint_not_found') },
        },
      },
      async (request) => rotateSecret(svc, keyOf(request).key_id, request.params.id),
    );

    app.delete(
      '/v1/webhook-endpoints/:id',
      {
        schema: {
          summary: 'Delete a webhook endpoint',
          description: 'Pending deliveries to it are dropped.',
          operationId: 'deleteWebhookEndpoint',
          tags: ['Webhooks'],
          params: WebhookEndpointParams,
          response: { 204: NoContent, ...errorResponses(...authErrors, 'webhook_endpoint_not_found') },
        },
      },
      async (request, reply) => {
        await removeEndpoint(svc, keyOf(request).key_id, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
