// Concurrency: appends racing on one ledger (fc.scheduler), and racing requests over real HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import fc from 'fast-check';
import { VideoProcessingError, type AnalysisEngine } from '../../src/analysis/engine.js';
import { JobAlreadyStarted, UsageLimitExceeded } from '../../src/commands/errors.js';
import { createLedger } from '../../src/commands/handle.js';
import { decideJob } from '../../src/commands/jobs.js';
import { submitJob } from '../../src/commands/partner.js';
import { remaining, type KeyState } from '../../src/commands/state.js';
import { ledgerStream, type LedgerEvent } from '../../src/events/ledger.js';
import type { EventStore, QueuedAppend } from '../../src/events/store/port.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { startRunner } from '../../src/runner/runner.js';
import { openService, type Service } from '../../src/service.js';
import { silentLog, startHarness } from '../support/harness.js';
import { budget, fcParams, tally } from './support/budget.js';

const counts = tally();
const KEY = 'key_race';
const at = '2026-01-01T00:00:00.000Z';
const later = '2026-01-01T00:00:01.000Z';
const expiresAt = '2026-01-01T00:15:00.000Z';

/** A key with two uploaded spots and, when asked, one queued job. */
async function seed(store: EventStore, limit: number | null, queued: boolean) {
  const events: LedgerEvent[] = [
    { type: 'KeyIssued', data: { keyId: KEY, partnerId: 'ptn', partnerName: 'P', keyHash: 'h', limit, at } },
    ...['up_a', 'up_b', 'up_c'].flatMap((handle): LedgerEvent[] => [
      { type: 'SpotMinted', data: { handle, expiresAt, at } },
      { type: 'SpotUploaded', data: { handle, size: 10, at } },
    ]),
  ];
  if (queued) {
    events.push(
      { type: 'SpotClaimed', data: { handle: 'up_c', jobId: 'job_c', exerciseId: 'squat', size: 10, at } },
      { type: 'JobQueued', data: { jobId: 'job_c', handle: 'up_c', exerciseId: 'squat', at } },
    );
  }
  await store.append(ledgerStream(KEY), events, -1);
}

/**
 * The store with every read and append taking place when the scheduler says so. `pipelined`: it
 * also group-commits (enqueue), each commit's answer reaching its caller when the scheduler says.
 */
function scheduled(store: SqliteEventStore, s: fc.Scheduler, pipelined = false): EventStore {
  const plain: EventStore = {
    append: async (...args) => {
      await s.schedule(Promise.resolve(), `append ${args[1].map((e) => e.type).join('+')}`);
      return store.append(...args);
    },
    readStream: async (...args) => {
      await s.schedule(Promise.resolve(), 'read');
      return store.readStream(...args);
    },
    readAll: (...args) => store.readAll(...args),
    lastPosition: () => store.lastPosition(),
    digest: () => store.digest(),
    checkItems: (stream) => store.checkItems(stream),
    close: () => store.close(),
  };
  if (!pipelined) return plain;
  const rawOf = new WeakMap<QueuedAppend, QueuedAppend>();
  const later = <T>(label: string, p: Promise<T>) => p.then(
    async (v) => (await s.schedule(Promise.resolve(), label), v),
    async (err) => {
      await s.schedule(Promise.resolve(), label);
      throw err;
    },
  );
  return {
    ...plain,
    enqueue: (stream, events, expected, after) => {
      const q = store.enqueue(stream, events, expected, after && rawOf.get(after));
      const wrapped = { done: later(`commit ${events.map((e) => e.type).join('+')}`, q.done) };
      wrapped.done.catch(() => undefined);
      rawOf.set(wrapped, q);
      return wrapped;
    },
  };
}

const submit = (handle: string, jobId: string) => (s: KeyState) =>
  decideJob({ type: 'SubmitJob', handle, exerciseId: 'squat', jobId, size: 10, now: later }, s);

type Contender = { decide: (s: KeyState) => LedgerEvent[]; seen: number[] };
const contender = (decide: (s: KeyState) => LedgerEvent[]): Contender => {
  const c: Contender = { seen: [], decide: (s) => (c.seen.push(s.held), decide(s)) };
  return c;
};

