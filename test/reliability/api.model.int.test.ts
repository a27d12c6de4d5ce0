// Model-based test of the running API: fc.commands drive the real HTTP server (and, for the
// service side, the same ledger commands the job runner and the operator CLI use) while a small
// reference model of SPEC.md predicts every status code, error code, body and the usage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decideJob } from '../../src/commands/jobs.js';
import { decideKey } from '../../src/commands/keys.js';
import { cancelJob } from '../../src/commands/partner.js';
import { DomainError } from '../../src/commands/errors.js';
import { sweepOnce } from '../../src/runner/sweeper.js';
import { startHarness, type Harness } from '../support/harness.js';
import { budget, fcParams, tally } from './support/budget.js';
import { RESULT } from './support/fixtures.js';

const TTL = 900_000;
const WINDOW = 600_000;
const SPOTS_PER_WINDOW = 4;
const BYTES_CAP = 150;
const LEASE = 30_000;
const MAX_ATTEMPTS = 3;
const FAILURES = {
  video: { error_code: 'video_processing_failed', message: 'The video could not be processed for analysis.' },
  provider: { error_code: 'provider_temporarily_unavailable', message: 'The analysis provider was temporarily unavailable and retries were exhausted.' },
  generic: { error_code: 'analysis_failed', message: 'The analysis job failed.' },
} as const;
type Failure = keyof typeof FAILURES;

type JobStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled';
interface MSpot { handle: string; url: string; expiresAt: number; bytes: number; claim?: { jobId: string; ex: string } }
interface MJob { jobId: string; owner: number; status: JobStatus; attempt: number; worker?: string; leaseUntil?: number; failure?: Failure }
interface MKey { apiKey: string; keyId: string; partnerId: string; name: string; status: 'active' | 'suspended'; limit: number | null; mints: number[]; spots: MSpot[] }
interface Model { keys: MKey[]; jobs: MJob[]; clock: { now: number } }
interface Real { h: Harness }

const TERMINAL = new Set<JobStatus>(['completed', 'failed', 'cancelled']);
const counts = tally();
const envelope = (status: number, code: string) => ({ status, code });
const got = (r: { status: number; body: any }) => ({ status: r.status, code: r.body?.error?.code });
/** The i-th most recent entry (small indexes, the ones generators favour, hit fresh spots and jobs). */
const pick = <T>(list: readonly T[], i: number): T | undefined => list[list.length - 1 - (i % Math.max(1, list.length))];
const live = (m: Model, s: MSpot) => !s.claim && s.expiresAt > m.clock.now;

function usage(m: Model, k: number) {
  const mine = m.jobs.filter((j) => j.owner === k);
  const used = mine.filter((j) => j.status === 'completed' || j.status === 'failed').length;
  const held = mine.filter((j) => j.status === 'queued' || j.status === 'processing').length;
  const { limit } = m.keys[k]!;
  return { limit, used, remaining: limit === null ? null : Math.max(0, limit - used - held) };
}

/** SPEC's job body: result only when completed, error_code and message only when failed. */
function jobBody(j: MJob) {
  if (j.status === 'completed') return { job_id: j.jobId, status: j.status, result: RESULT };
  if (j.status === 'failed') return { job_id: j.jobId, status: j.status, ...FAILURES[j.failure!] };
  return { job_id: j.jobId, status: j.status };
}

/** The ledger must not grow on a refused request or a read. */
async function appendsNothing(r: Real, run: () => Promise<void>) {
  const before = await r.h.svc.store.lastPosition();
  await run();
  assert.equal(await r.h.svc.store.lastPosition(), before, 'a refused request or a read appends nothing');
}

let steps = 0;

abstract class Step implements fc.AsyncCommand<Model, Real> {
  check(_m: Readonly<Model>) {
    return true;
  }
  async run(m: Model, r: Real) {
    steps++;
    await this.act(m, r);
    // Identity after every step: usage as the model counts it, for both keys.
    for (const [k, key] of m.keys.entries()) {
      const res = await r.h.request('GET', '/v1/identity', { key: key.apiKey });
      if (key.status !== 'active') assert.deepEqual(got(res), envelope(401, 'authentication_error'));
      else assert.deepEqual(res.body, { partner_id: key.partnerId, partner_name: key.name, status: 'active', usage: usage(m, k) }, `identity of key ${k} after ${this}`);
    }
  }
  abstract act(m: Model, r: Real): Promise<void>;
  abstract toString(): string;
}

