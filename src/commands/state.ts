// The decision state of one key's ledger: small on purpose (counters, live spots, live jobs), so a
// key with a million jobs still decides in microseconds. Spots and jobs leave it when they reach a
// terminal state; the read models keep them for lookups (commands/lookup.ts).
import { deliveryIdOf, webhookEventOf, type KeyStatus, type LedgerEvent, type WebhookEventType } from '../events/ledger.js';
import { PMap } from './persistent-map.js';

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

export interface LiveEndpoint {
  events: readonly WebhookEventType[];
  /** Vault key id of the secret that signs now (a rotation needs it to name the previous one). */
  secretKeyId: string;
}

/** A webhook delivery not yet acknowledged by a 2xx nor given up. */
export interface LiveDelivery {
  endpointId: string;
  jobId: string;
  eventType: WebhookEventType;
  /** Attempts so far. */
  attempt: number;
  /** When the retry window opened (the job's end, or an operator's redelivery). */
  since: string;
  nextAttemptAt: string;
  worker?: string;
  leaseUntil?: string;
}

export interface KeptVideo {
  handle: string;
  endedAt: string;
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
  /** Persistent maps (persistent-map.ts): a change costs O(1) however many spots and jobs are live. */
  spots: PMap<LiveSpot>;
  jobs: PMap<LiveJob>;
  /**
   * Ended jobs whose video is still stored, by job id: the retention sweep purges them once
   * (VideoPurged) and this is what makes a second sweeper's purge a no-op. Bounded by the jobs
   * that ended within VIDEO_RETENTION_HOURS.
   */
  kept: PMap<KeptVideo>;
  /** Mint times (epoch ms) inside MAX_WINDOW_SECONDS of the latest mint, oldest first, for the rolling window. */
  recentMints: readonly number[];
  /** Registered webhook endpoints (removed ones leave). */
  endpoints: Readonly<Record<string, LiveEndpoint>>;
  /** Pending webhook deliveries: the outbox, derived from the stream. */
  deliveries: Readonly<Record<string, LiveDelivery>>;
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
  spots: PMap.empty(),
  jobs: PMap.empty(),
  kept: PMap.empty(),
  recentMints: [],
  endpoints: {},
  deliveries: {},
});

/** A state back from its JSON form (JSON.stringify writes the persistent maps as plain objects): a snapshot to fold on from. */
export function stateFromJson(json: unknown): KeyState {
  const s = json as Omit<KeyState, 'spots' | 'jobs' | 'kept'> & Record<'spots' | 'jobs' | 'kept', Record<string, never>>;
  return { ...s, spots: PMap.of(Object.entries(s.spots)), jobs: PMap.of(Object.entries(s.jobs)), kept: PMap.of(Object.entries(s.kept)) };
}

export function remaining(state: Pick<KeyState, 'limit' | 'used' | 'held'>): number | null {
  return state.limit === null ? null : Math.max(0, state.limit - state.used - state.held);
}

export const spotOf = (state: Pick<KeyState, 'spots'>, handle: string): LiveSpot | undefined => state.spots.get(handle);
export const jobOf = (state: Pick<KeyState, 'jobs'>, jobId: string): LiveJob | undefined => state.jobs.get(jobId);
// Endpoints and deliveries are keyed by caller-supplied strings too: read only own keys, so an id
// such as "constructor" never finds Object.prototype's members.
export const endpointOf = (state: Pick<KeyState, 'endpoints'>, endpointId: string): LiveEndpoint | undefined =>
  Object.hasOwn(state.endpoints, endpointId) ? state.endpoints[endpointId] : undefined;
export const deliveryOf = (state: Pick<KeyState, 'deliveries'>, deliveryId: string): LiveDelivery | undefined =>
  Object.hasOwn(state.deliveries, deliveryId) ? state.deliveries[deliveryId] : undefined;

/** A job's end opens one delivery per endpoint subscribed to its event type. */
function openDeliveries(state: KeyState, event: LedgerEvent & { data: { jobId: string; at: string } }): KeyState {
  const eventType = webhookEventOf(event.type);
  const subscribed = Object.entries(state.endpoints).filter(([, e]) => eventType && e.events.includes(eventType));
  if (!eventType || subscribed.length === 0) return state;
  const { jobId, at } = event.data;
  const opened = Object.fromEntries(
    subscribed.map(([endpointId]) => [deliveryIdOf(endpointId, jobId), { endpointId, jobId, eventType, attempt: 0, since: at, nextAttemptAt: at }]),
  );
  return { ...state, deliveries: { ...state.deliveries, ...opened } };
}

function updateDelivery(state: KeyState, deliveryId: string, change: (d: LiveDelivery) => LiveDelivery | undefined): KeyState {
  const delivery = deliveryOf(state, deliveryId);
  if (!delivery) return state;
  const next = change(delivery);
  return { ...state, deliveries: next ? { ...state.deliveries, [deliveryId]: next } : without(state.deliveries, deliveryId) };
}

export const keptOf = (state: Pick<KeyState, 'kept'>, jobId: string): KeptVideo | undefined => state.kept.get(jobId);

function without<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const { [key]: _gone, ...rest } = record;
  return rest;
}

// Within one fold(), the recentMints array this fold already copied belongs to no one else, so
// later mints change it in place: copying it per mint made a day of mints quadratic. A state passed
// in is never changed (evolve() alone copies as before).
let owned: WeakSet<object> | undefined;

