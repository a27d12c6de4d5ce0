// Read models of webhook endpoints and deliveries: what GET /v1/webhook-endpoints lists, what the
// dispatcher scans for due deliveries, and what `admin webhooks deliveries` shows. A job's terminal
// event opens one delivery per endpoint registered for its type, exactly as the fold does
// (commands/state.ts), so rebuilding from the ledger gives back every pending delivery.
import type Database from 'better-sqlite3';
import { deliveryIdOf, keyIdOfStream, webhookEventOf, type WebhookEventType } from '../events/ledger.js';
import type { RecordedEvent } from '../events/store/port.js';
import { prepared } from './statements.js';

export const ddl = `
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  endpoint_id TEXT PRIMARY KEY,
  key_id      TEXT NOT NULL,
  url         TEXT NOT NULL,
  events      TEXT NOT NULL,
  secret_key_id        TEXT NOT NULL,
  secret_fingerprint   TEXT NOT NULL,
  previous_key_id      TEXT,
  previous_valid_until TEXT,
  created_at  TEXT NOT NULL,
  removed_at  TEXT,
  seq         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_by_key ON webhook_endpoints (key_id, seq);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  delivery_id     TEXT PRIMARY KEY,
  key_id          TEXT NOT NULL,
  endpoint_id     TEXT NOT NULL,
  job_id          TEXT NOT NULL,
  event_type      TEXT NOT NULL,
  state           TEXT NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  since           TEXT NOT NULL,
  next_attempt_at TEXT,
  lease_until     TEXT,
  last_status     INTEGER,
  last_error      TEXT,
  seq             INTEGER NOT NULL,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_key ON webhook_deliveries (key_id, seq);`;

/** Columns a read model from before secret rotation lacks (secrets/legacy.ts adds the key id ones). */
export const addedColumns = { previous_key_id: 'TEXT', previous_valid_until: 'TEXT' } as const;

export interface EndpointRow {
  endpoint_id: string;
  key_id: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  /** Vault key id of the signing secret (src/secrets/vault.ts); the secret itself is never here. */
  secret_key_id: string;
  secret_fingerprint: string;
  /** After a rotation: the secret that also signs until previous_valid_until. */
  previous_key_id: string | null;
  previous_valid_until: string | null;
  created_at: string;
  removed_at: string | null;
  seq: number;
}

export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'endpoint_removed';

export interface DeliveryRow {
  delivery_id: string;
  key_id: string;
  endpoint_id: string;
  job_id: string;
  event_type: WebhookEventType;
  state: DeliveryState;
  attempts: number;
  since: string;
  next_attempt_at: string | null;
  lease_until: string | null;
  last_status: number | null;
  last_error: string | null;
  seq: number;
  created_at: string;
  updated_at: string;
}

const SET = {
  attempted: `attempts = ?, lease_until = ?`,
  succeeded: `state = 'succeeded', last_status = ?, last_error = NULL, next_attempt_at = NULL, lease_until = NULL`,
  failed: `state = CASE WHEN ? IS NULL THEN 'failed' ELSE 'pending' END, next_attempt_at = ?, last_status = ?, last_error = ?, lease_until = NULL`,
};
const UPDATE = Object.fromEntries(
  Object.entries(SET).map(([k, sql]) => [k, `UPDATE webhook_deliveries SET ${sql}, updated_at = ? WHERE delivery_id = ? AND state = 'pending'`]),
) as Record<keyof typeof SET, string>;