async function race(s: fc.Scheduler, separateCaches: boolean, limit: number | null, queued: boolean, a: Contender, b: Contender, pipelined = false) {
  const raw = new SqliteEventStore(':memory:');
  await seed(raw, limit, queued);
  const store = scheduled(raw, s, pipelined);
  const first = createLedger(store);
  const second = separateCaches ? createLedger(store) : first;
  const outcomes = await s.waitFor(Promise.allSettled([first.handle(KEY, a.decide), second.handle(KEY, b.decide)]));
  const events = (await raw.readStream(ledgerStream(KEY))).slice(queued ? 9 : 7);
  const revisions = (await raw.readStream(ledgerStream(KEY))).map((e) => e.revision);
  assert.deepEqual(revisions, revisions.map((_, i) => i), 'the stream has no gaps and no duplicate revisions');
  await raw.close();
  return { outcomes, events };
}

test('two submissions racing for the last unit: exactly one wins, the other re-decides and is refused (fc.scheduler)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), fc.boolean(), fc.boolean(), async (s, separateCaches, pipelined) => {
      const a = contender(submit('up_a', 'job_a'));
      const b = contender(submit('up_b', 'job_b'));
      const { outcomes, events } = await race(s, separateCaches, 1, false, a, b, pipelined);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o) => o.status === 'rejected');
      assert.equal(won.length, 1, 'exactly one submission wins');
      assert.equal(lost.length, 1);
      assert.ok((lost[0] as PromiseRejectedResult).reason instanceof UsageLimitExceeded, 'the loser gets usage_limit_exceeded');
      assert.deepEqual(events.map((e) => e.type), ['SpotClaimed', 'JobQueued'], 'one claim and one job were appended');
      const loser = outcomes[0]!.status === 'rejected' ? a : b;
      assert.equal(loser.seen.at(-1), 1, "the loser's last decision saw the winner's job");
      counts.add({ sequences: 1, steps: 2 });
    }),
    fcParams(budget(100, 2000)),
  );
});

test('two submissions racing with units to spare both win, one after re-deciding (fc.scheduler)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), fc.boolean(), fc.constantFrom(2, 3, null), fc.boolean(), async (s, separateCaches, limit, pipelined) => {
      const a = contender(submit('up_a', 'job_a'));
      const b = contender(submit('up_b', 'job_b'));
      const { outcomes, events } = await race(s, separateCaches, limit, false, a, b, pipelined);
      assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled']);
      assert.equal(events.filter((e) => e.type === 'JobQueued').length, 2);
      const held = outcomes.map((o) => (o as PromiseFulfilledResult<{ state: KeyState }>).value.state.held).sort();
      assert.deepEqual(held, [1, 2], 'each winner answers with the state after its own append');
      const last = (outcomes[0] as PromiseFulfilledResult<{ state: KeyState }>).value.state;
      if (limit !== null) assert.ok(remaining(last)! <= limit - 1);
      counts.add({ sequences: 1, steps: 2 });
    }),
    fcParams(budget(100, 2000)),
  );
});

test('a partner cancel racing the start of a queued job: exactly one of them happens (fc.scheduler)', async () => {
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), fc.boolean(), fc.boolean(), async (s, separateCaches, pipelined) => {
      const cancel = contender((st) => decideJob({ type: 'CancelJob', jobId: 'job_c', by: 'partner', finished: true, now: later }, st));
      const start = contender((st) =>
        decideJob({ type: 'StartJob', jobId: 'job_c', worker: 'w1', leaseUntil: expiresAt, maxAttempts: 3, now: later }, st),
      );
      const { outcomes, events } = await race(s, separateCaches, 2, true, cancel, start, pipelined);
      const types = events.map((e) => e.type);
      assert.equal(types.length, 1, 'exactly one of JobCancelled and JobStarted is appended');
      if (types[0] === 'JobCancelled') {
        assert.equal(outcomes[0]!.status, 'fulfilled');
        assert.deepEqual((outcomes[1] as PromiseFulfilledResult<{ events: unknown[] }>).value.events, [], 'a start of a cancelled job appends nothing');
      } else {
        assert.equal(types[0], 'JobStarted');
        assert.ok((outcomes[0] as PromiseRejectedResult).reason instanceof JobAlreadyStarted, 'the cancel gets job_already_started');
      }
      counts.add({ sequences: 1, steps: 2 });
    }),
    fcParams(budget(100, 2000)),
  );
});