function finishJob(state: KeyState, jobId: string, ranEngine: boolean, endedAt: string): KeyState {
  const job = jobOf(state, jobId);
  if (!job) return state;
  const kept = state.kept.set(jobId, { handle: job.handle, endedAt });
  return { ...state, jobs: state.jobs.delete(jobId), kept, held: state.held - 1, used: state.used + (ranEngine ? 1 : 0) };
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
      // Within a fold, the array this fold copied is changed in place (see `owned`).
      const recentMints = owned?.has(state.recentMints) ? (state.recentMints as number[]) : [...state.recentMints];
      owned?.add(recentMints);
      if (drop > 0) recentMints.splice(0, drop);
      recentMints.push(t);
      return { ...state, spots: state.spots.set(handle, { expiresAt, size: 0 }), recentMints };
    }
    case 'SpotUploaded': {
      const spot = spotOf(state, event.data.handle);
      if (!spot) return state;
      return { ...state, spots: state.spots.set(event.data.handle, { ...spot, size: event.data.size }) };
    }
    case 'SpotExpired':
    case 'SpotClaimed':
      return spotOf(state, event.data.handle) ? { ...state, spots: state.spots.delete(event.data.handle) } : state;
    case 'JobQueued': {
      const { jobId, handle, exerciseId } = event.data;
      return { ...state, held: state.held + 1, jobs: state.jobs.set(jobId, { handle, exerciseId, status: 'queued', attempt: 0 }) };
    }
    case 'JobStarted': {
      const job = jobOf(state, event.data.jobId);
      if (!job) return state;
      const { worker, attempt, leaseUntil } = event.data;
      return { ...state, jobs: state.jobs.set(event.data.jobId, { ...job, status: 'processing', worker, attempt, leaseUntil }) };
    }
    case 'JobLeaseExtended': {
      const job = jobOf(state, event.data.jobId);
      if (!job) return state;
      return { ...state, jobs: state.jobs.set(event.data.jobId, { ...job, leaseUntil: event.data.leaseUntil }) };
    }
    case 'JobLeaseReleased': {
      const job = jobOf(state, event.data.jobId);
      if (job?.status !== 'processing' || job.worker !== event.data.worker) return state;
      // The lease ends now and names no worker: the old one can no longer extend or finish it.
      const { worker: _gone, ...rest } = job;
      return { ...state, jobs: state.jobs.set(event.data.jobId, { ...rest, leaseUntil: event.data.at, released: (job.released ?? 0) + 1 }) };
    }
    case 'JobCompleted':
    case 'JobFailed':
      return openDeliveries(finishJob(state, event.data.jobId, true, event.data.at), event);
    case 'JobCancelled':
      return openDeliveries(finishJob(state, event.data.jobId, false, event.data.at), event);
    case 'WebhookEndpointRegistered':
      return { ...state, endpoints: { ...state.endpoints, [event.data.endpointId]: { events: event.data.events, secretKeyId: event.data.secretKeyId } } };
    case 'WebhookSecretRotated': {
      const endpoint = endpointOf(state, event.data.endpointId);
      if (!endpoint) return state;
      return { ...state, endpoints: { ...state.endpoints, [event.data.endpointId]: { ...endpoint, secretKeyId: event.data.secretKeyId } } };
    }
    case 'WebhookEndpointRemoved': {
      const { endpointId } = event.data;
      const deliveries = Object.fromEntries(Object.entries(state.deliveries).filter(([, d]) => d.endpointId !== endpointId));
      return { ...state, endpoints: without(state.endpoints, endpointId), deliveries };
    }
    case 'WebhookDeliveryAttempted': {
      const { attempt, worker, leaseUntil } = event.data;
      return updateDelivery(state, event.data.deliveryId, (d) => ({ ...d, attempt, worker, leaseUntil }));
    }
    case 'WebhookDeliverySucceeded':
      return updateDelivery(state, event.data.deliveryId, () => undefined);
    case 'WebhookDeliveryFailed': {
      const next = event.data.nextAttemptAt;
      return updateDelivery(state, event.data.deliveryId, ({ worker: _w, leaseUntil: _l, ...d }) => (next === null ? undefined : { ...d, nextAttemptAt: next }));
    }
    case 'WebhookRedeliveryRequested': {
      const { deliveryId, endpointId, jobId, eventType, attempts, at } = event.data;
      if (!endpointOf(state, endpointId)) return state;
      const delivery: LiveDelivery = { endpointId, jobId, eventType, attempt: attempts, since: at, nextAttemptAt: at };
      return { ...state, deliveries: { ...state.deliveries, [deliveryId]: delivery } };
    }
    case 'IdempotentRequestStarted':
    case 'IdempotentResponseRecorded':
    case 'IdempotentRequestReleased':
      return state; // never in a ledger stream (their own streams), listed for exhaustiveness
    case 'VideoPurged':
      return keptOf(state, event.data.jobId) ? { ...state, kept: state.kept.delete(event.data.jobId) } : state;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}

export function fold(events: readonly LedgerEvent[], from: KeyState = initialState()): KeyState {
  if (events.length < 2) return events.reduce(evolve, from);
  const outer = owned;
  owned = new WeakSet();
  try {
    return events.reduce(evolve, from);
  } finally {
    owned = outer;
  }
}