class Mint extends Step {
  readonly k: number;
  constructor(k: number) { super(); this.k = k; }
  async act(m: Model, r: Real) {
    const key = m.keys[this.k]!;
    const res = await r.h.request('POST', '/v1/uploads', { key: key.apiKey });
    let expected = { status: 201, code: undefined as string | undefined };
    if (key.status !== 'active') expected = envelope(401, 'authentication_error');
    else if (key.mints.filter((t) => t > m.clock.now - WINDOW).length >= SPOTS_PER_WINDOW) expected = envelope(429, 'spots_per_window_exceeded');
    else if (key.spots.filter((s) => live(m, s)).reduce((n, s) => n + s.bytes, 0) > BYTES_CAP) expected = envelope(429, 'unclaimed_bytes_exceeded');
    assert.deepEqual(got(res), expected, res.text);
    if (res.status !== 201) return;
    assert.equal(res.body.expires_at, new Date(m.clock.now + TTL).toISOString(), 'expires_at is 900 s after minting');
    assert.match(res.body.upload_url, new RegExp(`/${res.body.handle}\\?`), 'the handle is the object name in upload_url');
    key.mints.push(m.clock.now);
    key.spots.push({ handle: res.body.handle, url: res.body.upload_url, expiresAt: m.clock.now + TTL, bytes: 0 });
  }
  toString() { return `Mint(${this.k})`; }
}

class Put extends Step {
  readonly k: number;
  readonly spot: number;
  readonly size: number;
  constructor(k: number, spot: number, size: number) { super(); this.k = k; this.spot = spot; this.size = size; }
  override check(m: Readonly<Model>) { return m.keys[this.k]!.spots.length > 0; }
  async act(m: Model, r: Real) {
    const s = pick(m.keys[this.k]!.spots, this.spot)!;
    const res = await fetch(s.url, { method: 'PUT', body: new Uint8Array(this.size), headers: { 'content-type': 'video/mp4' } });
    const text = await res.text();
    const expected = s.expiresAt <= m.clock.now ? envelope(403, 'url_expired') : s.claim ? envelope(403, 'upload_closed') : { status: 200, code: undefined };
    assert.deepEqual({ status: res.status, code: text ? JSON.parse(text).error?.code : undefined }, expected, text);
    if (res.status === 200) {
      assert.equal(text, '', 'a successful PUT has an empty body');
      s.bytes = this.size;
    }
  }
  toString() { return `Put(${this.k}, ${this.spot}, ${this.size})`; }
}

/** A partner's usual flow: mint a spot and PUT the bytes straight away. */
class Upload extends Step {
  readonly k: number;
  readonly size: number;
  constructor(k: number, size: number) { super(); this.k = k; this.size = size; }
  async act(m: Model, r: Real) {
    const before = m.keys[this.k]!.spots.length;
    await new Mint(this.k).act(m, r);
    if (m.keys[this.k]!.spots.length > before) await new Put(this.k, 0, this.size).act(m, r);
  }
  toString() { return `Upload(${this.k}, ${this.size})`; }
}

class GetUpload extends Step {
  readonly k: number;
  readonly owner: number;
  readonly spot: number;
  constructor(k: number, owner: number, spot: number) { super(); this.k = k; this.owner = owner; this.spot = spot; }
  override check(m: Readonly<Model>) { return m.keys[this.owner]!.spots.length > 0; }
  async act(m: Model, r: Real) {
    const s = pick(m.keys[this.owner]!.spots, this.spot)!;
    const key = m.keys[this.k]!;
    await appendsNothing(r, async () => {
      const res = await r.h.request('GET', `/v1/uploads/${s.handle}`, { key: key.apiKey });
      if (key.status !== 'active') return assert.deepEqual(got(res), envelope(401, 'authentication_error'));
      if (this.k !== this.owner) return assert.deepEqual(got(res), envelope(404, 'upload_not_found'), 'a foreign handle is not found');
      const state = s.claim ? 'claimed' : s.expiresAt <= m.clock.now ? 'expired' : s.bytes > 0 ? 'uploaded' : 'minted';
      assert.deepEqual([res.status, res.body], [200, { handle: s.handle, state, expires_at: new Date(s.expiresAt).toISOString() }]);
    });
  }
  toString() { return `GetUpload(${this.k}, of ${this.owner}, ${this.spot})`; }
}

