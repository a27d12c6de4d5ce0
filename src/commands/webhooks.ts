// Webhook endpoints and deliveries, decided against the key's folded state like every other
// command. The dispatcher claims a delivery with a lease (WebhookDeliveryAttempted) before it
// sends, and records the outcome after; a dispatcher that dies mid-send leaves its lease to run
// out, and the next claim is the next attempt, so every attempt stays in the key's ledger.
import type { LedgerEvent, WebhookEventType } from '../events/ledger.js';
import { AuthenticationError, OperatorError, WebhookEndpointLimit, WebhookEndpointNotFound } from './errors.js';
import { deliveryOf, endpointOf, type KeyState } from './state.js';

/** A finished delivery as the read model remembers it (it has left the decision state). */
export interface PastDelivery {
  endpointId: string;
  jobId: string;
  eventType: WebhookEventType;
  attempts: number;
}

export type WebhookCommand =
  | { type: 'RegisterEndpoint'; endpointId: string; url: string; events: WebhookEventType[]; secretKeyId: string; secretFingerprint: string; maxEndpoints: number; now: string }
  | { type: 'RemoveEndpoint'; endpointId: string; now: string }
  /** The new secret is already sealed in the vault under secretKeyId; the old one signs for overlapMs more. */
  | { type: 'RotateSecret'; endpointId: string; secretKeyId: string; secretFingerprint: string; overlapMs: number; now: string }
  | { type: 'ClaimDelivery'; deliveryId: string; worker: string; leaseUntil: string; now: string }
  | {
      type: 'RecordDeliveryOutcome';
      deliveryId: string;
      attempt: number;
      worker: string;
      statusCode: number | null;
      /** Empty when the receiver answered 2xx. */
      error: string;
      durationMs: number;
      /** Computed by the caller (jittered backoff); null when the retry window is over. */
      nextAttemptAt: string | null;
      now: string;
    }
  | { type: 'Redeliver'; deliveryId: string; past?: PastDelivery; now: string };

/** The error recorded on a delivery ended because its key was revoked (never sent). */
export const REVOKED_NOT_SENT = 'not sent: the API key was revoked';

const before = (a: string | undefined, b: string) => a !== undefined && Date.parse(a) > Date.parse(b);

export function decideWebhook(command: WebhookCommand, state: KeyState): LedgerEvent[] {
  const at = command.now;
  switch (command.type) {
    case 'RegisterEndpoint': {
      if (state.status !== 'active') throw new AuthenticationError();
      if (Object.keys(state.endpoints).length >= command.maxEndpoints) throw new WebhookEndpointLimit();
      const { endpointId, url, events, secretKeyId, secretFingerprint } = command;
      return [{ type: 'WebhookEndpointRegistered', data: { endpointId, url, events, secretKeyId, secretFingerprint, at } }];
    }
    case 'RotateSecret': {
      const endpoint = endpointOf(state, command.endpointId);
      if (!endpoint) throw new WebhookEndpointNotFound();
      const { endpointId, secretKeyId, secretFingerprint } = command;
      const previousValidUntil = new Date(Date.parse(at) + command.overlapMs).toISOString();
      return [{ type: 'WebhookSecretRotated', data: { endpointId, secretKeyId, secretFingerprint, previousKeyId: endpoint.secretKeyId, previousValidUntil, at } }];
    }
    case 'RemoveEndpoint': {
      if (!endpointOf(state, command.endpointId)) throw new WebhookEndpointNotFound();
      return [{ type: 'WebhookEndpointRemoved', data: { endpointId: command.endpointId, at } }];
    }
    case 'ClaimDelivery': {
      const d = deliveryOf(state, command.deliveryId);
      // Gone (delivered, given up, endpoint removed), not due yet, or another dispatcher holds it.
      if (!d || before(d.nextAttemptAt, at) || before(d.leaseUntil, at)) return [];
      const { deliveryId, worker, leaseUntil } = command;
      if (state.status === 'revoked') {
        // A revoked key's results go nowhere (README, choices table): the key can no longer read a
        // job nor manage (delete, rotate) its endpoints, and a key is revoked when it leaked or the
        // partnership ended, so an endpoint may not even be the partner's. The delivery ends here,
        // unsent, with the reason in the ledger for the auditor; no request is made.
        const attempt = d.attempt + 1;
        return [
          { type: 'WebhookDeliveryAttempted', data: { deliveryId, attempt, worker, leaseUntil: at, at } },
          { type: 'WebhookDeliveryFailed', data: { deliveryId, attempt, statusCode: null, error: REVOKED_NOT_SENT, durationMs: 0, nextAttemptAt: null, at } },
        ];
      }
      return [{ type: 'WebhookDeliveryAttempted', data: { deliveryId, attempt: d.attempt + 1, worker, leaseUntil, at } }];
    }
    case 'RecordDeliveryOutcome': {
      const d = deliveryOf(state, command.deliveryId);
      // Our lease ran out and the delivery moved on (or was removed): this attempt is superseded.
      if (!d || d.worker !== command.worker || d.attempt !== command.attempt) return [];
      const { deliveryId, attempt, statusCode, durationMs } = command;
      if (statusCode !== null && statusCode >= 200 && statusCode < 300) {
        return [{ type: 'WebhookDeliverySucceeded', data: { deliveryId, attempt, statusCode, durationMs, at } }];
      }
      return [{ type: 'WebhookDeliveryFailed', data: { deliveryId, attempt, statusCode, error: command.error, durationMs, nextAttemptAt: command.nextAttemptAt, at } }];
    }
    case 'Redeliver': {
      const live = deliveryOf(state, command.deliveryId);
      const source = live ? { endpointId: live.endpointId, jobId: live.jobId, eventType: live.eventType, attempts: live.attempt } : command.past;
      if (!source) throw new OperatorError(`no webhook delivery ${command.deliveryId}`);
      if (state.status === 'revoked') throw new OperatorError(`the key of delivery ${command.deliveryId} is revoked: its results are not sent (README, choices table)`);
      if (live && before(live.leaseUntil, at)) throw new OperatorError(`delivery ${command.deliveryId} is being attempted right now`);
      if (!endpointOf(state, source.endpointId)) throw new OperatorError(`the endpoint of delivery ${command.deliveryId} was removed`);
      return [{ type: 'WebhookRedeliveryRequested', data: { deliveryId: command.deliveryId, ...source, at } }];
    }
    default: {
      const exhaustive: never = command;
      return exhaustive;
    }
  }
}