test('limit L, N > L parallel submissions on distinct handles: exactly L 201 and N - L 429 usage_limit_exceeded', async (t) => {
  const h = await startHarness(t);
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 6 }), async (limit, extra) => {
      const n = limit + extra;
      const { apiKey } = await h.createKey({ limit });
      const handles = await Promise.all(Array.from({ length: n }, () => h.upload(apiKey)));
      const replies = await Promise.all(
        handles.map((handle) => h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } })),
      );
      const accepted = replies.filter((r) => r.status === 201);
      const refused = replies.filter((r) => r.status === 429 && r.body?.error?.code === 'usage_limit_exceeded');
      assert.equal(accepted.length, limit, `201s: ${JSON.stringify(replies.map((r) => [r.status, r.body?.error?.code]))}`);
      assert.equal(refused.length, n - limit);
      const identity = await h.request('GET', '/v1/identity', { key: apiKey });
      assert.deepEqual(identity.body.usage, { limit, used: 0, remaining: 0 });
      const jobs = await h.request('GET', '/v1/jobs', { key: apiKey });
      assert.deepEqual(jobs.body.jobs.map((j: { job_id: string }) => j.job_id).sort(), accepted.map((r) => r.body.job_id).sort());
      counts.add({ sequences: 1, steps: n });
    }),
    fcParams(budget(6, 60)),
  );
});

test('parallel submissions of one handle give one job; a different exercise_id gets 409 upload_already_claimed', async (t) => {
  const h = await startHarness(t);
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom('squat', 'push-up'), { minLength: 2, maxLength: 8 }), fc.constantFrom(3, null), async (exercises, limit) => {
      const { apiKey } = await h.createKey({ limit });
      const handle = await h.upload(apiKey);
      const replies = await Promise.all(
        exercises.map((exercise_id) => h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id } })),
      );
      const jobs = await h.request('GET', '/v1/jobs', { key: apiKey });
      assert.equal(jobs.body.jobs.length, 1, `one job: ${JSON.stringify(replies.map((r) => [r.status, r.body]))}`);
      const job = await h.request('GET', `/v1/jobs/${jobs.body.jobs[0].job_id}`, { key: apiKey });
      const upload = await h.request('GET', `/v1/uploads/${handle}`, { key: apiKey });
      assert.equal(upload.body.state, 'claimed');
      const winner = replies.find((r) => r.status === 201);
      assert.ok(winner, 'someone got the job');
      replies.forEach((r, i) => {
        // Which exercise won is up to the race; everyone with the winner's exercise gets its job.
        if (r.status === 201) assert.deepEqual(r.body, { job_id: job.body.job_id, status: 'queued' });
        else assert.deepEqual([r.status, r.body?.error?.code], [409, 'upload_already_claimed'], `reply ${i}: ${JSON.stringify(r.body)}`);
      });
      const identity = await h.request('GET', '/v1/identity', { key: apiKey });
      assert.deepEqual(identity.body.usage, { limit, used: 0, remaining: limit === null ? null : limit - 1 }, 'one unit held, not one per reply');
      counts.add({ sequences: 1, steps: exercises.length });
    }),
    fcParams(budget(8, 80)),
  );
});

