// A draining worker gives its lease back (JobLeaseReleased): the job is free at once, the old
// worker can no longer extend or finish it, and the given-back attempt is not a lost one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LedgerEvent } from '../../src/events/ledger.js';
import { decideJob } from '../../src/commands/jobs.js';
import { fold } from '../../src/commands/state.js';
import { audit } from '../../src/audit/replay.js';
import type { RecordedEvent } from '../../src/events/store/port.js';
import { sampleResult } from '../support/engines.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();
const history: LedgerEvent[] = [
  { type: 'KeyIssued', data: { keyId: 'k', partnerId: 'p', partnerName: 'P', keyHash: 'h', limit: 1, at: at(0) } },
  { type: 'SpotMinted', data: { handle: 'h1', expiresAt: at(900), at: at(0) } },
  { type: 'SpotClaimed', data: { handle: 'h1', jobId: 'j1', exerciseId: 'squat', size: 10, at: at(1) } },
  { type: 'JobQueued', data: { jobId: 'j1', handle: 'h1', exerciseId: 'squat', at: at(1) } },
  { type: 'JobStarted', data: { jobId: 'j1', worker: 'w1', attempt: 1, leaseUntil: at(300), at: at(2) } },
];
const release = { type: 'ReleaseLease' as const, jobId: 'j1', worker: 'w1', now: at(10) };

test('the lease holder may release; anyone else, or a finished job, gets no event', () => {
  assert.deepEqual(decideJob(release, fold(history)), [{ type: 'JobLeaseReleased', data: { jobId: 'j1', worker: 'w1', at: at(10) } }]);
  assert.deepEqual(decideJob({ ...release, worker: 'w2' }, fold(history)), []);
  assert.deepEqual(decideJob({ ...release, jobId: 'nope' }, fold(history)), []);
});

test('after a release the job is taken again at once, and the old worker cannot extend or finish it', () => {
  const state = fold([...history, { type: 'JobLeaseReleased', data: { jobId: 'j1', worker: 'w1', at: at(10) } }]);
  // maxAttempts 1: the given-back attempt does not use it up.
  const [taken] = decideJob({ type: 'StartJob', jobId: 'j1', worker: 'w2', leaseUntil: at(400), maxAttempts: 1, now: at(11) }, state);
  assert.equal(taken?.type, 'JobStarted');
  assert.deepEqual(decideJob({ type: 'ExtendLease', jobId: 'j1', worker: 'w1', leaseUntil: at(500), now: at(11) }, state), []);
  assert.deepEqual(decideJob({ type: 'CompleteJob', jobId: 'j1', worker: 'w1', result: sampleResult, engineVersion: 'x', now: at(11) }, state), []);
  assert.deepEqual(decideJob(release, state), [], 'released once');
});

test('the audit accepts a release on a processing job and flags one on a job that is not', () => {
  let position = 0;
  const rec = (events: LedgerEvent[]) => events.map((e, revision) => ({ ...e, stream: 'ledger-k', revision, position: ++position, schemaVersion: 2, recordedAt: e.data.at })) as RecordedEvent[];
  const released: LedgerEvent = { type: 'JobLeaseReleased', data: { jobId: 'j1', worker: 'w1', at: at(10) } };
  assert.deepEqual(audit('k', rec([...history, released])).violations, []);
  const early = audit('k', rec([...history.slice(0, 4), released])).violations;
  assert.deepEqual(early.map((v) => v.rule), ['job-lifecycle']);
});