class Submit extends Step {
  readonly k: number;
  readonly owner: number;
  readonly spot: number;
  readonly ex: string;
  readonly anyTime: boolean;
  constructor(k: number, owner: number, spot: number, ex: string, anyTime = false) { super(); this.k = k; this.owner = owner; this.spot = spot; this.ex = ex; this.anyTime = anyTime; }
  override check(m: Readonly<Model>) { return this.anyTime || m.keys[this.owner]!.spots.length > 0; }
  async act(m: Model, r: Real) {
    const key = m.keys[this.k]!;
    const s = pick(m.keys[this.owner]!.spots, this.spot);
    const handle = s?.handle ?? 'up_AAAAAAAAAAAAAAAAAAAAAA';
    const before = await r.h.svc.store.lastPosition();
    const res = await r.h.request('POST', '/v1/jobs', { key: key.apiKey, body: { upload_handle: handle, exercise_id: this.ex } });
    const free = usage(m, this.k).remaining;
    let expected: { status: number; code?: string };
    let original: MJob | undefined;
    if (key.status !== 'active') expected = envelope(401, 'authentication_error');
    else if (this.ex === 'no-such-exercise') expected = envelope(404, 'unknown_exercise');
    else if (!s || this.owner !== this.k) expected = envelope(404, 'upload_not_found');
    else if (s.claim) {
      if (s.claim.ex === this.ex) original = m.jobs.find((j) => j.jobId === s.claim!.jobId);
      expected = original ? { status: 201, code: undefined } : envelope(409, 'upload_already_claimed');
    } else if (free !== null && free < 1) expected = envelope(429, 'usage_limit_exceeded');
    else if (s.expiresAt <= m.clock.now) expected = envelope(410, 'upload_spot_expired');
    else if (s.bytes === 0) expected = envelope(409, 'upload_incomplete');
    else expected = { status: 201, code: undefined };
    assert.deepEqual(got(res), expected, res.text);
    const after = await r.h.svc.store.lastPosition();
    if (res.status !== 201 || original) {
      assert.equal(after, before, 'a refused or repeated submission appends nothing');
      if (original) assert.deepEqual(res.body, { job_id: original.jobId, status: original.status }, 'same handle, same exercise: the original job');
      return;
    }
    assert.deepEqual(res.body, { job_id: res.body.job_id, status: 'queued' });
    assert.ok(!m.jobs.some((j) => j.jobId === res.body.job_id), 'a new job id');
    s!.claim = { jobId: res.body.job_id, ex: this.ex };
    m.jobs.push({ jobId: res.body.job_id, owner: this.k, status: 'queued', attempt: 0 });
  }
  toString() { return `Submit(${this.k}, spot ${this.spot} of ${this.owner}, ${this.ex})`; }
}

const MALFORMED: { name: string; raw: string }[] = [
  { name: 'not JSON', raw: '{"upload_handle": ' },
  { name: 'an array', raw: '[]' },
  { name: 'null', raw: 'null' },
  { name: 'a string', raw: '"squat"' },
  { name: 'no exercise_id', raw: '{"upload_handle":"up_x"}' },
  { name: 'no upload_handle', raw: '{"exercise_id":"squat"}' },
  { name: 'empty upload_handle', raw: '{"upload_handle":"","exercise_id":"squat"}' },
  { name: 'a number handle', raw: '{"upload_handle":12,"exercise_id":"squat"}' },
  { name: 'the legacy video_url body', raw: '{"video_url":"https://example.com/v.mp4","exercise_id":"squat"}' },
  { name: 'video_url beside a handle', raw: '{"upload_handle":"up_x","video_url":"https://example.com/v.mp4","exercise_id":"squat"}' },
  { name: 'an empty body', raw: '' },
];

