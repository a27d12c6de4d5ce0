// The webhook outbox as deciders and a fold (issue 11): a job's end opens one delivery per endpoint
// subscribed at that point of the stream; claims take a lease; outcomes of superseded attempts are
// dropped; the schedule backs off with jitter and gives up after 3 days.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperatorError } from '../../src/commands/errors.js';
import { deliveryOf, fold } from '../../src/commands/state.js';
import { decideWebhook } from '../../src/commands/webhooks.js';
import { deliveryIdOf, type LedgerEvent } from '../../src/events/ledger.js';
import { nextAttemptAt, RETRY_WINDOW_MS } from '../../src/webhooks/schedule.js';

const at = (s: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + s * 1000).toISOString();
const issued: LedgerEvent = { type: 'KeyIssued', data: { keyId: 'k', partnerId: 'p', partnerName: 'P', keyHash: 'h', limit: null, at: at(0) } };
const endpoint = (endpointId: string, events: ('job.completed' | 'job.failed' | 'job.cancelled')[], s = 1): LedgerEvent => ({
  type: 'WebhookEndpointRegistered', data: { endpointId, url: 'https://example.com/h', events, secretKeyId: `wk_${endpointId}`, secretFingerprint: 'sha256:00', at: at(s) },
});
const queued = (jobId: string): LedgerEvent[] => [
  { type: 'SpotMinted', data: { handle: `up_${jobId}`, expiresAt: at(900), at: at(2) } },
  { type: 'SpotClaimed', data: { handle: `up_${jobId}`, jobId, exerciseId: 'squat', size: 1, at: at(3) } },
  { type: 'JobQueued', data: { jobId, handle: `up_${jobId}`, exerciseId: 'squat', at: at(3) } },
];
const cancelled = (jobId: string, s = 4): LedgerEvent => ({ type: 'JobCancelled', data: { jobId, by: 'partner', fromStatus: 'queued', at: at(s) } });

test('a job\'s end opens a delivery for each endpoint subscribed to its type, registered before it', () => {
  const state = fold([issued, endpoint('all', ['job.completed', 'job.failed', 'job.cancelled']), endpoint('fails', ['job.failed']), ...queued('j1'), cancelled('j1'), endpoint('late', ['job.cancelled'], 5)]);
  assert.deepEqual(Object.keys(state.deliveries), [deliveryIdOf('all', 'j1')]);
  assert.deepEqual(deliveryOf(state, deliveryIdOf('all', 'j1')), { endpointId: 'all', jobId: 'j1', eventType: 'job.cancelled', attempt: 0, since: at(4), nextAttemptAt: at(4) });
});

test('claim: due and unleased only; the outcome of a superseded attempt is dropped; success and give-up close the delivery', () => {
  const id = deliveryIdOf('all', 'j1');
  let state = fold([issued, endpoint('all', ['job.cancelled']), ...queued('j1'), cancelled('j1')]);
  const claim = (worker: string, s: number) => decideWebhook({ type: 'ClaimDelivery', deliveryId: id, worker, leaseUntil: at(s + 20), now: at(s) }, state);
  const [attempted] = claim('w1', 5);
  assert.equal(attempted?.type, 'WebhookDeliveryAttempted');
  state = fold([attempted!], state);
  assert.deepEqual(claim('w2', 10), [], 'leased by w1');
  const [retaken] = claim('w2', 30);
  assert.deepEqual(retaken?.data, { deliveryId: id, attempt: 2, worker: 'w2', leaseUntil: at(50), at: at(30) }, 'the lease ran out: the next attempt');
  state = fold([retaken!], state);
  const outcome = (worker: string, attempt: number, statusCode: number | null, nextAttemptAt: string | null) =>
    decideWebhook({ type: 'RecordDeliveryOutcome', deliveryId: id, attempt, worker, statusCode, error: statusCode === 200 ? '' : 'x', durationMs: 5, nextAttemptAt, now: at(31) }, state);
  assert.deepEqual(outcome('w1', 1, 200, null), [], 'w1 was superseded');
  const [failed] = outcome('w2', 2, 500, at(100));
  assert.equal(failed?.type, 'WebhookDeliveryFailed');
  state = fold([failed!], state);
  assert.deepEqual(claim('w3', 60), [], 'not due before nextAttemptAt');
  const [third] = claim('w3', 100);
  state = fold([third!], state);
  const [done] = decideWebhook({ type: 'RecordDeliveryOutcome', deliveryId: id, attempt: 3, worker: 'w3', statusCode: 204, error: '', durationMs: 5, nextAttemptAt: null, now: at(101) }, state);
  assert.equal(done?.type, 'WebhookDeliverySucceeded');
  state = fold([done!], state);
  assert.equal(deliveryOf(state, id), undefined);
  assert.deepEqual(claim('w4', 200), []);

  assert.throws(() => decideWebhook({ type: 'Redeliver', deliveryId: id, now: at(300) }, state), OperatorError, 'a finished delivery needs the read model\'s record');
  const [again] = decideWebhook({ type: 'Redeliver', deliveryId: id, past: { endpointId: 'all', jobId: 'j1', eventType: 'job.cancelled', attempts: 3 }, now: at(300) }, state);
  state = fold([again!], state);
  assert.deepEqual(deliveryOf(state, id), { endpointId: 'all', jobId: 'j1', eventType: 'job.cancelled', attempt: 3, since: at(300), nextAttemptAt: at(300) });
  state = fold([{ type: 'WebhookEndpointRemoved', data: { endpointId: 'all', at: at(301) } }], state);
  assert.equal(deliveryOf(state, id), undefined, 'removing the endpoint drops its pending deliveries');
});

test('schedule: exponential from 5 s with ±25% jitter, each delay at most 6 h, given up after 3 days (~23 attempts)', () => {
  const since = new Date(0);
  for (const [attempt, base] of [[1, 5_000], [2, 10_000], [5, 80_000], [20, 6 * 3600_000]] as const) {
    const low = nextAttemptAt({ since, failedAt: since, attempt, scale: 1, random: () => 0 })!.getTime();
    const high = nextAttemptAt({ since, failedAt: since, attempt, scale: 1, random: () => 1 })!.getTime();
    assert.deepEqual([low, high], [base * 0.75, base * 1.25], `attempt ${attempt}`);
  }
  let t = since;
  let attempts = 1;
  for (let next = nextAttemptAt({ since, failedAt: t, attempt: 1, scale: 1, random: () => 0.5 }); next; attempts++) {
    t = next;
    next = nextAttemptAt({ since, failedAt: t, attempt: attempts + 1, scale: 1, random: () => 0.5 });
  }
  assert.ok(t.getTime() <= RETRY_WINDOW_MS && t.getTime() > RETRY_WINDOW_MS - 7 * 3600_000, 'the last attempt falls in the last hours of the window');
  assert.ok(attempts >= 20 && attempts <= 26, `${attempts} attempts`);
  assert.equal(nextAttemptAt({ since, failedAt: new Date(RETRY_WINDOW_MS * 0.001), attempt: 1, scale: 0.001 }), null, 'the scale shrinks the window too');
});
