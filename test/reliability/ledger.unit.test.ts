// Properties of the ledger over arbitrary command sequences, against the pure deciders. A small,
// independent reference model of SPEC.md and DESIGN.md predicts every outcome; the budget
// invariants are checked after every step; folding and the read models are checked per sequence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DomainError, OperatorError } from '../../src/commands/errors.js';
import { decideJob, needsBytes, GENERIC_FAILURE, type PastSpot } from '../../src/commands/jobs.js';
import { decideKey } from '../../src/commands/keys.js';
import { evolve, fold, initialState, remaining, stateFromJson, type KeyState } from '../../src/commands/state.js';
import { decideUpload } from '../../src/commands/uploads.js';
import type { LedgerEvent } from '../../src/events/ledger.js';
import { applyBatch, openReadModels } from '../../src/projections/runner.js';
import { budget, fcParams, tally } from './support/budget.js';
import { dumpReadModels, recorded, RESULT } from './support/fixtures.js';

const KEY = 'key_prop';
const STREAM = `ledger-${KEY}`;
const EXERCISES = ['squat', 'push-up'] as const;
const LIMITS = { spotsPerWindow: 4, windowSeconds: 600, unclaimedBytesCap: 150 };
const TTL_MS = 900_000;
const LEASE_MS = 30_000;
const MAX_ATTEMPTS = 3;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

type Cmd =
  | { k: 'setLimit'; limit: number | null }
  | { k: 'mint' }
  | { k: 'upload'; spot: number; size: number }
  | { k: 'submit'; spot: number; ex: number }
  | { k: 'submitUnknown' }
  | { k: 'cancel'; job: number; by: 'partner' | 'operator' }
  | { k: 'cancelUnknown' }
  | { k: 'start'; job: number; worker: number }
  | { k: 'extend'; job: number; worker: number }
  | { k: 'complete'; job: number; worker: number }
  | { k: 'fail'; job: number; worker: number }
  | { k: 'advance'; seconds: number }
  | { k: 'expireSpot'; spot: number }
  | { k: 'suspend' }
  | { k: 'reinstate' }
  | { k: 'revoke' };

const limitArb = fc.oneof({ arbitrary: fc.constant(null), weight: 2 }, { arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 4 });
const idx = fc.nat({ max: 7 });
const worker = fc.nat({ max: 2 });
const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('setLimit' as const), limit: limitArb }), weight: 4 },
  { arbitrary: fc.constant({ k: 'mint' as const }), weight: 20 },
  { arbitrary: fc.record({ k: fc.constant('upload' as const), spot: idx, size: fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 60 }), weight: 5 }) }), weight: 16 },
  { arbitrary: fc.record({ k: fc.constant('submit' as const), spot: idx, ex: fc.nat({ max: 1 }) }), weight: 24 },
  { arbitrary: fc.constant({ k: 'submitUnknown' as const }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant('cancel' as const), job: idx, by: fc.constantFrom('partner' as const, 'operator' as const) }), weight: 12 },
  { arbitrary: fc.constant({ k: 'cancelUnknown' as const }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant('start' as const), job: idx, worker }), weight: 16 },
  { arbitrary: fc.record({ k: fc.constant('extend' as const), job: idx, worker }), weight: 4 },
  { arbitrary: fc.record({ k: fc.constant('complete' as const), job: idx, worker }), weight: 12 },
  { arbitrary: fc.record({ k: fc.constant('fail' as const), job: idx, worker }), weight: 8 },
  { arbitrary: fc.record({ k: fc.constant('advance' as const), seconds: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 60 }), weight: 3 }, { arbitrary: fc.integer({ min: 300, max: 1000 }), weight: 1 }) }), weight: 8 },
  { arbitrary: fc.record({ k: fc.constant('expireSpot' as const), spot: idx }), weight: 4 },
  { arbitrary: fc.constant({ k: 'suspend' as const }), weight: 2 },
  { arbitrary: fc.constant({ k: 'reinstate' as const }), weight: 8 },
  // Rare: revocation is final and ends the interesting part of a sequence.
  { arbitrary: fc.constant({ k: 'revoke' as const }), weight: 1 },
);

type JobStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';
const TERMINAL = new Set<JobStatus>(['completed', 'failed', 'cancelled']);

/** The reference model: what SPEC.md says the key looks like, kept apart from src/commands. */
interface Model {
  status: 'active' | 'suspended' | 'revoked';
  limit: number | null;
  now: number;
  mints: number[];
  spots: Map<string, { expiresAt: number; bytes: number; recorded: number; claimedBy?: { jobId: string; ex: string }; expiredEvent: boolean }>;
  jobs: Map<string, { status: JobStatus; attempt: number; worker?: string; leaseUntil?: number }>;
}

type Outcome = { events: LedgerEvent[] } | { error: string };

const refused = (err: unknown): string => {
  if (err instanceof DomainError) return err.code;
  if (err instanceof OperatorError) return 'operator_error';
  throw err;
};

function count(m: Model, ...statuses: JobStatus[]) {
  return [...m.jobs.values()].filter((j) => statuses.includes(j.status)).length;
}
const modelRemaining = (m: Model) => (m.limit === null ? null : Math.max(0, m.limit - count(m, 'completed', 'failed') - count(m, 'queued', 'processing')));
const live = (m: Model, s: { expiresAt: number; claimedBy?: unknown }) => !s.claimedBy && s.expiresAt > m.now;

/** What the model predicts: the event types, or the refusal code. */
function predict(m: Model, cmd: Cmd, handles: string[], jobIds: string[]): { types: string[] } | { error: string } {
  const spotOf = (i: number) => handles[i % Math.max(1, handles.length)];
  const jobOf = (i: number) => jobIds[i % Math.max(1, jobIds.length)];
  switch (cmd.k) {
    case 'setLimit':
      return { types: m.limit === cmd.limit ? [] : ['LimitSet'] };
    case 'suspend':
      if (m.status === 'revoked') return { error: 'operator_error' };
      return { types: m.status === 'suspended' ? [] : ['KeySuspended'] };
    case 'reinstate':
      if (m.status === 'revoked') return { error: 'operator_error' };
      return { types: m.status === 'active' ? [] : ['KeyReinstated'] };
    case 'revoke':
      return { types: m.status === 'revoked' ? [] : ['KeyRevoked'] };
    case 'mint': {
      if (m.status !== 'active') return { error: 'authentication_error' };
      if (m.mints.filter((t) => t > m.now - LIMITS.windowSeconds * 1000).length >= LIMITS.spotsPerWindow) return { error: 'spots_per_window_exceeded' };
      const unclaimed = [...m.spots.values()].filter((s) => live(m, s)).reduce((n, s) => n + s.recorded, 0);
      if (unclaimed > LIMITS.unclaimedBytesCap) return { error: 'unclaimed_bytes_exceeded' };
      return { types: ['SpotMinted'] };
    }
    case 'upload': {
      const s = m.spots.get(spotOf(cmd.spot) ?? '');
      if (!s || !live(m, s) || s.expiredEvent || s.recorded === cmd.size) return { types: [] };
      return { types: ['SpotUploaded'] };
    }
    case 'expireSpot': {
      const s = m.spots.get(spotOf(cmd.spot) ?? '');
      return { types: s && !s.claimedBy && !s.expiredEvent && s.expiresAt <= m.now ? ['SpotExpired'] : [] };
    }
    case 'submitUnknown':
      return m.status !== 'active' ? { error: 'authentication_error' } : { error: 'upload_not_found' };
    case 'submit': {
      if (m.status !== 'active') return { error: 'authentication_error' };
      const s = m.spots.get(spotOf(cmd.spot) ?? '');
      if (!s) return { error: 'upload_not_found' };
      if (s.claimedBy) return s.claimedBy.ex === EXERCISES[cmd.ex] ? { types: [] } : { error: 'upload_already_claimed' };
      const free = modelRemaining(m);
      if (free !== null && free < 1) return { error: 'usage_limit_exceeded' };
      if (s.expiresAt <= m.now) return { error: 'upload_spot_expired' };
      if (s.bytes <= 0) return { error: 'upload_incomplete' };
      return { types: ['SpotClaimed', 'JobQueued'] };
    }
    case 'cancelUnknown':
      return { error: 'job_not_found' };
    case 'cancel': {
      const j = m.jobs.get(jobOf(cmd.job) ?? '');
      if (!j) return { error: 'job_not_found' };
      if (TERMINAL.has(j.status)) return { error: 'job_already_finished' };
      if (cmd.by === 'partner' && j.status === 'processing') return { error: 'job_already_started' };
      return { types: ['JobCancelled'] };
    }
    case 'start': {
      const j = m.jobs.get(jobOf(cmd.job) ?? '');
      if (!j || TERMINAL.has(j.status)) return { types: [] };
      if (j.status === 'processing' && j.leaseUntil! > m.now) return { types: [] };
      return { types: [j.attempt >= MAX_ATTEMPTS ? 'JobFailed' : 'JobStarted'] };
    }
    case 'extend':
    case 'complete':
    case 'fail': {
      const j = m.jobs.get(jobOf(cmd.job) ?? '');
      if (!j || j.status !== 'processing' || j.worker !== `w${cmd.worker}`) return { types: [] };
      return { types: [{ extend: 'JobLeaseExtended', complete: 'JobCompleted', fail: 'JobFailed' }[cmd.k]] };
    }
    case 'advance':
      return { types: [] };
  }
}