export function apply(db: Database.Database, e: RecordedEvent): void {
  switch (e.type) {
    case 'JobCompleted':
    case 'JobFailed':
    case 'JobCancelled': {
      const eventType = webhookEventOf(e.type)!;
      const keyId = keyIdOfStream(e.stream);
      const endpoints = prepared<[string], EndpointRow>(db, 'SELECT * FROM webhook_endpoints WHERE key_id = ? AND removed_at IS NULL ORDER BY seq').all(keyId);
      const { jobId, at } = e.data;
      for (const ep of endpoints) {
        if (!(JSON.parse(ep.events) as string[]).includes(eventType)) continue;
        prepared(db,
          `INSERT OR IGNORE INTO webhook_deliveries (delivery_id, key_id, endpoint_id, job_id, event_type, state, since, next_attempt_at, seq, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
        ).run(deliveryIdOf(ep.endpoint_id, jobId), keyId, ep.endpoint_id, jobId, eventType, at, at, e.position, at, at);
      }
      return;
    }
    case 'WebhookEndpointRegistered': {
      const d = e.data;
      prepared(db,
        `INSERT OR IGNORE INTO webhook_endpoints (endpoint_id, key_id, url, events, secret_key_id, secret_fingerprint, created_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(d.endpointId, keyIdOfStream(e.stream), d.url, JSON.stringify(d.events), d.secretKeyId, d.secretFingerprint, d.at, e.position);
      return;
    }
    case 'WebhookSecretRotated': {
      const d = e.data;
      prepared(db,
        `UPDATE webhook_endpoints SET secret_key_id = ?, secret_fingerprint = ?, previous_key_id = ?, previous_valid_until = ? WHERE endpoint_id = ? AND removed_at IS NULL`,
      ).run(d.secretKeyId, d.secretFingerprint, d.previousKeyId, d.previousValidUntil, d.endpointId);
      return;
    }
    case 'WebhookEndpointRemoved': {
      const d = e.data;
      prepared(db, 'UPDATE webhook_endpoints SET removed_at = ? WHERE endpoint_id = ? AND removed_at IS NULL').run(d.at, d.endpointId);
      prepared(db, `UPDATE webhook_deliveries SET state = 'endpoint_removed', next_attempt_at = NULL, lease_until = NULL, updated_at = ? WHERE endpoint_id = ? AND state = 'pending'`).run(d.at, d.endpointId);
      return;
    }
    case 'WebhookDeliveryAttempted': {
      const d = e.data;
      return void prepared(db, UPDATE.attempted).run(d.attempt, d.leaseUntil, d.at, d.deliveryId);
    }
    case 'WebhookDeliverySucceeded': {
      const d = e.data;
      return void prepared(db, UPDATE.succeeded).run(d.statusCode, d.at, d.deliveryId);
    }
    case 'WebhookDeliveryFailed': {
      const d = e.data;
      return void prepared(db, UPDATE.failed).run(d.nextAttemptAt, d.nextAttemptAt, d.statusCode, d.error, d.at, d.deliveryId);
    }
    case 'WebhookRedeliveryRequested': {
      const d = e.data;
      // As the fold: only while the endpoint is registered.
      prepared(db,
        `UPDATE webhook_deliveries SET state = 'pending', attempts = ?, since = ?, next_attempt_at = ?, lease_until = NULL, updated_at = ?
         WHERE delivery_id = ? AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE endpoint_id = ? AND removed_at IS NULL)`,
      ).run(d.attempts, d.at, d.at, d.at, d.deliveryId, d.endpointId);
      return;
    }
    default:
      return;
  }
}

export const endpointById = (db: Database.Database, endpointId: string): EndpointRow | undefined =>
  prepared<[string], EndpointRow>(db, 'SELECT * FROM webhook_endpoints WHERE endpoint_id = ?').get(endpointId);

export const endpointsOfKey = (db: Database.Database, keyId: string): EndpointRow[] =>
  prepared<[string], EndpointRow>(db, 'SELECT * FROM webhook_endpoints WHERE key_id = ? AND removed_at IS NULL ORDER BY seq').all(keyId);

export const deliveryById = (db: Database.Database, deliveryId: string): DeliveryRow | undefined =>
  prepared<[string], DeliveryRow>(db, 'SELECT * FROM webhook_deliveries WHERE delivery_id = ?').get(deliveryId);

export const deliveriesOfKey = (db: Database.Database, keyId: string): DeliveryRow[] =>
  prepared<[string], DeliveryRow>(db, 'SELECT * FROM webhook_deliveries WHERE key_id = ? ORDER BY seq, delivery_id').all(keyId);

/** Pending deliveries whose next attempt is due and that no live lease holds, soonest first. */
export const dueDeliveries = (db: Database.Database, now: Date, limit: number): DeliveryRow[] =>
  prepared<[string, string, number], DeliveryRow>(db,
    `SELECT * FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
     ORDER BY next_attempt_at LIMIT ?`,
  ).all(now.toISOString(), now.toISOString(), limit);
