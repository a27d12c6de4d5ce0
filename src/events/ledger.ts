// Every event of one API key lives in one stream, `ledger-<keyId>` (DESIGN.md: the consistency
// boundary). Events are past tense, data is JSON, times are ISO 8601 UTC strings.
import type { AnalysisResult } from '../analysis/result.js';

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
  | { type: 'JobCancelled'; data: { jobId: string; by: CancelledBy; fromStatus: 'queued' | 'processing'; at: string } };

export type LedgerEventType = LedgerEvent['type'];

/** The schema version written with new events; upcasters (events/upcasters.ts) lift older ones. */
export const CURRENT_SCHEMA_VERSION = 2;

/**
 * JobFailed.retryable (schema v2): may the partner expect a resubmission to succeed. Only a provider
 * outage is transient; the v1 upcaster applies the same rule, so old and new events agree.
 */
export const retryableFailure = (errorCode: string): boolean => errorCode === 'provider_temporarily_unavailable';

export const ledgerStream = (keyId: string): string => `ledger-${keyId}`;
export const keyIdOfStream = (stream: string): string => stream.slice('ledger-'.length);