/** Runs one command through the deciders the way src/commands/partner.ts and the runner do. */
function execute(state: KeyState, m: Model, cmd: Cmd, handles: string[], jobIds: string[], fresh: () => string): Outcome {
  const now = new Date(m.now).toISOString();
  const spotOf = (i: number) => handles[i % Math.max(1, handles.length)] ?? 'up_none';
  const jobOf = (i: number) => jobIds[i % Math.max(1, jobIds.length)] ?? 'job_none';
  const attempt = (f: () => LedgerEvent[]): Outcome => {
    try {
      return { events: f() };
    } catch (err) {
      return { error: refused(err) };
    }
  };
  switch (cmd.k) {
    case 'setLimit':
      return attempt(() => decideKey({ type: 'SetLimit', keyId: KEY, limit: cmd.limit, now }, state));
    case 'suspend':
      return attempt(() => decideKey({ type: 'SuspendKey', keyId: KEY, now }, state));
    case 'reinstate':
      return attempt(() => decideKey({ type: 'ReinstateKey', keyId: KEY, now }, state));
    case 'revoke':
      return attempt(() => decideKey({ type: 'RevokeKey', keyId: KEY, now }, state));
    case 'mint': {
      const handle = fresh();
      const expiresAt = new Date(m.now + TTL_MS).toISOString();
      return attempt(() => decideUpload({ type: 'MintSpot', handle, expiresAt, now, limits: LIMITS, observed: {} }, state));
    }
    case 'upload':
      return attempt(() => decideUpload({ type: 'RecordUpload', handle: spotOf(cmd.spot), size: cmd.size, now }, state));
    case 'expireSpot':
      return attempt(() => decideUpload({ type: 'ExpireSpot', handle: spotOf(cmd.spot), now }, state));
    case 'submit':
    case 'submitUnknown': {
      const handle = cmd.k === 'submit' ? spotOf(cmd.spot) : 'up_never_minted';
      const exerciseId = cmd.k === 'submit' ? EXERCISES[cmd.ex]! : 'squat';
      const spot = m.spots.get(handle);
      // What the read models would say of a spot no longer in the decision state.
      const past: PastSpot | undefined = state.spots.has(handle) || !spot
        ? undefined
        : spot.claimedBy ? { state: 'claimed', jobId: spot.claimedBy.jobId, exerciseId: spot.claimedBy.ex } : { state: 'expired' };
      const size = needsBytes(state, handle, now) ? (spot?.bytes ?? 0) : 0;
      return attempt(() => decideJob({ type: 'SubmitJob', handle, exerciseId, jobId: fresh(), size, past, now }, state));
    }
    case 'cancel':
    case 'cancelUnknown': {
      const jobId = cmd.k === 'cancel' ? jobOf(cmd.job) : 'job_never_queued';
      // partner.ts: a job the read model knows but the decision state does not is finished.
      const finished = m.jobs.has(jobId);
      if (!finished && cmd.k === 'cancel' && jobIds.length > 0) throw new Error('model lost a job');
      if (!finished) return { error: 'job_not_found' };
      return attempt(() => decideJob({ type: 'CancelJob', jobId, by: cmd.k === 'cancel' ? cmd.by : 'partner', finished, now }, state));
    }
    case 'start':
      return attempt(() => decideJob({ type: 'StartJob', jobId: jobOf(cmd.job), worker: `w${cmd.worker}`, leaseUntil: new Date(m.now + LEASE_MS).toISOString(), maxAttempts: MAX_ATTEMPTS, now }, state));
    case 'extend':
      return attempt(() => decideJob({ type: 'ExtendLease', jobId: jobOf(cmd.job), worker: `w${cmd.worker}`, leaseUntil: new Date(m.now + LEASE_MS).toISOString(), now }, state));
    case 'complete':
      return attempt(() => decideJob({ type: 'CompleteJob', jobId: jobOf(cmd.job), worker: `w${cmd.worker}`, result: RESULT, engineVersion: 'test', now }, state));
    case 'fail':
      return attempt(() => decideJob({ type: 'FailJob', jobId: jobOf(cmd.job), worker: `w${cmd.worker}`, errorCode: 'video_processing_failed', message: 'The video could not be processed for analysis.', now }, state));
    case 'advance':
      return { events: [] };
  }
}

