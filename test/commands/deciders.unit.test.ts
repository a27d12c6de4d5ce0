// Given/when/then specs of the pure deciders: given past events, when a command, then new events
// (or a typed error). Time comes in with the command.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LedgerEvent } from '../../src/events/ledger.js';
import { decideJob, type JobCommand } from '../../src/commands/jobs.js';
import { decideKey, type KeyCommand } from '../../src/commands/keys.js';
import { decideUpload, type UploadCommand } from '../../src/commands/uploads.js';
import { fold, remaining } from '../../src/commands/state.js';
import { sampleResult } from '../support/engines.js';

const T0 = '2026-01-01T00:00:00.000Z';
const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();
const limits = { spotsPerWindow: 3, windowSeconds: 60, unclaimedBytesCap: 100 };

type Command = { kind: 'key'; c: KeyCommand } | { kind: 'upload'; c: UploadCommand } | { kind: 'job'; c: JobCommand };
function spec(given: LedgerEvent[]) {
  const state = fold(given);
  return {
    when(cmd: Command) {
      const run = () =>
        cmd.kind === 'key' ? decideKey(cmd.c, state) : cmd.kind === 'upload' ? decideUpload(cmd.c, state) : decideJob(cmd.c, state);
      return {
        then: (expected: LedgerEvent[]) => assert.deepEqual(run(), expected),
        thenThrows: (code: string) => assert.throws(run, (err: { code?: string; message: string }) => (err.code ?? err.message).includes(code)),
      };
    },
  };
}

const issued = (limit: number | null = null): LedgerEvent => ({ type: 'KeyIssued', data: { keyId: 'k', partnerId: 'p', partnerName: 'P', keyHash: 'h', limit, at: T0 } });
const minted = (handle: string, s = 0): LedgerEvent => ({ type: 'SpotMinted', data: { handle, expiresAt: at(s + 900), at: at(s) } });
const uploaded = (handle: string, size = 10): LedgerEvent => ({ type: 'SpotUploaded', data: { handle, size, at: at(1) } });
const claimed = (handle: string, jobId: string): LedgerEvent[] => [
  { type: 'SpotClaimed', data: { handle, jobId, exerciseId: 'squat', size: 10, at: at(2) } },
  { type: 'JobQueued', data: { jobId, handle, exerciseId: 'squat', at: at(2) } },
];
const started = (jobId: string, worker = 'w1', lease = 100): LedgerEvent => ({ type: 'JobStarted', data: { jobId, worker, attempt: 1, leaseUntil: at(lease), at: at(3) } });
const submit = (handle: string, extra: Partial<Extract<JobCommand, { type: 'SubmitJob' }>> = {}): Command => ({
  kind: 'job',
  c: { type: 'SubmitJob', handle, exerciseId: 'squat', jobId: 'j-new', size: 10, now: at(5), ...extra },
});

describe('keys', () => {
  test('issuing a key twice is refused', () => spec([issued()]).when({ kind: 'key', c: { type: 'IssueKey', keyId: 'k', partnerId: 'p', partnerName: 'P', keyHash: 'h', limit: null, now: T0 } }).thenThrows('already exists'));
  test('suspending a suspended key appends nothing', () =>
    spec([issued(), { type: 'KeySuspended', data: { keyId: 'k', at: T0 } }]).when({ kind: 'key', c: { type: 'SuspendKey', keyId: 'k', now: T0 } }).then([]));
  test('a revoked key cannot be reinstated', () =>
    spec([issued(), { type: 'KeyRevoked', data: { keyId: 'k', at: T0 } }]).when({ kind: 'key', c: { type: 'ReinstateKey', keyId: 'k', now: T0 } }).thenThrows('revoked'));
  test('setting the same limit appends nothing; a new one appends LimitSet', () => {
    spec([issued(5)]).when({ kind: 'key', c: { type: 'SetLimit', keyId: 'k', limit: 5, now: T0 } }).then([]);
    spec([issued(5)]).when({ kind: 'key', c: { type: 'SetLimit', keyId: 'k', limit: null, now: T0 } }).then([{ type: 'LimitSet', data: { keyId: 'k', limit: null, at: T0 } }]);
  });
});

