// The OpenAPI 3.1 `webhooks` section: what a partner's endpoint receives. One entry per event type,
// the body built from the same Job schema GET /v1/jobs/{job_id} answers with.
import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENT_TYPES } from '../events/ledger.js';
import { Job } from './schemas.js';

const header = (name: string, description: string) => ({ name, in: 'header' as const, required: true, description, schema: { type: 'string' } });

const SIGNED = [
  header('webhook-id', 'The delivery id: the same on every retry of this event to this endpoint (deduplicate on it).'),
  header('webhook-timestamp', 'Seconds since the epoch when this attempt was signed; refuse old ones (the standardwebhooks libraries allow 5 minutes).'),
  header('webhook-signature', 'v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body" keyed with the base64-decoded part of the endpoint secret after whsec_>.'),
];

const STATUS: Record<(typeof WEBHOOK_EVENT_TYPES)[number], string> = {
  'job.completed': 'completed, with its result',
  'job.failed': 'failed, with error_code and message',
  'job.cancelled': 'cancelled',
};

const entries = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type) => [
    type,
    {
      post: {
        operationId: `on${type.split('.').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`,
        summary: `A job ${STATUS[type]}`,
        description:
          'Signed per Standard Webhooks: verify it with any standardwebhooks library and the endpoint secret. Any 2xx acknowledges it; anything else, or no answer within 10 s, is retried with exponential backoff and jitter for up to 3 days (at least once: deduplicate on webhook-id). Nothing is sent once the API key is revoked: a delivery due after the revocation ends unsent.',
        tags: ['Webhooks'],
        security: [],
        parameters: SIGNED,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: Type.Object({
                type: Type.Literal(type),
                timestamp: Type.String({ format: 'date-time', description: 'When the job reached this status.' }),
                data: Type.Unsafe({ ...Job, description: 'The job exactly as GET /v1/jobs/{job_id} returns it.' }),
              }),
            },
          },
        },
        responses: {
          '200': { description: 'Acknowledged (any 2xx).' },
          '400': { description: 'Refused (e.g. the signature did not verify): retried later like any non-2xx.' },
        },
      },
    },
  ]),
);

/** As plain JSON (the document serves it so; TypeBox's symbols dropped). */
export const webhookDocs = JSON.parse(JSON.stringify(entries));
