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
  // Sealed in the vault first: the ledger records only its key id and fingerprint.
  const sealed = svc.vault.put(secret, now);
  try {
    await svc.ledger.handle(keyId, (s) =>
      decideWebhook({ type: 'RegisterEndpoint', endpointId, url, events: chosen, secretKeyId: sealed.keyId, secretFingerprint: sealed.fingerprint, maxEndpoints: MAX_ENDPOINTS_PER_KEY, now }, s),
    );
  } catch (err) {
    svc.vault.destroy(sealed.keyId); // refused or not recorded: the secret was never handed out
    throw err;
  }
  // The secret is shown here only; GET never returns it.
  return { id: endpointId, url, events: chosen, secret, created_at: now };
}

/** How long the replaced secret keeps signing after a rotation (both signatures are sent meanwhile). */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/**
 * A new secret for the endpoint, shown once in the answer. For ROTATION_OVERLAP_MS every delivery
 * carries a signature by each (Standard Webhooks: space-separated), so a receiver can switch at its
 * own pace; then the old one's data key is destroyed (sweeper). A secret replaced before its own
 * overlap ended (two rotations within 24 h) is destroyed at once.
 */
export async function rotateSecret(svc: Service, keyId: string, endpointId: string) {
  const row = await readFresh(svc, () => endpointById(svc.readDb(), endpointId));
  if (!row || row.key_id !== keyId || row.removed_at !== null) throw new WebhookEndpointNotFound();
  const secret = newWebhookSecret();
  const now = svc.clock().toISOString();
  const sealed = svc.vault.put(secret, now);
  let rotated;
  try {
    const decision = await svc.ledger.handle(keyId, (s) =>
      decideWebhook({ type: 'RotateSecret', endpointId, secretKeyId: sealed.keyId, secretFingerprint: sealed.fingerprint, overlapMs: ROTATION_OVERLAP_MS, now }, s),
    );
    rotated = decision.events[0];
  } catch (err) {
    svc.vault.destroy(sealed.keyId);
    throw err;
  }
  if (row.previous_key_id && row.previous_key_id !== row.secret_key_id) svc.vault.destroy(row.previous_key_id);
  const validUntil = rotated?.type === 'WebhookSecretRotated' ? rotated.data.previousValidUntil : new Date(Date.parse(now) + ROTATION_OVERLAP_MS).toISOString();
  return { ...view({ ...row }), secret, rotated_at: now, previous_secret_expires_at: validUntil };
}
export const listEndpoints = (svc: Service, keyId: string) => endpointsOfKey(svc.readDb(), keyId).map(view);

export async function removeEndpoint(svc: Service, keyId: string, endpointId: string): Promise<void> {
  const row = await readFresh(svc, () => endpointById(svc.readDb(), endpointId));
  if (!row || row.key_id !== keyId || row.removed_at !== null) throw new WebhookEndpointNotFound();
  await svc.ledger.handle(keyId, (s) => decideWebhook({ type: 'RemoveEndpoint', endpointId, now: svc.clock().toISOString() }, s));
  // Crypto-shredding: without its data key no copy of the sealed secret opens again. A crash right
  // here leaves the keys to the sweeper, which destroys those of removed endpoints.
  const fresh = endpointById(svc.readDb(), endpointId) ?? row;
  for (const k of new Set([row.secret_key_id, fresh.secret_key_id, row.previous_key_id, fresh.previous_key_id])) if (k) svc.vault.destroy(k);
}
