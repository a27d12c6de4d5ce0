// The auditor's replay over hand-written histories: the figures of a known history, and each
// budget invariant of DESIGN.md caught when a history breaks it.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { compareWithReadModel } from '../../src/audit/compare.js';
import { audit } from '../../src/audit/replay.js';
import type { LedgerEvent } from '../../src/events/ledger.js';
import type { RecordedEvent } from '../../src/events/store/port.js';
import { sampleResult } from '../support/engines.js';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
let clock = 0;
const e = (type: LedgerEvent['type'], data: Record<string, unknown>): LedgerEvent => ({ type, data: { ...data, at: at(++clock) } }) as LedgerEvent;

/** Records events as the store would: consecutive revisions, the append time as recordedAt. */
function record(events: (LedgerEvent | LedgerEvent[])[]): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  for (const group of events) {
    const batch = Array.isArray(group) ? group : [group];
    const recordedAt = (batch[0]!.data as { at: string }).at;
    for (const ev of batch) out.push({ ...ev, stream: 'ledger-k1', revision: out.length, position: out.length + 1, schemaVersion: 2, recordedAt } as RecordedEvent);
  }
  return out;
}

const issued = (limit: number | null) => e('KeyIssued', { keyId: 'k1', partnerId: 'p1', partnerName: 'Acme', keyHash: 'h', limit });
const submit = (handle: string, jobId: string) => {
  const minted = e('SpotMinted', { handle, expiresAt: at(900) });
  const claim = e('SpotClaimed', { handle, jobId, exerciseId: 'squat', size: 10 });
  const queued = { type: 'JobQueued', data: { jobId, handle, exerciseId: 'squat', at: (claim.data as { at: string }).at } } as LedgerEvent;
  return [minted, [claim, queued]] as (LedgerEvent | LedgerEvent[])[];
};
const started = (jobId: string) => e('JobStarted', { jobId, worker: 'w', attempt: 1, leaseUntil: at(999) });
const completed = (jobId: string) => e('JobCompleted', { jobId, result: sampleResult, engineVersion: 'v1' });
const failed = (jobId: string, errorCode = 'video_processing_failed') => e('JobFailed', { jobId, errorCode, message: 'm', retryable: errorCode === 'provider_temporarily_unavailable' });
const cancelled = (jobId: string, by = 'partner', fromStatus = 'queued') => e('JobCancelled', { jobId, by, fromStatus });

describe('audit of a known history', () => {
  const history = record([
    issued(3),
    ...submit('a', 'j1'), started('j1'), completed('j1'),
    ...submit('b', 'j2'), started('j2'), failed('j2', 'provider_temporarily_unavailable'),
    ...submit('c', 'j3'), cancelled('j3'),
    e('LimitSet', { keyId: 'k1', limit: 4 }),
    ...submit('d', 'j4'),
  ]);

  test('every budget movement is listed with the running limit/used/held/remaining', () => {
    const report = audit('k1', history);
    assert.deepEqual(report.violations, []);
    const rows = report.movements.map((m) => [m.movement, m.jobId, m.limit, m.used, m.held, m.remaining]);
    assert.deepEqual(rows, [
      ['limit', null, 3, 0, 0, 3],
      ['hold', 'j1', 3, 0, 1, 2],
      ['consume', 'j1', 3, 1, 0, 2],
      ['hold', 'j2', 3, 1, 1, 1],
      ['consume', 'j2', 3, 2, 0, 1],
      ['hold', 'j3', 3, 2, 1, 0],
      ['release', 'j3', 3, 2, 0, 1],
      ['limit', null, 4, 2, 0, 2],
      ['hold', 'j4', 4, 2, 1, 1],
    ]);
    assert.match(report.movements[4]!.note, /provider_temporarily_unavailable \(retryable\)/);
    assert.deepEqual(report.totals, { limit: 4, used: 2, held: 1, remaining: 1, status: 'active', jobs: { queued: 1, processing: 0, completed: 1, failed: 1, cancelled: 1 } });
  });

  test('--until gives the usage as it stood then', () => {
    const cut = history.find((x) => x.type === 'JobCancelled')!.recordedAt;
    const report = audit('k1', history, { until: new Date(cut) });
    assert.deepEqual([report.totals.limit, report.totals.used, report.totals.held, report.totals.remaining], [3, 2, 0, 1]);
    assert.equal(report.movements.at(-1)!.movement, 'release');
  });

  test('the read-model comparison lists each field that disagrees', () => {
    const { totals } = audit('k1', history);
    assert.deepEqual(compareWithReadModel(totals, { status: 'active', limit_n: 4, used: 2, held: 1 }), []);
    assert.deepEqual(compareWithReadModel(totals, { status: 'active', limit_n: 4, used: 3, held: 1 }), [
      { field: 'used', ledger: 2, readModel: 3 },
      { field: 'remaining', ledger: 1, readModel: 0 },
    ]);
    assert.deepEqual(compareWithReadModel(totals, undefined), [{ field: 'key', ledger: 'active', readModel: 'missing' }]);
  });
});

