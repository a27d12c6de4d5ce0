// Fair scheduling (issue 10): with one worker, key A queues ten videos, then key B queues one; B's
// job starts as soon as the job running at that moment ends, then the keys alternate. Run through
// the API and the real runner; the start order is read from the read model (JobStarted positions).
// On SQLite always; on KurrentDB too when KURRENTDB_URL is set (same read models, same query).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { AnalysisEngine } from '../../src/analysis/engine.js';
import { jobById } from '../../src/projections/jobs.js';
import { sampleResult } from '../support/engines.js';
import { startHarness } from '../support/harness.js';

const kurrent = process.env.KURRENTDB_URL;

async function scenario(t: TestContext, env: Record<string, string> = {}) {
  // The first job holds the only worker until every submission is in, as a long video would.
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  let first = true;
  const engine: AnalysisEngine = {
    version: 'test-gated/1',
    async analyze() {
      if (first) { first = false; await gate; }
      await new Promise((r) => setTimeout(r, 5));
      return sampleResult;
    },
  };
  const h = await startHarness(t, { engine, env });
  const a = await h.createKey({ partnerName: 'A' });
  const b = await h.createKey({ partnerName: 'B' });
  const submit = async (key: string) => {
    const handle = await h.upload(key);
    const res = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: handle, exercise_id: 'squat' } });
    assert.equal(res.status, 201, res.text);
    return res.body.job_id as string;
  };
  const jobs: { key: 'A' | 'B'; id: string }[] = [];
  for (let i = 0; i < 10; i++) jobs.push({ key: 'A', id: await submit(a.apiKey) });
  jobs.push({ key: 'B', id: await submit(b.apiKey) });
  release();
  const deadline = Date.now() + 60_000;
  for (const j of jobs) {
    while (jobById(h.svc.readDb(), j.id)?.status !== 'completed') {
      assert.ok(Date.now() < deadline, `job ${j.id} did not complete`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const order = jobs
    .map((j) => ({ ...j, started: jobById(h.svc.readDb(), j.id)!.started_seq! }))
    .sort((x, y) => x.started - y.started);
  assert.equal(order[0]!.id, jobs[0]!.id, "A's first job ran first (it was alone)");
  assert.equal(order[1]!.key, 'B', `B's job started right after the running one ended: ${order.map((o) => o.key).join('')}`);
  assert.deepEqual(order.filter((o) => o.key === 'A').map((o) => o.id), jobs.filter((j) => j.key === 'A').map((j) => j.id), "A's jobs ran oldest first");
}

test('sqlite: round-robin across keys, oldest first within a key', async (t) => {
  await scenario(t);
});

test('kurrentdb: round-robin across keys, oldest first within a key', { skip: kurrent ? false : 'KURRENTDB_URL not set' }, async (t) => {
  await scenario(t, { EVENT_STORE: 'kurrentdb', KURRENTDB_URL: kurrent! });
});

test('three keys share one worker in turns', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  let first = true;
  const engine: AnalysisEngine = {
    version: 'test-gated/1',
    async analyze() {
      if (first) { first = false; await gate; }
      return sampleResult;
    },
  };
  const h = await startHarness(t, { engine });
  const keys = [await h.createKey(), await h.createKey(), await h.createKey()];
  const ids: { k: number; id: string }[] = [];
  for (const [k, n] of [[0, 4], [1, 3], [2, 2]] as const) {
    for (let i = 0; i < n; i++) {
      const handle = await h.upload(keys[k]!.apiKey);
      const res = await h.request('POST', '/v1/jobs', { key: keys[k]!.apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
      ids.push({ k, id: res.body.job_id });
    }
  }
  release();
  const deadline = Date.now() + 60_000;
  while (ids.some((j) => jobById(h.svc.readDb(), j.id)?.status !== 'completed')) {
    assert.ok(Date.now() < deadline);
    await new Promise((r) => setTimeout(r, 20));
  }
  const order = ids.map((j) => ({ ...j, s: jobById(h.svc.readDb(), j.id)!.started_seq! })).sort((x, y) => x.s - y.s).map((j) => j.k);
  // Key 0's first job was alone; then one job per key per round.
  assert.deepEqual(order, [0, 1, 2, 0, 1, 2, 0, 1, 0]);
});