/** Moves the model by the appended events; throws when an event breaks a rule of SPEC.md. */
function record(m: Model, events: readonly LedgerEvent[], cmd: Cmd) {
  for (const e of events) {
    switch (e.type) {
      case 'KeySuspended': m.status = 'suspended'; break;
      case 'KeyReinstated': m.status = 'active'; break;
      case 'KeyRevoked': m.status = 'revoked'; break;
      case 'LimitSet': m.limit = e.data.limit; break;
      case 'SpotMinted':
        m.mints.push(Date.parse(e.data.at));
        m.spots.set(e.data.handle, { expiresAt: Date.parse(e.data.expiresAt), bytes: 0, recorded: 0, expiredEvent: false });
        break;
      case 'SpotUploaded': m.spots.get(e.data.handle)!.recorded = e.data.size; break;
      case 'SpotExpired': m.spots.get(e.data.handle)!.expiredEvent = true; break;
      case 'SpotClaimed': {
        const s = m.spots.get(e.data.handle)!;
        assert.equal(s.claimedBy, undefined, `handle ${e.data.handle} claimed by a second job`);
        s.claimedBy = { jobId: e.data.jobId, ex: e.data.exerciseId };
        break;
      }
      case 'JobQueued':
        assert.ok(!m.jobs.has(e.data.jobId), 'a job id queued twice');
        m.jobs.set(e.data.jobId, { status: 'queued', attempt: 0 });
        break;
      case 'JobStarted':
      case 'JobLeaseExtended':
      case 'JobCompleted':
      case 'JobFailed':
      case 'JobCancelled': {
        const j = m.jobs.get(e.data.jobId)!;
        assert.ok(!TERMINAL.has(j.status), `terminal is terminal: ${e.type} on a ${j.status} job`);
        if (e.type === 'JobStarted') Object.assign(j, { status: 'processing', attempt: e.data.attempt, worker: e.data.worker, leaseUntil: Date.parse(e.data.leaseUntil) });
        if (e.type === 'JobLeaseExtended') j.leaseUntil = Date.parse(e.data.leaseUntil);
        if (e.type === 'JobCompleted') j.status = 'completed';
        if (e.type === 'JobFailed') j.status = 'failed';
        if (e.type === 'JobCancelled') {
          assert.ok(e.data.by === 'operator' || j.status === 'queued', 'a partner cancelled a started job');
          j.status = 'cancelled';
        }
        break;
      }
      default:
        throw new Error(`unexpected event ${e.type} for ${cmd.k}`);
    }
  }
  // Bytes in storage: a PUT lands only on a live spot (the storage host refuses the others).
  if (cmd.k === 'upload') {
    const handle = [...m.spots.keys()][cmd.spot % Math.max(1, m.spots.size)];
    const s = handle ? m.spots.get(handle) : undefined;
    if (s && live(m, s)) s.bytes = cmd.size;
  }
}

