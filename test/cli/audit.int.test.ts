// `admin audit` and `admin events export` against a history made through the real API and runner
// (a scripted engine completes, fails or holds jobs), read by the real CLI as a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VideoProcessingError, type AnalysisEngine } from '../../src/analysis/engine.js';
import { startHarness, type Harness } from '../support/harness.js';
import { sampleResult, until } from '../support/engines.js';
import { runAdmin } from './run.js';

/** squat completes, bicep-curl fails as undecodable, glute-bridge waits until release(). */
function scriptedEngine(): AnalysisEngine & { release(): void } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return {
    version: 'test-scripted/1',
    release: () => release(),
    async analyze({ exerciseId }) {
      if (exerciseId === 'bicep-curl') throw new VideoProcessingError('not a video');
      if (exerciseId === 'glute-bridge') await gate;
      return sampleResult;
    },
  };
}

async function submit(h: Harness, apiKey: string, exercise: string): Promise<string> {
  const res = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: exercise } });
  assert.equal(res.status, 201, res.text);
  return res.body.job_id;
}

const statusOf = (h: Harness, apiKey: string, jobId: string) => h.request('GET', `/v1/jobs/${jobId}`, { key: apiKey }).then((r) => r.body.status as string);
const reach = (h: Harness, apiKey: string, jobId: string, status: string) =>
  until(async () => ((await statusOf(h, apiKey, jobId)) === status ? true : undefined));

/** limit 4: A completes, B fails, C runs while D waits and is cancelled, E completes, F is refused, then the limit goes to 6. */
async function knownHistory(t: Parameters<typeof startHarness>[0]) {
  const engine = scriptedEngine();
  const h = await startHarness(t, { engine });
  const { apiKey, keyId } = await h.createKey({ limit: 4, partnerName: 'Audited' });
  const a = await submit(h, apiKey, 'squat');
  await reach(h, apiKey, a, 'completed');
  const b = await submit(h, apiKey, 'bicep-curl');
  await reach(h, apiKey, b, 'failed');
  const c = await submit(h, apiKey, 'glute-bridge');
  await reach(h, apiKey, c, 'processing');
  const d = await submit(h, apiKey, 'squat');
  assert.equal((await h.request('POST', `/v1/jobs/${d}/cancel`, { key: apiKey })).status, 200);
  const afterCancel = new Date().toISOString();
  await new Promise((r) => setTimeout(r, 5));
  engine.release();
  await reach(h, apiKey, c, 'completed');
  const e = await submit(h, apiKey, 'squat');
  await reach(h, apiKey, e, 'completed');
  const refused = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: 'squat' } });
  assert.equal(refused.status, 429);
  const set = await runAdmin(h.config.dataDir, 'keys', 'set-limit', keyId, '6');
  assert.equal(set.code, 0, set.stderr);
  return { h, apiKey, keyId, jobs: { a, b, c, d, e }, afterCancel };
}

test('audit: every budget movement of a known history, with running figures, invariants holding and the read model agreeing', async (t) => {
  const { h, apiKey, keyId, jobs, afterCancel } = await knownHistory(t);
  const res = await runAdmin(h.config.dataDir, 'audit', keyId, '--format', 'json');
  assert.equal(res.code, 0, res.stderr + res.stdout);
  const report = JSON.parse(res.stdout);
  const rows = report.movements.map((m: any) => [m.movement, m.jobId, m.limit, m.used, m.held, m.remaining]);
  assert.deepEqual(rows, [
    ['limit', null, 4, 0, 0, 4],
    ['hold', jobs.a, 4, 0, 1, 3],
    ['consume', jobs.a, 4, 1, 0, 3],
    ['hold', jobs.b, 4, 1, 1, 2],
    ['consume', jobs.b, 4, 2, 0, 2],
    ['hold', jobs.c, 4, 2, 1, 1],
    ['hold', jobs.d, 4, 2, 2, 0],
    ['release', jobs.d, 4, 2, 1, 1],
    ['consume', jobs.c, 4, 3, 0, 1],
    ['hold', jobs.e, 4, 3, 1, 0],
    ['consume', jobs.e, 4, 4, 0, 0],
    ['limit', null, 6, 4, 0, 2],
  ]);
  assert.match(report.movements[4].note, /failed: video_processing_failed/);
  assert.deepEqual(report.violations, []);
  assert.deepEqual(report.read_model, { compared: true, agrees: true, differences: [] });
  // What the partner is shown agrees with the auditor.
  const identity = await h.request('GET', '/v1/identity', { key: apiKey });
  assert.deepEqual(identity.body.usage, { limit: report.totals.limit, used: report.totals.used, remaining: report.totals.remaining });

  const then = JSON.parse((await runAdmin(h.config.dataDir, 'audit', keyId, '--format', 'json', '--until', afterCancel)).stdout);
  assert.deepEqual([then.totals.limit, then.totals.used, then.totals.held, then.totals.remaining], [4, 2, 1, 1]);
  assert.deepEqual(then.read_model, { compared: false });

  const table = await runAdmin(h.config.dataDir, 'audit', keyId);
  assert.equal(table.code, 0);
  assert.match(table.stdout, /totals: status active, limit 6, used 4, held 0, remaining 2/);
  assert.match(table.stdout, /invariants: all hold/);
  const csv = await runAdmin(h.config.dataDir, 'audit', keyId, '--format', 'csv');
  assert.equal(csv.stdout.trim().split('\n').length, 1 + rows.length);
  assert.match(csv.stdout.split('\n')[0]!, /^time,position,movement,job_id,limit,used,held,remaining,note$/);
});

test('audit exits non-zero with a readable diff when the identity read model disagrees with the ledger', async (t) => {
  const h = await startHarness(t);
  const { keyId } = await h.createKey({ limit: 2 });
  h.svc.readDb().prepare('UPDATE keys SET used = used + 1 WHERE key_id = ?').run(keyId);
  const res = await runAdmin(h.config.dataDir, 'audit', keyId);
  assert.equal(res.code, 1);
  assert.match(res.stdout, /read model: DISAGREES with the ledger/);
  assert.match(res.stdout, /used\s+0\s+1/);
  assert.match(res.stdout, /remaining\s+2\s+1/);
});

test('events export streams the raw events as NDJSON with position, revision, type, schemaVersion, recordedAt and data', async (t) => {
  const h = await startHarness(t);
  const { apiKey, keyId } = await h.createKey({ limit: 2 });
  await h.upload(apiKey);
  const res = await runAdmin(h.config.dataDir, 'events', 'export', keyId);
  assert.equal(res.code, 0, res.stderr);
  const lines = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
  const stored = await h.svc.store.readStream(`ledger-${keyId}`);
  assert.deepEqual(lines.map((l) => [l.position, l.revision, l.type, l.schemaVersion, l.recordedAt]), stored.map((e) => [e.position, e.revision, e.type, e.schemaVersion, e.recordedAt]));
  assert.deepEqual(lines.map((l) => l.data), stored.map((e) => e.data));
  assert.equal((await runAdmin(h.config.dataDir, 'events', 'export', 'key_unknown')).code, 1);
});
