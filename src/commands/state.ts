// The decision state of one key's ledger: small on purpose (counters, live spots, live jobs), so a
// key with a million jobs still decides in microseconds. Spots and jobs leave it when they reach a
// terminal state; the read models keep them for lookups (commands/lookup.ts).
import type { KeyStatus, LedgerEvent } from '../events/ledger.js';

export interface LiveSpot {
  expiresAt: string;
  /** Bytes observed at the spot, 0 until an upload is seen. */
  size: number;
}

export interface LiveJob {
  handle: string;
  exerciseId: string;
  status: 'queued' | 'processing';
  attempt: number;
  worker?: string;
  leaseUntil?: string;
  /** Attempts given back by a draining worker (JobLeaseReleased): they do not count as lost. */
  released?: number;
}

export interface KeyState {
  status: 'unknown' | KeyStatus;
  partnerId: string;
  partnerName: string;
  limit: number | null;
  /** Jobs that ran the engine: completed + failed. */
  used: number;
  /** Units held by live jobs: queued + processing. */
  held: number;
  spots: Readonly<Record<string, LiveSpot>>;
  jobs: Readonly<Record<string, LiveJob>>;
  /** Mint times (epoch ms) inside MAX_WINDOW_SECONDS of the latest mint, oldest first, for the rolling window. */
  recentMints: readonly number[];
}

/** The longest rolling window (and spot lifetime) the service supports; older mint times are dropped
 * from the state, so each mint folds in time bounded by one day of mints. */
export const MAX_WINDOW_SECONDS = 24 * 3600;

export const initialState = (): KeyState => ({
  status: 'unknown',
  partnerId: '',
  partnerName: '',
  limit: null,
  used: 0,
  held: 0,
  spots: {},
  jobs: {},
  recentMints: [],
});

export function remaining(state: Pick<KeyState, 'limit' | 'used' | 'held'>): number | null {
  return state.limit === null ? null : Math.max(0, state.limit - state.used - state.held);
}

// Spots and jobs are keyed by caller-supplied strings: read only own keys, so a handle such as
// "constructor" never finds Object.prototype's members.
export const spotOf = (state: Pick<KeyState, 'spots'>, handle: string): LiveSpot | undefined =>
  Object.hasOwn(state.spots, handle) ? state.spots[handle] : undefined;
export const jobOf = (state: Pick<KeyState, 'jobs'>, jobId: string): LiveJob | undefined =>
  Object.hasOwn(state.jobs, jobId) ? state.jobs[jobId] : undefined;

function without<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const { [key]: _gone, ...rest } = record;
  return rest;
}

function finishJob(state: KeyState, jobId: string, ranEngine: boolean): KeyState {
  if (!jobOf(state, jobId)) return state;
  return { ...state, jobs: without(state.jobs, jobId), held: state.held - 1, used: state.used + (ranEngine ? 1 : 0) };
}

export function evolve(state: KeyState, event: LedgerEvent): KeyState {
  switch (event.type) {
    case 'KeyIssued': {
      const { partnerId, partnerName, limit } = event.data;
      return { ...state, status: 'active', partnerId, partnerName, limit };
    }
    case 'KeySuspended':
      return state.status === 'revoked' ? state : { ...state, status: 'suspended' };
    case 'KeyReinstated':
      return state.status === 'revoked' ? state : { ...state, status: 'active' };
    case 'KeyRevoked':
      return { ...state, status: 'revoked' };
    case 'LimitSet':
      return { ...state, limit: event.data.limit };
    case 'SpotMinted': {
      const { handle, expiresAt, at } = event.data;
      // Mints arrive in time order, so only a prefix can fall out of the horizon.
      const t = Date.parse(at);
      const horizon = t - MAX_WINDOW_SECONDS * 1000;
      let drop = 0;
      while (drop < state.recentMints.length && state.recentMints[drop]! <= horizon) drop++;
      const recentMints = [...state.recentMints.slice(drop), t];
      return { ...state, spots: { ...state.spots, [handle]: { expiresAt, size: 0 } }, recentMints };
    }
    case 'SpotUploaded': {
      const spot = spotOf(state, event.data.handle);
      if (!spot) return state;
      return { ...state, spots: { ...state.spots, [event.data.handle]: { ...spot, size: event.data.size } } };
    }
    case 'SpotExpired':
    case 'SpotClaimed':
      return { ...state, spots: without(state.spots, event.data.handle) };
    case 'JobQueued': {
      const { jobId, handle, exerciseId } = event.data;
      return { ...state, held: state.held + 1, jobs: { ...state.jobs, [jobId]: { handle, exerciseId, status: 'queued', attempt: 0 } } };
    }
    case 'JobStarted': {
      const job = jobOf(state, event.data.jobId);
      if (!job) return state;
      const { worker, attempt, leaseUntil } = event.data;
      return { ...state, jobs: { ...state.jobs, [event.data.jobId]: { ...job, status: 'processing', worker, attempt, leaseUntil } } };
    }
    case 'JobLeaseExtended': {
      const job = jobOf(state, event.data.jobId);
      if (!job) return state;
      return { ...state, jobs: { ...state.jobs, [event.data.jobId]: { ...job, leaseUntil: event.data.leaseUntil } } };
    }
    case 'JobLeaseReleased': {
      const job = jobOf(state, event.data.jobId);
      if (job?.status !== 'processing' || job.worker !== event.data.worker) return state;
      // The lease ends now and names no worker: the old one can no longer extend or finish it.
      const { worker: _gone, ...rest } = job;
      return { ...state, jobs: { ...state.jobs, [event.data.jobId]: { ...rest, leaseUntil: event.data.at, released: (job.released ?? 0) + 1 } } };
    }
    case 'JobCompleted':
    case 'JobFailed':
      return finishJob(state, event.data.jobId, true);
    case 'JobCancelled':
      return finishJob(state, event.data.jobId, false);
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

export const fold = (events: readonly LedgerEvent[], from: KeyState = initialState()): KeyState => events.reduce(evolve, from);
