import { createHash } from 'node:crypto';
// Every event of one API key lives in one stream, `ledger-<keyId>` (DESIGN.md: the consistency
// boundary). Events are past tense, data is JSON, times are ISO 8601 UTC strings.
import type { AnalysisResult } from '../analysis/result.js';
import type { Rebuild } from '../idempotency/bearer.js';

export type KeyStatus = 'active' | 'suspended' | 'revoked';
export type CancelledBy = 'partner' | 'operator';

export type LedgerEvent =
  | { type: 'KeyIssued'; data: { keyId: string; partnerId: string; partnerName: string; keyHash: string; limit: number | null; at: string } }
  | { type: 'KeySuspended'; data: { keyId: string; at: string } }
  | { type: 'KeyReinstated'; data: { keyId: string; at: string } }
  | { type: 'KeyRevoked'; data: { keyId: string; at: string } }
  | { type: 'LimitSet'; data: { keyId: string; limit: number | null; at: string } }
  | { type: 'SpotMinted'; data: { handle: string; expiresAt: string; at: string } }
  | { type: 'SpotUploaded'; data: { handle: string; size: number; at: string } }
  | { type: 'SpotExpired'; data: { handle: string; at: string } }
  | { type: 'SpotClaimed'; data: { handle: string; jobId: string; exerciseId: string; size: number; at: string } }
  | { type: 'JobQueued'; data: { jobId: string; handle: string; exerciseId: string; at: string } }
  | { type: 'JobStarted'; data: { jobId: string; worker: string; attempt: number; leaseUntil: string; at: string } }
  | { type: 'JobLeaseExtended'; data: { jobId: string; worker: string; leaseUntil: string; at: string } }
  /** A draining worker gave the job back unfinished: another worker may take it at once. */
  | { type: 'JobLeaseReleased'; data: { jobId: string; worker: string; at: string } }
  | { type: 'JobCompleted'; data: { jobId: string; result: AnalysisResult; engineVersion: string; at: string } }
  | { type: 'JobFailed'; data: { jobId: string; errorCode: string; message: string; detail?: string; retryable: boolean; at: string } }
  | { type: 'JobCancelled'; data: { jobId: string; by: CancelledBy; fromStatus: 'queued' | 'processing'; at: string } }
  // Webhooks (issue 11). A delivery is not an event of its own: a job's terminal event creates one
  // per endpoint registered for its type at that point of the stream (deliveryIdOf names it), so
  // the outbox is the ledger itself and a crash between the job's end and the send loses nothing.
  // The signing secret itself never enters the ledger (issue 17): only the id of its data key in the
  // secrets vault (src/secrets/) and a one-way fingerprint. Schema v2 events carried the secret; the
  // v3 upcaster lifts them to this shape (README "Webhook secrets").
  | { type: 'WebhookEndpointRegistered'; data: { endpointId: string; url: string; events: WebhookEventType[]; secretKeyId: string; secretFingerprint: string; at: string } }
  /** A new secret signs from now on; the previous one also signs until previousValidUntil (24 h). */
  | { type: 'WebhookSecretRotated'; data: { endpointId: string; secretKeyId: string; secretFingerprint: string; previousKeyId: string; previousValidUntil: string; at: string } }
  | { type: 'WebhookEndpointRemoved'; data: { endpointId: string; at: string } }
  /** A dispatcher took the delivery for one attempt, with a lease; the outcome follows, unless it died. */
  | { type: 'WebhookDeliveryAttempted'; data: { deliveryId: string; attempt: number; worker: string; leaseUntil: string; at: string } }
  | { type: 'WebhookDeliverySucceeded'; data: { deliveryId: string; attempt: number; statusCode: number; durationMs: number; at: string } }
  /** nextAttemptAt null: the retry window is over and the delivery is given up. */
  | { type: 'WebhookDeliveryFailed'; data: { deliveryId: string; attempt: number; statusCode: number | null; error: string; durationMs: number; nextAttemptAt: string | null; at: string } }
  /** An operator asked to send a delivery again (retry window restarts); carries what the fold needs. */
  | { type: 'WebhookRedeliveryRequested'; data: { deliveryId: string; endpointId: string; jobId: string; eventType: WebhookEventType; attempts: number; at: string } }
  // Idempotency-Key records live in their own streams (idempotencyStream), never in a ledger stream.
  | { type: 'IdempotentRequestStarted'; data: { fingerprint: string; lockedUntil: string; at: string } }
  /** `rebuild`: what re-signs a bearer value left out of `body` (idempotency/bearer.ts). */
  | { type: 'IdempotentResponseRecorded'; data: { status: number; body: string; at: string; rebuild?: Rebuild } }
  /** The answer was retryable (429, 5xx): not kept, so the same key may try again. */
  | { type: 'IdempotentRequestReleased'; data: { at: string } }
  /** The job's video bytes (the frozen copy and any left at the spot) were deleted: VIDEO_RETENTION_HOURS after it ended. */
  | { type: 'VideoPurged'; data: { jobId: string; handle: string; at: string } };

export const WEBHOOK_EVENT_TYPES = ['job.completed', 'job.failed', 'job.cancelled'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export type LedgerEventType = LedgerEvent['type'];

/** The schema version written with new events; upcasters (events/upcasters.ts) lift older ones. */
export const CURRENT_SCHEMA_VERSION = 3;

/**
 * JobFailed.retryable (schema v2): may the partner expect a resubmission to succeed. Only a provider
 * outage is transient; the v1 upcaster applies the same rule, so old and new events agree.
 */
export const retryableFailure = (errorCode: string): boolean => errorCode === 'provider_temporarily_unavailable';

export const ledgerStream = (keyId: string): string => `ledger-${keyId}`;
export const keyIdOfStream = (stream: string): string => stream.slice('ledger-'.length);
/** One stream per (API key, Idempotency-Key); the key is hashed so any header value makes a safe name. */
export const idempotencyStream = (keyId: string, keyHash: string): string => `idempotency-${keyId}-${keyHash}`;

/** The webhook event a job's terminal event announces. */
export const webhookEventOf = (type: LedgerEventType): WebhookEventType | undefined =>
  type === 'JobCompleted' ? 'job.completed' : type === 'JobFailed' ? 'job.failed' : type === 'JobCancelled' ? 'job.cancelled' : undefined;

/**
 * A delivery's id (also its webhook-id header, the same on every retry so receivers can dedupe):
 * derived from the endpoint and the job, since a job ends once, so the fold, the projection and
 * the dispatcher all name the same delivery without an event that creates it.
 */
export const deliveryIdOf = (endpointId: string, jobId: string): string =>
  `msg_${createHash('sha256').update(`${endpointId}/${jobId}`).digest('base64url').slice(0, 24)}`;
