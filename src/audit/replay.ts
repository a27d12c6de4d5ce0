// The auditor's replay of one key's ledger: every budget movement with the running figures, and
// every invariant of DESIGN.md ("Budget invariants") checked as it goes. Pure: events in, report
// out, so it can be tested against hand-written histories, including ones the deciders would never
// produce (an auditor's job is to catch those).
import { evolve, initialState, remaining, type KeyState } from '../commands/state.js';
import type { KeyStatus } from '../events/ledger.js';
import type { RecordedEvent } from '../events/store/port.js';

/** Budget movements, plus `purge`: a job's video deleted under the retention policy (no budget change). */
export type MovementKind = 'limit' | 'hold' | 'release' | 'consume' | 'status' | 'purge';
type JobPhase = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';

export interface Figures {
  limit: number | null;
  used: number;
  held: number;
  remaining: number | null;
}

export interface Movement extends Figures {
  at: string;
  position: number;
  revision: number;
  event: string;
  movement: MovementKind;
  jobId: string | null;
  note: string;
}

export interface Violation {
  at: string;
  position: number;
  revision: number;
  /** A stable name for the rule, for grepping and tests. */
  rule: string;
  message: string;
}

export interface Totals extends Figures {
  status: KeyStatus | 'unknown';
  jobs: Record<JobPhase, number>;
}

export interface AuditReport {
  events: number;
  movements: Movement[];
  violations: Violation[];
  totals: Totals;
}

const TERMINAL = new Set<JobPhase>(['completed', 'failed', 'cancelled']);