class SubmitMalformed extends Step {
  readonly k: number;
  readonly variant: number;
  constructor(k: number, variant: number) { super(); this.k = k; this.variant = variant; }
  async act(m: Model, r: Real) {
    const key = m.keys[this.k]!;
    const { raw } = MALFORMED[this.variant % MALFORMED.length]!;
    await appendsNothing(r, async () => {
      const res = await r.h.request('POST', '/v1/jobs', { key: key.apiKey, raw, headers: { 'content-type': 'application/json' } });
      assert.deepEqual(got(res), key.status === 'active' ? envelope(400, 'malformed_request') : envelope(401, 'authentication_error'), res.text);
    });
  }
  toString() { return `SubmitMalformed(${this.k}, ${MALFORMED[this.variant % MALFORMED.length]!.name})`; }
}

class Cancel extends Step {
  readonly k: number;
  readonly job: number;
  constructor(k: number, job: number) { super(); this.k = k; this.job = job; }
  async act(m: Model, r: Real) {
    const key = m.keys[this.k]!;
    const j = pick(m.jobs, this.job);
    const jobId = j?.jobId ?? '00000000-0000-4000-8000-000000000000';
    const before = await r.h.svc.store.lastPosition();
    const res = await r.h.request('POST', `/v1/jobs/${jobId}/cancel`, { key: key.apiKey });
    let expected: { status: number; code?: string } = { status: 200, code: undefined };
    if (key.status !== 'active') expected = envelope(401, 'authentication_error');
    else if (!j || j.owner !== this.k) expected = envelope(404, 'job_not_found');
    else if (j.status === 'processing') expected = envelope(409, 'job_already_started');
    else if (TERMINAL.has(j.status)) expected = envelope(409, 'job_already_finished');
    assert.deepEqual(got(res), expected, res.text);
    if (res.status !== 200) return assert.equal(await r.h.svc.store.lastPosition(), before, 'a refused cancel appends nothing');
    assert.deepEqual(res.body, { job_id: jobId, status: 'cancelled' });
    j!.status = 'cancelled';
  }
  toString() { return `Cancel(${this.k}, job ${this.job})`; }
}

class GetJob extends Step {
  readonly k: number;
  readonly job: number;
  constructor(k: number, job: number) { super(); this.k = k; this.job = job; }
  override check(m: Readonly<Model>) { return m.jobs.length > 0; }
  async act(m: Model, r: Real) {
    const key = m.keys[this.k]!;
    const j = pick(m.jobs, this.job)!;
    await appendsNothing(r, async () => {
      const res = await r.h.request('GET', `/v1/jobs/${j.jobId}`, { key: key.apiKey });
      if (key.status !== 'active') return assert.deepEqual(got(res), envelope(401, 'authentication_error'));
      if (j.owner !== this.k) return assert.deepEqual(got(res), envelope(404, 'job_not_found'), 'a foreign job is not found');
      assert.deepEqual([res.status, res.body], [200, jobBody(j)]);
    });
  }
  toString() { return `GetJob(${this.k}, job ${this.job})`; }
}

class ListJobs extends Step {
  readonly k: number;
  constructor(k: number) { super(); this.k = k; }
  async act(m: Model, r: Real) {
    const key = m.keys[this.k]!;
    await appendsNothing(r, async () => {
      const res = await r.h.request('GET', '/v1/jobs', { key: key.apiKey });
      if (key.status !== 'active') return assert.deepEqual(got(res), envelope(401, 'authentication_error'));
      assert.equal(res.status, 200);
      const byId = (a: { job_id: string }, b: { job_id: string }) => a.job_id.localeCompare(b.job_id);
      const mine = m.jobs.filter((j) => j.owner === this.k).map((j) => ({ job_id: j.jobId, status: j.status }));
      assert.deepEqual([...res.body.jobs].sort(byId), mine.sort(byId), 'the list holds exactly my jobs, never a result');
    });
  }
  toString() { return `ListJobs(${this.k})`; }
}