/** DESIGN.md's budget invariants, checked against the decision state after every step. */
function checkInvariants(state: KeyState, m: Model) {
  const used = count(m, 'completed', 'failed');
  const held = count(m, 'queued', 'processing');
  assert.equal(state.used, used, 'used = completed + failed');
  assert.equal(state.held, held, 'held = queued + processing');
  assert.equal(remaining(state), m.limit === null ? null : Math.max(0, m.limit - used - held), 'remaining = max(0, limit - used - held), null when uncapped');
  assert.equal(state.jobs.size, held, 'the decision state holds exactly the live jobs');
  for (const [jobId, j] of state.jobs.entries()) assert.equal(j.status, m.jobs.get(jobId)?.status, `job ${jobId} status`);
  for (const handle of state.spots.keys()) assert.equal(m.spots.get(handle)?.claimedBy, undefined, 'a claimed spot left the decision state');
}

function runSequence(limit: number | null, cmds: Cmd[]) {
  let n = 0;
  const fresh = () => `id_${String(n++).padStart(4, '0')}`;
  const m: Model = { status: 'active', limit, now: T0, mints: [], spots: new Map(), jobs: new Map() };
  const issued: LedgerEvent = { type: 'KeyIssued', data: { keyId: KEY, partnerId: 'ptn', partnerName: 'P', keyHash: 'h', limit, at: new Date(T0).toISOString() } };
  assert.deepEqual(decideKey({ type: 'IssueKey', keyId: KEY, partnerId: 'ptn', partnerName: 'P', keyHash: 'h', limit, now: issued.data.at }, initialState()), [issued]);
  const log: LedgerEvent[] = [issued];
  let state = evolve(initialState(), issued);
  for (const cmd of cmds) {
    if (cmd.k === 'advance') m.now += cmd.seconds * 1000;
    const handles = [...m.spots.keys()];
    const jobIds = [...m.jobs.keys()];
    const expected = predict(m, cmd, handles, jobIds);
    const before = { ...state, remaining: remaining(state) };
    const outcome = execute(state, m, cmd, handles, jobIds, fresh);
    if ('error' in outcome) {
      assert.deepEqual(outcome, expected, `refusal of ${JSON.stringify(cmd)}`);
      continue; // a refused command appends nothing: there is nothing to append
    }
    assert.deepEqual(outcome.events.map((e) => e.type), 'types' in expected ? expected.types : expected, `events of ${JSON.stringify(cmd)}`);
    record(m, outcome.events, cmd);
    state = outcome.events.reduce(evolve, state);
    log.push(...outcome.events);
    checkInvariants(state, m);

    const types = outcome.events.map((e) => e.type);
    if (types.includes('JobQueued')) {
      assert.ok(before.status === 'active', 'only an active key submits');
      assert.ok(before.remaining === null || before.remaining >= 1, 'no acceptance without a free unit');
      assert.equal(state.held, before.held + 1, 'an accepted job holds one unit');
    }
    if (cmd.k === 'submit' && types.length === 0) assert.equal(state.held, before.held, 'a resubmission holds nothing new');
    if (types.includes('JobCancelled')) {
      assert.equal(state.held, before.held - 1, 'a cancel returns the held unit');
      assert.equal(state.used, before.used, 'a cancelled job is not counted in used');
      if (state.limit !== null && state.limit >= before.used + before.held) assert.equal(remaining(state), before.remaining! + 1, 'a cancel frees one unit');
    }
    if (types.includes('JobFailed') && cmd.k === 'start') {
      const failed = outcome.events[0] as Extract<LedgerEvent, { type: 'JobFailed' }>;
      assert.equal(failed.data.errorCode, GENERIC_FAILURE.errorCode, 'exhausted attempts fail with the generic reason');
    }
  }
  return { log, state, model: m };
}