export function createAuditor(keyId: string) {
  const jobs = new Map<string, JobPhase>();
  const spots = new Map<string, 'live' | 'claimed' | 'expired'>();
  const spotWindows = new Map<string, string>();
  const purged = new Set<string>();
  const counts: Record<JobPhase, number> = { queued: 0, processing: 0, completed: 0, failed: 0, cancelled: 0 };
  let fig: Figures = { limit: null, used: 0, held: 0, remaining: null };
  let status: Totals['status'] = 'unknown';
  let decider: KeyState = initialState();
  let previous: RecordedEvent | undefined;
  let deciderDisagreed = false;
  let events = 0;

  function step(e: RecordedEvent): { movement?: Movement; violations: Violation[] } {
    const violations: Violation[] = [];
    const flag = (rule: string, message: string) =>
      violations.push({ at: e.recordedAt, position: e.position, revision: e.revision, rule, message });
    const expectedRevision = previous ? previous.revision + 1 : 0;
    if (e.revision !== expectedRevision) flag('stream-order', `revision ${e.revision} where ${expectedRevision} was expected`);
    if (previous && e.position <= previous.position) flag('stream-order', `position ${e.position} is not after ${previous.position}`);
    if (status === 'unknown' && e.type !== 'KeyIssued') flag('issued-first', `${e.type} before the key was issued`);

    const move = (movement: MovementKind, jobId: string | null, note: string, next: Partial<Figures> = {}) => {
      const merged = { ...fig, ...next };
      fig = { ...merged, remaining: remaining(merged) };
      return { at: e.recordedAt, position: e.position, revision: e.revision, event: e.type, movement, jobId, note, ...fig };
    };
    /** Moves a job to `to`, flagging an unknown job or one that already reached a terminal status. */
    const transition = (jobId: string, to: JobPhase, allowedFrom: JobPhase[]): JobPhase | undefined => {
      const from = jobs.get(jobId);
      if (from === undefined) {
        flag('unknown-job', `${e.type} for job ${jobId}, which was never queued`);
        return undefined;
      }
      if (TERMINAL.has(from)) {
        flag('terminal-is-terminal', `${e.type} would move job ${jobId} out of ${from}`);
        return undefined;
      }
      if (!allowedFrom.includes(from)) flag('job-lifecycle', `${e.type} for job ${jobId} while it is ${from}`);
      counts[from] -= 1;
      counts[to] += 1;
      jobs.set(jobId, to);
      return from;
    };

    let movement: Movement | undefined;
    switch (e.type) {
      case 'KeyIssued': {
        if (status !== 'unknown') flag('issued-once', 'the key was issued twice');
        if (e.data.keyId !== keyId) flag('key-id', `KeyIssued names key ${e.data.keyId} in the stream of ${keyId}`);
        checkLimit(e.data.limit, flag);
        status = 'active';
        movement = move('limit', null, e.data.limit === null ? 'key issued, uncapped' : `key issued with limit ${e.data.limit}`, { limit: e.data.limit });
        break;
      }
      case 'LimitSet':
        checkLimit(e.data.limit, flag);
        movement = move('limit', null, `limit ${describeLimit(fig.limit)} -> ${describeLimit(e.data.limit)}`, { limit: e.data.limit });
        break;
      case 'KeySuspended':
      case 'KeyReinstated':
      case 'KeyRevoked': {
        const to = e.type === 'KeySuspended' ? 'suspended' : e.type === 'KeyRevoked' ? 'revoked' : 'active';
        if (status === 'revoked' && to !== 'revoked') flag('revocation-final', `${e.type} after the key was revoked`);
        else status = to;
        movement = move('status', null, `key ${to}`);
        break;
      }
      case 'SpotMinted':
        if (spots.has(e.data.handle)) flag('spot-single-use', `handle ${e.data.handle} minted twice`);
        spots.set(e.data.handle, 'live');
        spotWindows.set(e.data.handle, e.data.expiresAt);
        break;
      case 'SpotExpired':
        if (spots.get(e.data.handle) === 'live') spots.set(e.data.handle, 'expired');
        break;
      case 'SpotUploaded':
        break;
      case 'SpotClaimed': {
        const spot = spots.get(e.data.handle);
        if (spot !== 'live') flag('spot-single-use', `handle ${e.data.handle} claimed while ${spot ?? 'never minted'}`);
        const window = spotWindows.get(e.data.handle);
        if (window && Date.parse(e.data.at) >= Date.parse(window)) flag('claim-in-window', `handle ${e.data.handle} claimed at ${e.data.at}, after its window closed at ${window}`);
        spots.set(e.data.handle, 'claimed');
        break;
      }
      case 'JobQueued': {
        const { jobId, handle } = e.data;
        const claim = previous?.type === 'SpotClaimed' ? previous : undefined;
        if (!claim || claim.data.jobId !== jobId || claim.data.handle !== handle || claim.recordedAt !== e.recordedAt) {
          flag('claim-and-hold-together', `job ${jobId} was queued without the claim of ${handle} in the same append`);
        }
        if (status !== 'active') flag('accept-only-active', `job ${jobId} accepted while the key was ${status}`);
        if (fig.remaining !== null && fig.remaining < 1) {
          flag('no-over-commit', `job ${jobId} accepted with ${fig.remaining} remaining (limit ${fig.limit}, used ${fig.used}, held ${fig.held})`);
        }
        if (jobs.has(jobId)) {
          flag('unique-job', `job ${jobId} queued twice`);
          break;
        }
        jobs.set(jobId, 'queued');
        counts.queued += 1;
        movement = move('hold', jobId, 'accepted: holds one unit', { held: fig.held + 1 });
        break;
      }
      case 'JobStarted':
        transition(e.data.jobId, 'processing', ['queued', 'processing']);
        break;
      case 'JobLeaseExtended':
        if (jobs.get(e.data.jobId) !== 'processing') flag('job-lifecycle', `lease extended on job ${e.data.jobId} while it is ${jobs.get(e.data.jobId) ?? 'unknown'}`);
        break;
      case 'JobLeaseReleased':
        if (jobs.get(e.data.jobId) !== 'processing') flag('job-lifecycle', `lease released on job ${e.data.jobId} while it is ${jobs.get(e.data.jobId) ?? 'unknown'}`);
        break;
      case 'JobCompleted':
      case 'JobFailed': {
        const done = e.type === 'JobCompleted' ? 'completed' : 'failed';
        if (transition(e.data.jobId, done, ['processing']) === undefined) break;
        const note = e.type === 'JobCompleted'
          ? `completed by ${e.data.engineVersion}`
          : `failed: ${e.data.errorCode}${e.data.retryable ? ' (retryable)' : ''}`;
        movement = move('consume', e.data.jobId, note, { used: fig.used + 1, held: fig.held - 1 });
        break;
      }
      case 'JobCancelled': {
        const from = transition(e.data.jobId, 'cancelled', e.data.by === 'partner' ? ['queued'] : ['queued', 'processing']);
        if (from === undefined) break;
        if (from !== e.data.fromStatus) flag('cancel-from-status', `job ${e.data.jobId} cancelled "from ${e.data.fromStatus}" but it was ${from}`);
        movement = move('release', e.data.jobId, `cancelled by ${e.data.by} while ${from}: unit returned`, { held: fig.held - 1 });
        break;
      }
      // Webhook endpoints and deliveries never move the budget; the deliveries listing shows them.
      case 'WebhookEndpointRegistered':
      case 'WebhookSecretRotated':
      case 'WebhookEndpointRemoved':
      case 'WebhookDeliveryAttempted':
      case 'WebhookDeliverySucceeded':
      case 'WebhookDeliveryFailed':
      case 'WebhookRedeliveryRequested':
        break;
      case 'IdempotentRequestStarted':
      case 'IdempotentResponseRecorded':
      case 'IdempotentRequestReleased':
        flag('foreign-event', `${e.type} belongs in an idempotency stream, not in a key's ledger`);
        break;
      case 'VideoPurged': {
        const { jobId, handle } = e.data;
        const phase = jobs.get(jobId);
        if (phase === undefined || !TERMINAL.has(phase)) flag('purge-after-end', `video of job ${jobId} purged while the job is ${phase ?? 'unknown'}`);
        if (purged.has(jobId)) flag('purge-once', `video of job ${jobId} purged twice`);
        purged.add(jobId);
        movement = move('purge', jobId, `VideoPurged: video deleted (retention), handle ${handle}`);
        break;
      }
      default: {
        const exhaustive: never = e;
        flag('unknown-event', `unknown event type ${(exhaustive as RecordedEvent).type}`);
      }
    }

    // The counters must be what the job statuses say, and what the deciders would decide against.
    if (fig.used !== counts.completed + counts.failed || fig.held !== counts.queued + counts.processing) {
      flag('counters', `used ${fig.used} / held ${fig.held} disagree with the job statuses ${JSON.stringify(counts)}`);
    }
    // Spot events never move the budget, and folding them costs O(mints in the window) each.
    if (!e.type.startsWith('Spot')) decider = evolve(decider, e);
    const d = { limit: decider.limit, used: decider.used, held: decider.held };
    if (!deciderDisagreed && (d.limit !== fig.limit || d.used !== fig.used || d.held !== fig.held)) {
      deciderDisagreed = true;
      flag('decider-agrees', `the deciders' fold says limit ${d.limit}, used ${d.used}, held ${d.held}; the audit says limit ${fig.limit}, used ${fig.used}, held ${fig.held}`);
    }
    previous = e;
    events += 1;
    return { movement, violations };
  }

  const totals = (): Totals => ({ ...fig, status, jobs: { ...counts } });
  return { step, totals, events: () => events };
}

function checkLimit(limit: number | null, flag: (rule: string, message: string) => void) {
  if (limit !== null && !(Number.isInteger(limit) && limit >= 0)) flag('limit-valid', `limit ${limit} is not a whole number >= 0 or none`);
}

const describeLimit = (limit: number | null) => (limit === null ? 'none' : String(limit));

/** Replays `events` (one key's stream, in order); with `until`, only those recorded at or before it. */
export function audit(keyId: string, events: Iterable<RecordedEvent>, opts: { until?: Date } = {}): AuditReport {
  const auditor = createAuditor(keyId);
  const movements: Movement[] = [];
  const violations: Violation[] = [];
  const until = opts.until?.getTime();
  for (const e of events) {
    if (until !== undefined && Date.parse(e.recordedAt) > until) break;
    const out = auditor.step(e);
    if (out.movement) movements.push(out.movement);
    violations.push(...out.violations);
  }
  return { events: auditor.events(), movements, violations, totals: auditor.totals() };
}
