// The webhook dispatcher: follows the ledger the way the job runner does. Due deliveries come from
// the read model (derived from the ledger, so a crash between a job's end and its delivery loses
// nothing: the restarted process projects the job's end and finds the delivery pending). Each
// attempt is claimed with a lease in the key's stream before the POST and its outcome recorded
// after; several processes may dispatch over one ledger without sending an attempt twice.
import { Value } from '@sinclair/typebox/value';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { decideWebhook, type WebhookCommand } from '../commands/webhooks.js';
import { Job } from '../http/schemas.js';
import { jobById, presentJob } from '../projections/jobs.js';
import { dueDeliveries, endpointById, type DeliveryRow, type EndpointRow } from '../projections/webhooks.js';
import type { Service } from '../service.js';
import { nextAttemptAt } from './schedule.js';
import { postWebhook } from './send.js';
import { signedHeaders } from './signing.js';
import { importLegacySecret, legacySecretKeyId } from '../secrets/legacy.js';
import { SqliteEventStore } from '../events/store/sqlite.js';

export interface DispatcherOptions {
  /** Deliveries in flight at once, across all keys. */
  concurrency?: number;
  pollMs?: number;
  random?: () => number;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
}

export interface Dispatcher {
  wake(): void;
  /** Stops claiming and waits for the attempts in flight (bounded by the request timeout). */
  stop(): Promise<void>;
}

/**
 * The body partners receive: the job exactly as GET /v1/jobs/{job_id} returns it (cleaned by the
 * same schema the route serializes with, so a field the schema does not name never leaks here).
 */
export function eventBody(row: DeliveryRow, job: NonNullable<ReturnType<typeof jobById>>): string {
  return JSON.stringify({ type: row.event_type, timestamp: job.updated_at, data: Value.Clean(Job, presentJob(job)) });
}

/**
 * The secrets a delivery is signed with, read from the vault at send time: the current one, and
 * during a rotation's overlap the previous one too. Empty when the current one is not there.
 */
export function signingSecrets(svc: Service, endpoint: EndpointRow): string[] {
  const current = secretOf(svc, endpoint, endpoint.secret_key_id);
  if (current === undefined) return [];
  const until = endpoint.previous_valid_until;
  const previous = endpoint.previous_key_id && until && Date.parse(until) > svc.clock().getTime() ? secretOf(svc, endpoint, endpoint.previous_key_id) : undefined;
  return previous === undefined ? [current] : [current, previous];
}

/** A secret from the vault; one of an endpoint registered before the vault existed moves in now (secrets/legacy.ts). */
function secretOf(svc: Service, endpoint: EndpointRow, keyId: string): string | undefined {
  const secret = svc.vault.get(keyId);
  if (secret !== undefined || keyId !== legacySecretKeyId(endpoint.endpoint_id) || !(svc.store instanceof SqliteEventStore)) return secret;
  return importLegacySecret(svc.store.db, svc.vault, endpoint.key_id, endpoint.endpoint_id, svc.clock().toISOString());
}

export function startDispatcher(svc: Service, opts: DispatcherOptions): Dispatcher {
  const worker = `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`;
  const { timeoutSeconds, allowPrivateHosts, retryScale } = svc.config.webhooks;
  const concurrency = opts.concurrency ?? 8;
  // The lease outlives the request's timeout, so a slow receiver is never attempted twice at once.
  const leaseMs = timeoutSeconds * 2000;
  const inFlight = new Map<string, Promise<unknown>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const run = (keyId: string, command: WebhookCommand) => svc.ledger.handle(keyId, (s) => decideWebhook(command, s));

  /** False when the delivery could not be claimed (taken, gone, not due). */
  async function attempt(row: DeliveryRow): Promise<boolean> {
    const now = svc.clock();
    const claim = await run(row.key_id, {
      type: 'ClaimDelivery', deliveryId: row.delivery_id, worker, leaseUntil: new Date(now.getTime() + leaseMs).toISOString(), now: now.toISOString(),
    });
    const claimed = claim.events[0];
    if (claimed?.type !== 'WebhookDeliveryAttempted') return false;
    // Claimed and ended in one append (the key is revoked): nothing to send.
    if (claim.events[1]?.type === 'WebhookDeliveryFailed') return true;
    const endpoint = endpointById(svc.readDb(), row.endpoint_id);
    const job = jobById(svc.readDb(), row.job_id);
    let result;
    if (!endpoint || !job) {
      result = { statusCode: null, error: 'internal: endpoint or job missing from the read model', durationMs: 0 };
    } else {
      const secrets = signingSecrets(svc, endpoint);
      if (secrets.length === 0) {
        result = { statusCode: null, error: `internal: the signing secret ${endpoint.secret_key_id} is not in the vault (SECRETS_KEY_FILE or secrets.db missing?)`, durationMs: 0 };
      } else {
        const body = eventBody(row, job);
        const headers = signedHeaders(secrets, row.delivery_id, Math.floor(svc.clock().getTime() / 1000), body);
        result = await postWebhook(endpoint.url, headers, body, { timeoutMs: timeoutSeconds * 1000, allowPrivateHosts });
      }
    }
    const failedAt = svc.clock();
    const { attempt: n } = claimed.data;
    const next = nextAttemptAt({ since: new Date(row.since), failedAt, attempt: n, scale: retryScale, random: opts.random });
    await run(row.key_id, {
      type: 'RecordDeliveryOutcome', deliveryId: row.delivery_id, attempt: n, worker, ...result,
      nextAttemptAt: next?.toISOString() ?? null, now: failedAt.toISOString(),
    });
    if (result.error) opts.log.warn({ deliveryId: row.delivery_id, attempt: n, status: result.statusCode, error: result.error, retryAt: next }, 'webhook delivery failed');
    return true;
  }

  async function poll() {
    timer = undefined;
    if (stopped) return;
    try {
      const free = concurrency - inFlight.size;
      if (free > 0) {
        for (const row of dueDeliveries(svc.readDb(), svc.clock(), free + inFlight.size)) {
          if (inFlight.size >= concurrency || stopped) break;
          if (inFlight.has(row.delivery_id)) continue;
          const task = attempt(row)
            .catch((err) => void opts.log.error({ deliveryId: row.delivery_id, err: String(err) }, 'webhook attempt could not be recorded'))
            .then((claimed) => {
              inFlight.delete(row.delivery_id);
              if (claimed) wake(); // more may be due; an unclaimable row waits for the next poll
            });
          inFlight.set(row.delivery_id, task);
        }
      }
    } catch (err) {
      opts.log.error({ err: String(err) }, 'webhook poll failed');
    }
    schedule(opts.pollMs ?? 250);
  }

  function schedule(ms: number) {
    if (stopped || timer) return;
    timer = setTimeout(() => void poll(), ms);
  }

  function wake() {
    if (timer) clearTimeout(timer);
    timer = undefined;
    schedule(0);
  }

  schedule(0);
  return {
    wake,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.allSettled(inFlight.values());
    },
  };
}