describe('upload spots', () => {
  const mint = (now: string, observed = {}): Command => ({ kind: 'upload', c: { type: 'MintSpot', handle: 'new', expiresAt: at(900), now, limits, observed } });
  test('a mint inside the caps appends SpotMinted', () => spec([issued()]).when(mint(T0)).then([{ type: 'SpotMinted', data: { handle: 'new', expiresAt: at(900), at: T0 } }]));
  test('the rolling window counts mints in the last windowSeconds', () => {
    const given = [issued(), minted('a', 0), minted('b', 10), minted('c', 20)];
    spec(given).when(mint(at(30))).thenThrows('spots_per_window_exceeded');
    spec(given).when(mint(at(61))).then([{ type: 'SpotMinted', data: { handle: 'new', expiresAt: at(900), at: at(61) } }]);
  });
  test('unclaimed bytes over the cap refuse the mint; observed sizes count and are recorded on success', () => {
    spec([issued(), minted('a'), uploaded('a', 101)]).when(mint(at(5))).thenThrows('unclaimed_bytes_exceeded');
    spec([issued(), minted('a')]).when(mint(at(5), { a: 101 })).thenThrows('unclaimed_bytes_exceeded');
    spec([issued(), minted('a')]).when(mint(at(5), { a: 50 })).then([
      { type: 'SpotUploaded', data: { handle: 'a', size: 50, at: at(5) } },
      { type: 'SpotMinted', data: { handle: 'new', expiresAt: at(900), at: at(5) } },
    ]);
  });
  test('a claimed or expired spot no longer counts toward unclaimed bytes', () => {
    spec([issued(), minted('a'), uploaded('a', 101), ...claimed('a', 'j1')]).when(mint(at(5))).then([{ type: 'SpotMinted', data: { handle: 'new', expiresAt: at(900), at: at(5) } }]);
    spec([issued(), minted('a'), uploaded('a', 101)]).when(mint(at(900))).then([{ type: 'SpotMinted', data: { handle: 'new', expiresAt: at(900), at: at(900) } }]);
  });
  test('a suspended key cannot mint', () => spec([issued(), { type: 'KeySuspended', data: { keyId: 'k', at: T0 } }]).when(mint(T0)).thenThrows('authentication_error'));
  test('expiry is recorded only once the window has closed', () => {
    spec([issued(), minted('a')]).when({ kind: 'upload', c: { type: 'ExpireSpot', handle: 'a', now: at(899) } }).then([]);
    spec([issued(), minted('a')]).when({ kind: 'upload', c: { type: 'ExpireSpot', handle: 'a', now: at(900) } }).then([{ type: 'SpotExpired', data: { handle: 'a', at: at(900) } }]);
  });
});

describe('submissions and the budget', () => {
  test('a submission is one append: SpotClaimed + JobQueued', () =>
    spec([issued(1), minted('a'), uploaded('a')]).when(submit('a')).then([
      { type: 'SpotClaimed', data: { handle: 'a', jobId: 'j-new', exerciseId: 'squat', size: 10, at: at(5) } },
      { type: 'JobQueued', data: { jobId: 'j-new', handle: 'a', exerciseId: 'squat', at: at(5) } },
    ]));
  test('resubmitting a claimed handle with the same exercise appends nothing; another exercise is refused', () => {
    const given = [issued(1), minted('a'), ...claimed('a', 'j1')];
    const past = { state: 'claimed' as const, jobId: 'j1', exerciseId: 'squat' };
    spec(given).when(submit('a', { past })).then([]);
    spec(given).when(submit('a', { past, exerciseId: 'lunge' })).thenThrows('upload_already_claimed');
  });
  test('no free unit: usage_limit_exceeded; capped at zero too; uncapped never', () => {
    spec([issued(1), minted('a'), minted('b'), ...claimed('a', 'j1')]).when(submit('b')).thenThrows('usage_limit_exceeded');
    spec([issued(0), minted('a')]).when(submit('a')).thenThrows('usage_limit_exceeded');
    const many = [issued(null), ...Array.from({ length: 50 }, (_, i) => [minted(`h${i}`), ...claimed(`h${i}`, `j${i}`)]).flat(), minted('z')];
    assert.equal(decideJob(submit('z').c as JobCommand, fold(many)).length, 2);
  });
  test('expired, incomplete and unknown spots are refused with their codes', () => {
    spec([issued(), minted('a')]).when(submit('a', { now: at(900) })).thenThrows('upload_spot_expired');
    spec([issued()]).when(submit('a', { past: { state: 'expired' } })).thenThrows('upload_spot_expired');
    spec([issued(), minted('a')]).when(submit('a', { size: 0 })).thenThrows('upload_incomplete');
    spec([issued()]).when(submit('nope')).thenThrows('upload_not_found');
  });
  test('cancel: partner on queued returns the unit; partner on processing is refused; operator cancels processing', () => {
    const queued = [issued(1), minted('a'), ...claimed('a', 'j1')];
    const cancelled: LedgerEvent = { type: 'JobCancelled', data: { jobId: 'j1', by: 'partner', fromStatus: 'queued', at: at(9) } };
    spec(queued).when({ kind: 'job', c: { type: 'CancelJob', jobId: 'j1', by: 'partner', finished: true, now: at(9) } }).then([cancelled]);
    assert.equal(remaining(fold([...queued, cancelled])), 1);
    spec([...queued, started('j1')]).when({ kind: 'job', c: { type: 'CancelJob', jobId: 'j1', by: 'partner', finished: true, now: at(9) } }).thenThrows('job_already_started');
    spec([...queued, started('j1')]).when({ kind: 'job', c: { type: 'CancelJob', jobId: 'j1', by: 'operator', finished: true, now: at(9) } }).then([
      { type: 'JobCancelled', data: { jobId: 'j1', by: 'operator', fromStatus: 'processing', at: at(9) } },
    ]);
    spec([...queued, cancelled]).when({ kind: 'job', c: { type: 'CancelJob', jobId: 'j1', by: 'partner', finished: true, now: at(9) } }).thenThrows('job_already_finished');
    spec(queued).when({ kind: 'job', c: { type: 'CancelJob', jobId: 'other', by: 'partner', finished: false, now: at(9) } }).thenThrows('job_not_found');
  });
});