/** The job runner's commands, as src/runner/runner.ts issues them through the ledger. */
class Work extends Step {
  readonly job: number;
  readonly action: 'start' | 'complete' | 'fail' | 'stale-complete';
  readonly failure: Failure;
  constructor(job: number, action: 'start' | 'complete' | 'fail' | 'stale-complete', failure: Failure = 'video') { super(); this.job = job; this.action = action; this.failure = failure; }
  override check(m: Readonly<Model>) { return m.jobs.length > 0; }
  async act(m: Model, r: Real) {
    const j = pick(m.jobs, this.job)!;
    const keyId = m.keys[j.owner]!.keyId;
    const now = new Date(m.clock.now).toISOString();
    const worker = this.action === 'start' ? `w${j.attempt + 1}` : this.action === 'stale-complete' ? `w${j.attempt}-stale` : (j.worker ?? 'w0');
    const { events } = await r.h.svc.ledger.handle(keyId, (s) => {
      switch (this.action) {
        case 'start':
          return decideJob({ type: 'StartJob', jobId: j.jobId, worker, leaseUntil: new Date(m.clock.now + LEASE).toISOString(), maxAttempts: MAX_ATTEMPTS, now }, s);
        case 'complete':
        case 'stale-complete':
          return decideJob({ type: 'CompleteJob', jobId: j.jobId, worker, result: RESULT, engineVersion: 'model', now }, s);
        case 'fail':
          return decideJob({ type: 'FailJob', jobId: j.jobId, worker, errorCode: FAILURES[this.failure].error_code, message: FAILURES[this.failure].message, now }, s);
      }
    });
    let expected: string[] = [];
    if (this.action === 'start' && !TERMINAL.has(j.status) && !(j.status === 'processing' && j.leaseUntil! > m.clock.now)) {
      expected = [j.attempt >= MAX_ATTEMPTS ? 'JobFailed' : 'JobStarted'];
    }
    if ((this.action === 'complete' || this.action === 'fail') && j.status === 'processing') expected = [this.action === 'complete' ? 'JobCompleted' : 'JobFailed'];
    assert.deepEqual(events.map((e) => e.type), expected, `${this} on a ${j.status} job`);
    if (expected[0] === 'JobStarted') Object.assign(j, { status: 'processing', attempt: j.attempt + 1, worker, leaseUntil: m.clock.now + LEASE });
    if (expected[0] === 'JobCompleted') j.status = 'completed';
    if (expected[0] === 'JobFailed') Object.assign(j, { status: 'failed', failure: this.action === 'start' ? 'generic' : this.failure });
  }
  toString() { return `Work(job ${this.job}, ${this.action}${this.action === 'fail' ? ` ${this.failure}` : ''})`; }
}

/** The operator's `jobs cancel`, `keys set-limit|suspend|reinstate`, and the spot sweeper. */
class Operator extends Step {
  readonly action: 'cancel' | 'set-limit' | 'suspend' | 'reinstate' | 'sweep';
  readonly n: number;
  readonly limit: number | null;
  constructor(action: 'cancel' | 'set-limit' | 'suspend' | 'reinstate' | 'sweep', n: number, limit: number | null = null) { super(); this.action = action; this.n = n; this.limit = limit; }
  async act(m: Model, r: Real) {
    const now = new Date(m.clock.now).toISOString();
    const key = m.keys[this.n % m.keys.length]!;
    const svc = r.h.svc;
    switch (this.action) {
      case 'cancel': {
        const j = pick(m.jobs, this.n);
        if (!j) return;
        const outcome = await cancelJob(svc, j.jobId, 'operator').then(() => 'cancelled', (err) => (err instanceof DomainError ? err.code : Promise.reject(err)));
        assert.equal(outcome, TERMINAL.has(j.status) ? 'job_already_finished' : 'cancelled', `operator cancel of a ${j.status} job`);
        if (!TERMINAL.has(j.status)) j.status = 'cancelled';
        return;
      }
      case 'set-limit':
        await svc.ledger.handle(key.keyId, (s) => decideKey({ type: 'SetLimit', keyId: key.keyId, limit: this.limit, now }, s));
        key.limit = this.limit;
        return;
      case 'suspend':
      case 'reinstate':
        await svc.ledger.handle(key.keyId, (s) => decideKey({ type: this.action === 'suspend' ? 'SuspendKey' : 'ReinstateKey', keyId: key.keyId, now }, s));
        key.status = this.action === 'suspend' ? 'suspended' : 'active';
        return;
      case 'sweep':
        await sweepOnce(svc);
        return;
    }
  }
  toString() { return `Operator(${this.action}, ${this.n}${this.action === 'set-limit' ? `, ${this.limit}` : ''})`; }
}

