// `admin webhooks ...`: every delivery of a key with every attempt (read from the key's ledger, as
// an auditor would), and redelivering one.
import { OperatorError } from '../commands/errors.js';
import { decideWebhook } from '../commands/webhooks.js';
import { ledgerStream } from '../events/ledger.js';
import { keyById } from '../projections/identity.js';
import { deliveriesOfKey, deliveryById, endpointById } from '../projections/webhooks.js';
import { printJson, type Command } from './command.js';

interface Attempt {
  attempt: number;
  started_at: string;
  worker: string;
  outcome: 'succeeded' | 'failed' | 'no outcome (dispatcher stopped or lease lost)';
  status_code?: number | null;
  error?: string;
  duration_ms?: number;
  finished_at?: string;
}

export const webhooks: Record<string, Command> = {
  deliveries: {
    usage: 'webhooks deliveries KEY_ID',
    summary: "a key's webhook deliveries, oldest first, one JSON line each with every attempt from the ledger",
    details: 'state is pending, succeeded, failed (retry window over) or endpoint_removed.',
    args: ['KEY_ID'],
    async run({ positionals, service, out }) {
      const keyId = positionals[0]!;
      const svc = await service();
      if (!keyById(svc.readDb(), keyId)) throw new OperatorError(`no key ${keyId}`);
      const attempts = new Map<string, Attempt[]>();
      for (const e of await svc.store.readStream(ledgerStream(keyId))) {
        if (e.type === 'WebhookDeliveryAttempted') {
          const list = attempts.get(e.data.deliveryId) ?? [];
          list.push({ attempt: e.data.attempt, started_at: e.data.at, worker: e.data.worker, outcome: 'no outcome (dispatcher stopped or lease lost)' });
          attempts.set(e.data.deliveryId, list);
        } else if (e.type === 'WebhookDeliverySucceeded' || e.type === 'WebhookDeliveryFailed') {
          const a = attempts.get(e.data.deliveryId)?.find((x) => x.attempt === e.data.attempt);
          if (!a) continue;
          Object.assign(a, {
            outcome: e.type === 'WebhookDeliverySucceeded' ? 'succeeded' : 'failed',
            status_code: e.data.statusCode,
            ...(e.type === 'WebhookDeliveryFailed' ? { error: e.data.error } : {}),
            duration_ms: e.data.durationMs,
            finished_at: e.data.at,
          });
        }
      }
      for (const d of deliveriesOfKey(svc.readDb(), keyId)) {
        printJson(out, {
          delivery_id: d.delivery_id,
          endpoint_id: d.endpoint_id,
          url: endpointById(svc.readDb(), d.endpoint_id)?.url ?? null,
          event_type: d.event_type,
          job_id: d.job_id,
          state: d.state,
          attempts: d.attempts,
          next_attempt_at: d.next_attempt_at,
          last_status: d.last_status,
          last_error: d.last_error,
          created_at: d.created_at,
          history: attempts.get(d.delivery_id) ?? [],
        });
      }
    },
  },
  redeliver: {
    usage: 'webhooks redeliver DELIVERY_ID',
    summary: 'send a delivery again now, delivered or given up (same webhook-id; the 3-day retry window restarts)',
    details: 'A running server (npm start) sends it within a second; the outcome shows in webhooks deliveries.',
    args: ['DELIVERY_ID'],
    async run({ positionals, service, out }) {
      const deliveryId = positionals[0]!;
      const svc = await service();
      const row = deliveryById(svc.readDb(), deliveryId);
      if (!row) throw new OperatorError(`no webhook delivery ${deliveryId}`);
      const past = { endpointId: row.endpoint_id, jobId: row.job_id, eventType: row.event_type, attempts: row.attempts };
      await svc.ledger.handle(row.key_id, (s) => decideWebhook({ type: 'Redeliver', deliveryId, past, now: svc.clock().toISOString() }, s));
      const after = deliveryById(svc.readDb(), deliveryId)!;
      printJson(out, { delivery_id: deliveryId, state: after.state, next_attempt_at: after.next_attempt_at, attempts: after.attempts });
    },
  },
};