const sequences = fc.tuple(limitArb, fc.array(cmdArb, { maxLength: budget(60, 150), size: 'max' }));
const counts = tally();

test('budget invariants hold after every step of any command sequence (DESIGN.md: budget invariants)', () => {
  fc.assert(
    fc.property(sequences, ([limit, cmds]) => {
      runSequence(limit, cmds);
      counts.add({ sequences: 1, steps: cmds.length });
    }),
    fcParams(budget(300, 5000)),
  );
});

test('folding the events twice, or from any snapshot, gives the same state (DESIGN.md: replay)', () => {
  fc.assert(
    fc.property(sequences, ([limit, cmds]) => {
      const { log, state } = runSequence(limit, cmds);
      // Compared as JSON: the persistent maps' inner layout depends on how a version was reached.
      const plain = (s: KeyState) => JSON.parse(JSON.stringify(s));
      assert.deepEqual(plain(fold(log)), plain(state), 'a fresh fold equals the incremental state');
      assert.deepEqual(plain(fold(log)), plain(fold(log)), 'folding twice gives the same state');
      for (let cut = 0; cut <= log.length; cut++) {
        const snapshot = stateFromJson(plain(fold(log.slice(0, cut))));
        assert.deepEqual(plain(fold(log.slice(cut), snapshot)), plain(state), `fold from the snapshot at ${cut}`);
      }
      counts.add({ sequences: 1, steps: cmds.length });
    }),
    fcParams(budget(100, 1500)),
  );
});

test('applying events twice to the read models gives the same rows as once (projections are idempotent)', () => {
  fc.assert(
    fc.property(sequences, fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 6 }), ([limit, cmds], replays) => {
      const { log, state, model } = runSequence(limit, cmds);
      const events = recorded(STREAM, log);
      const once = openReadModels(':memory:');
      const again = openReadModels(':memory:');
      try {
        applyBatch(once, events);
        // One event at a time, then arbitrary overlapping slices of the past delivered again.
        for (const e of events) applyBatch(again, [e]);
        for (const [a, b] of replays) applyBatch(again, events.slice(Math.min(a, b) % (events.length + 1), Math.max(a, b) % (events.length + 1) + 1));
        applyBatch(again, events);
        assert.deepEqual(dumpReadModels(again), dumpReadModels(once));

        // And the rows agree with the fold and with the model.
        const key = once.prepare('SELECT * FROM keys').get() as { used: number; held: number; limit_n: number | null; status: string };
        assert.deepEqual({ used: key.used, held: key.held, limit: key.limit_n }, { used: state.used, held: state.held, limit: state.limit });
        assert.equal(key.status, model.status);
        const jobs = once.prepare('SELECT job_id, status FROM jobs').all() as { job_id: string; status: string }[];
        assert.deepEqual(Object.fromEntries(jobs.map((j) => [j.job_id, j.status])), Object.fromEntries([...model.jobs].map(([id, j]) => [id, j.status])));
        const claimed = once.prepare(`SELECT handle, job_id, exercise_id FROM uploads WHERE state = 'claimed'`).all();
        const modelClaims = [...model.spots].filter(([, s]) => s.claimedBy).map(([handle, s]) => ({ handle, job_id: s.claimedBy!.jobId, exercise_id: s.claimedBy!.ex }));
        assert.deepEqual(
          [...claimed].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
          modelClaims.sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
        );
      } finally {
        once.close();
        again.close();
      }
      counts.add({ sequences: 1, steps: cmds.length });
    }),
    fcParams(budget(100, 1500)),
  );
});