class Advance extends Step {
  readonly seconds: number;
  constructor(seconds: number) { super(); this.seconds = seconds; }
  async act(m: Model) {
    m.clock.now += this.seconds * 1000;
  }
  toString() { return `Advance(${this.seconds}s)`; }
}

const actor = fc.oneof({ arbitrary: fc.constant(0), weight: 4 }, { arbitrary: fc.constant(1), weight: 1 });
const index = fc.oneof({ arbitrary: fc.constant(0), weight: 3 }, { arbitrary: fc.nat({ max: 9 }), weight: 2 });
const limitArb = fc.oneof({ arbitrary: fc.constant(null), weight: 2 }, { arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 4 });
const size = fc.oneof({ arbitrary: fc.constant(0), weight: 1 }, { arbitrary: fc.integer({ min: 1, max: 80 }), weight: 6 });
const exercise = fc.constantFrom('squat', 'push-up');
const times = <T>(n: number, arb: fc.Arbitrary<T>) => Array.from({ length: n }, () => arb);
const stepArbs: fc.Arbitrary<fc.AsyncCommand<Model, Real>>[] = [
  ...times(2, actor.map((k) => new Mint(k))),
  ...times(3, fc.tuple(actor, fc.integer({ min: 1, max: 80 })).map(([k, n]) => new Upload(k, n))),
  ...times(2, fc.tuple(actor, index, size).map(([k, s, n]) => new Put(k, s, n))),
  fc.tuple(actor, actor, index).map(([k, o, s]) => new GetUpload(k, o, s)),
  ...times(4, fc.tuple(actor, index, exercise).map(([k, s, ex]) => new Submit(k, k, s, ex))),
  fc.tuple(actor, actor, index, fc.constantFrom('squat', 'push-up', 'no-such-exercise')).map(([k, o, s, ex]) => new Submit(k, o, s, ex, true)),
  fc.tuple(actor, fc.nat()).map(([k, v]) => new SubmitMalformed(k, v)),
  ...times(2, fc.tuple(actor, index).map(([k, j]) => new Cancel(k, j))),
  ...times(2, fc.tuple(actor, index).map(([k, j]) => new GetJob(k, j))),
  actor.map((k) => new ListJobs(k)),
  ...times(4, fc.tuple(index, fc.constantFrom('start' as const, 'start' as const, 'complete' as const, 'fail' as const, 'stale-complete' as const), fc.constantFrom<Failure>('video', 'provider'))
    .map(([j, a, f]) => new Work(j, a, f))),
  fc.tuple(index, fc.constantFrom('cancel' as const, 'cancel' as const, 'suspend' as const, 'reinstate' as const, 'reinstate' as const, 'sweep' as const)).map(([n, a]) => new Operator(a, n)),
  fc.tuple(index, limitArb).map(([n, l]) => new Operator('set-limit', n, l)),
  fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 200, max: 1000 })).map((s) => new Advance(s)),
];
const commands = fc.commands(stepArbs, { maxCommands: budget(60, 150), size: 'max' });

test('the running API matches a reference model of SPEC.md step by step (statuses, error codes, bodies, usage)', async (t) => {
  const clock = { now: Date.parse('2026-03-01T00:00:00.000Z') };
  const h = await startHarness(t, {
    clock: () => new Date(clock.now),
    env: { SPOTS_PER_WINDOW: String(SPOTS_PER_WINDOW), SPOTS_WINDOW_SECONDS: String(WINDOW / 1000), UNCLAIMED_BYTES_CAP: String(BYTES_CAP), UPLOAD_SPOT_TTL_SECONDS: String(TTL / 1000) },
  });
  await fc.assert(
    fc.asyncProperty(limitArb, commands, async (limit, cmds) => {
      const setup = async () => {
        const keys: MKey[] = [];
        for (const [i, l] of [limit, null].entries()) {
          const name = `Partner ${i} ${clock.now}`;
          const created = await h.createKey({ limit: l, partnerName: name });
          keys.push({ ...created, name, status: 'active', limit: l, mints: [], spots: [] });
        }
        return { model: { keys, jobs: [], clock } as Model, real: { h } };
      };
      steps = 0;
      await fc.asyncModelRun(setup, cmds);
      counts.add({ sequences: 1, steps });
      clock.now += 2 * TTL; // the next sequence starts with a fresh window
    }),
    fcParams(budget(40, 400)),
  );
});
