// What partners do with webhook endpoints (POST, GET, DELETE /v1/webhook-endpoints): the I/O around
// the decider (the URL's addresses, the secret) and the read-model lookups.
import { randomBytes } from 'node:crypto';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../events/ledger.js';
import { readFresh } from '../commands/partner.js';
import { decideWebhook } from '../commands/webhooks.js';
import { WebhookEndpointNotFound } from '../commands/errors.js';
import { endpointById, endpointsOfKey, type EndpointRow } from '../projections/webhooks.js';
import type { Service } from '../service.js';
import { vetWebhookUrl } from './addresses.js';
import { newWebhookSecret } from './signing.js';

/** Bounds the decision state and the fan-out of one job's end. */
export const MAX_ENDPOINTS_PER_KEY = 16;

export const newEndpointId = (): string => `we_${randomBytes(12).toString('base64url')}`;

const view = (row: EndpointRow) => ({ id: row.endpoint_id, url: row.url, events: JSON.parse(row.events) as WebhookEventType[], created_at: row.created_at });

export async function registerEndpoint(svc: Service, keyId: string, url: string, events: readonly WebhookEventType[] | undefined) {
  await vetWebhookUrl(url, svc.config.webhooks.allowPrivateHosts);
  // Stored in catalog order, once each, whatever order the partner gave.
  const chosen = WEBHOOK_EVENT_TYPES.filter((t) => (events ?? WEBHOOK_EVENT_TYPES).includes(t));
  const endpointId = newEndpointId();
  const secret = newWebhookSecret();
  const now = svc.clock().toISOString();
  await svc.ledger.handle(keyId, (s) =>
    decideWebhook({ type: 'RegisterEndpoint', endpointId, url, events: chosen, secret, maxEndpoints: MAX_ENDPOINTS_PER_KEY, now }, s),
  );
  // The secret is shown here only; GET never returns it.
  return { id: endpointId, url, events: chosen, secret, created_at: now };
}

export const listEndpoints = (svc: Service, keyId: string) => endpointsOfKey(svc.readDb(), keyId).map(view);

export async function removeEndpoint(svc: Service, keyId: string, endpointId: string): Promise<void> {
  const row = await readFresh(svc, () => endpointById(svc.readDb(), endpointId));
  if (!row || row.key_id !== keyId || row.removed_at !== null) throw new WebhookEndpointNotFound();
  await svc.ledger.handle(keyId, (s) => decideWebhook({ type: 'RemoveEndpoint', endpointId, now: svc.clock().toISOString() }, s));
}