test("a cancel racing the job's start ends in (cancelled, 200) or (processing, 409 job_already_started)", async (t) => {
  const gates = new Map<string, () => void>();
  const engine: AnalysisEngine = {
    version: 'gate',
    analyze: (input) =>
      new Promise((_resolve, reject) => {
        const fail = () => reject(new VideoProcessingError('released by the test'));
        gates.set(basename(input.videoPath), fail);
        setTimeout(fail, 10_000).unref();
      }),
  };
  // Our own runner, never woken by the submission: it polls every few ms, so the start lands at a
  // moment of its own choosing relative to the cancel.
  const h = await startHarness(t, { env: { SPOTS_PER_WINDOW: '100000' } });
  const runner = startRunner(h.svc, engine, { concurrency: 1, leaseSeconds: 30, maxAttempts: 3, providerRetries: 0, pollMs: 40, log: silentLog });
  const { apiKey } = await h.createKey({ limit: null });
  const seen = { cancelled: 0, started: 0 };
  const rounds = budget(20, 200);
  try {
    for (let i = 0; i < rounds; i++) {
      const handle = await h.upload(apiKey);
      const submitted = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
      assert.equal(submitted.status, 201);
      const jobId: string = submitted.body.job_id;
      await new Promise((r) => setTimeout(r, (i * 13) % 50));
      const cancel = await h.request('POST', `/v1/jobs/${jobId}/cancel`, { key: apiKey });
      const job = await h.request('GET', `/v1/jobs/${jobId}`, { key: apiKey });
      if (cancel.status === 200) {
        assert.equal(job.body.status, 'cancelled');
        seen.cancelled++;
      } else {
        assert.deepEqual([cancel.status, cancel.body?.error?.code, job.body.status], [409, 'job_already_started', 'processing']);
        seen.started++;
      }
      // Let a started job finish, so the single runner slot is free for the next round.
      for (let wait = 0; cancel.status !== 200 && !gates.has(jobId) && wait < 500; wait++) await new Promise((r) => setTimeout(r, 5));
      gates.get(jobId)?.();
      for (let wait = 0; cancel.status !== 200 && wait < 500; wait++) {
        if ((await h.request('GET', `/v1/jobs/${jobId}`, { key: apiKey })).body.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  } finally {
    for (const release of gates.values()) release();
    await runner.stop();
  }
  const identity = await h.request('GET', '/v1/identity', { key: apiKey });
  assert.equal(identity.body.usage.used, seen.started, 'every started job ran the engine and counts as used; cancelled ones do not');
  t.diagnostic(`outcomes: ${JSON.stringify(seen)}`);
  counts.add({ sequences: 1, steps: rounds });
});

test('two API nodes on one DATA_DIR: a submission that loses its handle to the same submission on the other node answers the original job (SPEC: POST /v1/jobs rule 1)', async (t) => {
  const h = await startHarness(t);
  const { apiKey, keyId } = await h.createKey({ limit: null });
  const rounds = budget(3, 20);
  for (let i = 0; i < rounds; i++) {
    const handle = await h.upload(apiKey);
    // Node B: a second process over the same files; its append waits until node A's claim is in.
    const nodeB = await openService(h.config, h.svc.clock);
    let release!: () => void;
    let reachedAppend!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const atAppend = new Promise<void>((r) => (reachedAppend = r));
    const store = nodeB.store;
    const gated: EventStore = {
      append: async (...args) => {
        reachedAppend();
        await gate;
        return store.append(...args);
      },
      readStream: (...args) => store.readStream(...args),
      readAll: (...args) => store.readAll(...args),
      lastPosition: () => store.lastPosition(),
      digest: () => store.digest(),
      checkItems: (stream) => store.checkItems(stream),
      close: () => store.close(),
    };
    const svcB: Service = { ...nodeB, ledger: createLedger(gated, () => nodeB.projector.catchUp()) };
    // Node A appends the claim and has not projected it yet (slow, or killed right after the append).
    const svcA: Service = { ...h.svc, ledger: createLedger(h.svc.store) };
    try {
      const b = submitJob(svcB, keyId, handle, 'squat').then((v) => v, (err: unknown) => err);
      await atAppend;
      const a = await submitJob(svcA, keyId, handle, 'squat');
      assert.equal(a.created, true);
      release();
      const outcome = await b;
      assert.deepEqual(outcome, { job_id: a.job_id, status: 'queued', created: false }, `node B answered ${String((outcome as Error).name ?? JSON.stringify(outcome))}`);
      const jobs = await h.request('GET', '/v1/jobs', { key: apiKey });
      assert.equal(jobs.body.jobs.filter((j: { job_id: string }) => j.job_id === a.job_id).length, 1);
    } finally {
      release();
      await nodeB.close();
    }
  }
  counts.add({ sequences: rounds, steps: rounds * 2 });
});