describe('the runner: leases and outcomes', () => {
  const queued = [issued(2), minted('a'), ...claimed('a', 'j1')];
  const start = (now: number, worker = 'w2'): Command => ({ kind: 'job', c: { type: 'StartJob', jobId: 'j1', worker, leaseUntil: at(now + 100), maxAttempts: 2, now: at(now) } });
  test('a queued job starts with attempt 1; a held lease is not taken; an expired lease is re-taken', () => {
    spec(queued).when(start(3, 'w1')).then([started('j1', 'w1', 103)]);
    spec([...queued, started('j1')]).when(start(50)).then([]);
    spec([...queued, started('j1')]).when(start(100)).then([{ type: 'JobStarted', data: { jobId: 'j1', worker: 'w2', attempt: 2, leaseUntil: at(200), at: at(100) } }]);
  });
  test('a job whose workers all died fails with the generic reason after maxAttempts', () => {
    const twice = [...queued, started('j1'), { type: 'JobStarted', data: { jobId: 'j1', worker: 'w2', attempt: 2, leaseUntil: at(150), at: at(100) } } as LedgerEvent];
    spec(twice).when(start(150)).then([
      { type: 'JobFailed', data: { jobId: 'j1', errorCode: 'analysis_failed', message: 'The analysis job failed.', detail: 'no worker finished the job in 2 attempts', retryable: false, at: at(150) } },
    ]);
  });
  test('only the lease holder completes; a cancelled job stays cancelled; used counts the run', () => {
    const complete = (worker: string): Command => ({ kind: 'job', c: { type: 'CompleteJob', jobId: 'j1', worker, result: sampleResult, engineVersion: 'v', now: at(20) } });
    spec([...queued, started('j1')]).when(complete('w2')).then([]);
    spec([...queued, started('j1'), { type: 'JobCancelled', data: { jobId: 'j1', by: 'operator', fromStatus: 'processing', at: at(9) } }]).when(complete('w1')).then([]);
    const done: LedgerEvent = { type: 'JobCompleted', data: { jobId: 'j1', result: sampleResult, engineVersion: 'v', at: at(20) } };
    spec([...queued, started('j1')]).when(complete('w1')).then([done]);
    const state = fold([...queued, started('j1'), done]);
    assert.deepEqual([state.used, state.held, remaining(state)], [1, 0, 1]);
  });
});

describe('caller-supplied keys', () => {
  test('a handle or job id named after an Object.prototype member is simply unknown', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      spec([issued()]).when(submit(name)).thenThrows('upload_not_found');
      spec([issued()]).when({ kind: 'job', c: { type: 'CancelJob', jobId: name, by: 'partner', finished: false, now: T0 } }).thenThrows('job_not_found');
      spec([issued()]).when({ kind: 'upload', c: { type: 'RecordUpload', handle: name, size: 5, now: T0 } }).then([]);
    }
  });
});