describe('invariants caught on broken histories', () => {
  const rules = (events: (LedgerEvent | LedgerEvent[])[]) => audit('k1', record(events)).violations.map((v) => v.rule);

  test('no over-commit: a job accepted with nothing remaining', () => {
    assert.deepEqual(rules([issued(1), ...submit('a', 'j1'), ...submit('b', 'j2')]), ['no-over-commit']);
    assert.deepEqual(rules([issued(0), ...submit('a', 'j1')]), ['no-over-commit']);
    assert.deepEqual(rules([issued(null), ...submit('a', 'j1'), ...submit('b', 'j2')]), []);
  });

  test('terminal is terminal: nothing moves a completed, failed or cancelled job', () => {
    assert.deepEqual(rules([issued(5), ...submit('a', 'j1'), started('j1'), completed('j1'), cancelled('j1', 'operator', 'processing')]), ['terminal-is-terminal']);
    assert.deepEqual(rules([issued(5), ...submit('a', 'j1'), cancelled('j1'), started('j1')]), ['terminal-is-terminal']);
    assert.deepEqual(rules([issued(5), ...submit('a', 'j1'), started('j1'), failed('j1'), completed('j1')]), ['terminal-is-terminal']);
  });

  test('used counts only jobs that ran the engine; a partner cannot cancel a processing job', () => {
    assert.deepEqual(rules([issued(5), ...submit('a', 'j1'), completed('j1')]), ['job-lifecycle']);
    assert.deepEqual(rules([issued(5), ...submit('a', 'j1'), started('j1'), cancelled('j1', 'partner', 'processing')]), ['job-lifecycle']);
    assert.deepEqual(rules([issued(5), ...submit('a', 'j1'), started('j1'), cancelled('j1', 'operator', 'queued')]), ['cancel-from-status']);
  });

  test('claim and hold are one append; a suspended key accepts nothing; a handle is single-use and only in its window', () => {
    const lone = e('JobQueued', { jobId: 'j1', handle: 'a', exerciseId: 'squat' });
    assert.deepEqual(rules([issued(5), e('SpotMinted', { handle: 'a', expiresAt: at(900) }), lone]), ['claim-and-hold-together']);
    assert.deepEqual(rules([issued(5), e('KeySuspended', { keyId: 'k1' }), ...submit('a', 'j1')]), ['accept-only-active']);
    const again = submit('a', 'j2').slice(1);
    assert.deepEqual(rules([issued(5), ...submit('a', 'j1'), ...again]), ['spot-single-use']);
    const late = submit('z', 'j9');
    (late[0] as LedgerEvent & { data: { expiresAt: string } }).data.expiresAt = at(0);
    assert.deepEqual(rules([issued(5), ...late]), ['claim-in-window']);
  });

  test('events for unknown jobs, events before issue, and gaps in the stream are flagged', () => {
    assert.deepEqual(rules([issued(5), started('nope')]), ['unknown-job']);
    assert.deepEqual(rules([e('LimitSet', { keyId: 'k1', limit: 2 }), issued(5)]), ['issued-first']);
    const events = record([issued(5), e('LimitSet', { keyId: 'k1', limit: 2 })]);
    events[1] = { ...events[1]!, revision: 5 };
    assert.deepEqual(audit('k1', events).violations.map((v) => v.rule), ['stream-order']);
  });
});
