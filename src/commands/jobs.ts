// Jobs and the analysis budget. A submission is ONE append (SpotClaimed + JobQueued) decided
// against the key's folded state, so the claim, the budget hold and the job cannot come apart.
import type { AnalysisResult } from '../analysis/result.js';
import { retryableFailure, type CancelledBy, type LedgerEvent } from '../events/ledger.js';
import {
  AuthenticationError,
  JobAlreadyFinished,
  JobAlreadyStarted,
  JobNotFound,
  UploadAlreadyClaimed,
  UploadIncomplete,
  UploadNotFound,
  UploadSpotExpired,
  UsageLimitExceeded,
} from './errors.js';
import { jobOf, keptOf, remaining, spotOf, type KeyState } from './state.js';

/** What the read models know of a spot that has left the decision state (claimed or expired). */
export type PastSpot = { state: 'claimed'; jobId: string; exerciseId: string } | { state: 'expired' };

export type JobCommand =
  | { type: 'SubmitJob'; handle: string; exerciseId: string; jobId: string; size: number; past?: PastSpot; now: string }
  | { type: 'CancelJob'; jobId: string; by: CancelledBy; finished: boolean; now: string }
  | { type: 'StartJob'; jobId: string; worker: string; leaseUntil: string; maxAttempts: number; now: string }
  | { type: 'ExtendLease'; jobId: string; worker: string; leaseUntil: string; now: string }
  | { type: 'ReleaseLease'; jobId: string; worker: string; now: string }
  /** Records that an ended job's video was deleted, once, and not before `retentionMs` after it ended. */
  | { type: 'PurgeVideo'; jobId: string; retentionMs: number; now: string }
  | { type: 'CompleteJob'; jobId: string; worker: string; result: AnalysisResult; engineVersion: string; now: string }
  | { type: 'FailJob'; jobId: string; worker: string; errorCode: string; message: string; detail?: string; now: string };

export const GENERIC_FAILURE = { errorCode: 'analysis_failed', message: 'The analysis job failed.' } as const;

const hasFreeUnit = (state: KeyState) => {
  const free = remaining(state);
  return free === null || free >= 1;
};

/** True when a submission of this handle would need the stored bytes: the handler stats storage only then. */
export function needsBytes(state: KeyState, handle: string, now: string): boolean {
  const spot = spotOf(state, handle);
  return spot !== undefined && Date.parse(spot.expiresAt) > Date.parse(now) && hasFreeUnit(state);
}

export function decideJob(command: JobCommand, state: KeyState): LedgerEvent[] {
  const at = command.now;
  switch (command.type) {
    case 'SubmitJob': {
      if (state.status !== 'active') throw new AuthenticationError();
      const { handle, exerciseId, jobId } = command;
      const spot = spotOf(state, handle);
      if (!spot) {
        const past = command.past;
        if (!past) throw new UploadNotFound();
        if (past.state === 'claimed') {
          if (past.exerciseId === exerciseId) return []; // idempotent: the original job stands
          throw new UploadAlreadyClaimed();
        }
      }
      if (!hasFreeUnit(state)) throw new UsageLimitExceeded();
      if (!spot || Date.parse(spot.expiresAt) <= Date.parse(at)) throw new UploadSpotExpired();
      if (command.size <= 0) throw new UploadIncomplete();
      return [
        { type: 'SpotClaimed', data: { handle, jobId, exerciseId, size: command.size, at } },
        { type: 'JobQueued', data: { jobId, handle, exerciseId, at } },
      ];
    }
    case 'CancelJob': {
      const job = jobOf(state, command.jobId);
      if (!job) throw command.finished ? new JobAlreadyFinished() : new JobNotFound();
      if (command.by === 'partner' && job.status === 'processing') throw new JobAlreadyStarted();
      return [{ type: 'JobCancelled', data: { jobId: command.jobId, by: command.by, fromStatus: job.status, at } }];
    }
    case 'StartJob': {
      const { jobId, worker, leaseUntil, maxAttempts } = command;
      const job = jobOf(state, jobId);
      if (!job) return [];
      const leaseOver = job.status === 'processing' && Date.parse(job.leaseUntil ?? at) <= Date.parse(at);
      if (job.status === 'processing' && !leaseOver) return [];
      // Attempts a draining worker gave back were not lost: they do not use up JOB_MAX_ATTEMPTS.
      if (job.attempt - (job.released ?? 0) >= maxAttempts) {
        const detail = `no worker finished the job in ${job.attempt} attempts`;
        return [{ type: 'JobFailed', data: { jobId, ...GENERIC_FAILURE, detail, retryable: retryableFailure(GENERIC_FAILURE.errorCode), at } }];
      }
      return [{ type: 'JobStarted', data: { jobId, worker, attempt: job.attempt + 1, leaseUntil, at } }];
    }
    case 'ExtendLease': {
      const job = jobOf(state, command.jobId);
      if (job?.status !== 'processing' || job.worker !== command.worker) return [];
      return [{ type: 'JobLeaseExtended', data: { jobId: command.jobId, worker: command.worker, leaseUntil: command.leaseUntil, at } }];
    }
    case 'ReleaseLease': {
      const job = jobOf(state, command.jobId);
      if (job?.status !== 'processing' || job.worker !== command.worker) return [];
      return [{ type: 'JobLeaseReleased', data: { jobId: command.jobId, worker: command.worker, at } }];
    }
    case 'PurgeVideo': {
      const kept = keptOf(state, command.jobId);
      if (!kept || Date.parse(kept.endedAt) + command.retentionMs > Date.parse(at)) return [];
      return [{ type: 'VideoPurged', data: { jobId: command.jobId, handle: kept.handle, at } }];
    }
    case 'CompleteJob': {
      const job = jobOf(state, command.jobId);
      // A job cancelled by the operator or re-taken after a lost lease is no longer this worker's.
      if (job?.status !== 'processing' || job.worker !== command.worker) return [];
      const { jobId, result, engineVersion } = command;
      return [{ type: 'JobCompleted', data: { jobId, result, engineVersion, at } }];
    }
    case 'FailJob': {
      const job = jobOf(state, command.jobId);
      if (job?.status !== 'processing' || job.worker !== command.worker) return [];
      const { jobId, errorCode, message, detail } = command;
      return [{ type: 'JobFailed', data: { jobId, errorCode, message, ...(detail ? { detail } : {}), retryable: retryableFailure(errorCode), at } }];
    }
    default: {
      const exhaustive: never = command;
      return exhaustive;
    }
  }
}
