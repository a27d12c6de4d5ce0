// Video retention: a claimed video's bytes are deleted VIDEO_RETENTION_HOURS after its job ends
// (completed, failed or cancelled), at once with 0; VideoPurged records it in the key's ledger and
// the audit shows it; the result and the pose track stay. Real SQLite ledger, real disk storage
// and a real S3 server (s3rver), the API over real sockets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { audit } from '../../src/audit/replay.js';
import { toTable } from '../../src/audit/format.js';
import { ledgerStream } from '../../src/events/ledger.js';
import { jobById } from '../../src/projections/jobs.js';
import { purgeOnce } from '../../src/runner/retention.js';
import { openService } from '../../src/service.js';
import { failingEngine, fixedEngine, gatedEngine, sampleResult, until } from '../support/engines.js';
import { VideoProcessingError, type AnalysisEngine } from '../../src/analysis/engine.js';
import { startHarness, type Harness } from '../support/harness.js';

const HOUR = 3_600_000;

async function completedJob(h: Harness, key: string): Promise<string> {
  const handle = await h.upload(key);
  const job = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: handle, exercise_id: 'squat' } });
  assert.equal(job.status, 201);
  const jobId = job.body.job_id as string;
  await until(async () => ((await h.request('GET', `/v1/jobs/${jobId}`, { key })).body.status === 'completed' ? true : undefined));
  return jobId;
}

const frozenPath = (h: Harness, jobId: string) => join(h.svc.disk!.frozen, jobId);
const purges = async (h: Harness, keyId: string) =>
  (await h.svc.store.readStream(ledgerStream(keyId))).filter((e) => e.type === 'VideoPurged');

/** The fixed result plus a pose track, as the real engine gives. */
const poseEngine = (): AnalysisEngine => ({
  ...fixedEngine(),
  async analyzeWithPose() {
    return { result: sampleResult, pose: { landmarks: ['nose'], width: 320, height: 240, frames_ms: [0, 100], keypoints: [[0.5, 0.5, 0.9], [0.5, 0.6, 0.9]] } };
  },
});

test('VIDEO_RETENTION_HOURS=0: the bytes go as the job completes, VideoPurged is recorded, the result and pose track stay', async (t) => {
  const h = await startHarness(t, { engine: poseEngine(), env: { VIDEO_RETENTION_HOURS: '0' } });
  const { apiKey, keyId } = await h.createKey();
  const jobId = await completedJob(h, apiKey);
  await until(async () => ((await purges(h, keyId)).length === 1 ? true : undefined));
  assert.equal(existsSync(frozenPath(h, jobId)), false, 'the frozen copy is deleted');
  const [purged] = await purges(h, keyId);
  assert.equal(purged!.type === 'VideoPurged' && purged!.data.jobId, jobId);
  const job = await h.request('GET', `/v1/jobs/${jobId}`, { key: apiKey });
  assert.equal(job.body.status, 'completed');
  assert.ok(job.body.result, 'the result stays');
  assert.ok(jobById(h.svc.readDb(), jobId)!.video_purged_at, 'the read model knows');
  assert.equal((await h.request('GET', `/v1/jobs/${jobId}/pose`, { key: apiKey })).status, 200, 'the pose track stays');
  assert.equal(await purgeOnce(h.svc), 0, 'nothing left to purge');
});

test('default retention: kept 24 hours after the job ends, purged by the sweep after that, once', async (t) => {
  let now = Date.parse('2026-03-01T10:00:00.000Z');
  const h = await startHarness(t, { engine: fixedEngine(), clock: () => new Date(now) });
  assert.equal(h.config.videoRetentionHours, 24);
  const { apiKey, keyId } = await h.createKey();
  const jobId = await completedJob(h, apiKey);
  assert.ok(existsSync(frozenPath(h, jobId)), 'kept after completion');

  now += 24 * HOUR - 1000;
  assert.equal(await purgeOnce(h.svc), 0, 'one second before the end of retention: kept');
  assert.ok(existsSync(frozenPath(h, jobId)));
  now += 1000;
  assert.equal(await purgeOnce(h.svc), 1);
  assert.equal(existsSync(frozenPath(h, jobId)), false);
  assert.equal(await purgeOnce(h.svc), 0, 'a second sweep does nothing');
  assert.equal((await purges(h, keyId)).length, 1);
});

test('a failed job is purged too', async (t) => {
  const h = await startHarness(t, { engine: failingEngine(() => new VideoProcessingError('not a video')), env: { VIDEO_RETENTION_HOURS: '0' } });
  const { apiKey, keyId } = await h.createKey();
  const handle = await h.upload(apiKey);
  const jobId = (await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } })).body.job_id;
  await until(async () => ((await purges(h, keyId)).length === 1 ? true : undefined));
  assert.equal((await h.request('GET', `/v1/jobs/${jobId}`, { key: apiKey })).body.status, 'failed');
  assert.equal(existsSync(frozenPath(h, jobId)), false);
});

test('a cancelled job is kept for the retention counted from the cancel, then purged', async (t) => {
  let now = Date.parse('2026-03-01T10:00:00.000Z');
  const h = await startHarness(t, { clock: () => new Date(now), env: { VIDEO_RETENTION_HOURS: '1.5' } });
  const { apiKey, keyId } = await h.createKey();
  const handle = await h.upload(apiKey);
  const job = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
  const jobId = job.body.job_id as string;
  now += 10 * HOUR; // queued for ten hours: retention counts from the end, not the submission
  assert.equal((await h.request('POST', `/v1/jobs/${jobId}/cancel`, { key: apiKey })).status, 200);
  assert.ok(existsSync(frozenPath(h, jobId)), 'kept after the cancel');
  now += 1.5 * HOUR - 1;
  assert.equal(await purgeOnce(h.svc), 0);
  now += 1;
  assert.equal(await purgeOnce(h.svc), 1);
  assert.equal(existsSync(frozenPath(h, jobId)), false);
  assert.equal((await purges(h, keyId)).length, 1);
});

test('two sweepers on one DATA_DIR race for the same videos: each video is purged exactly once', async (t) => {
  let now = Date.parse('2026-03-01T10:00:00.000Z');
  const clock = () => new Date(now);
  const h = await startHarness(t, { engine: fixedEngine(), clock, env: { VIDEO_RETENTION_HOURS: '1' } });
  const { apiKey, keyId } = await h.createKey();
  const jobs = [await completedJob(h, apiKey), await completedJob(h, apiKey), await completedJob(h, apiKey)];
  const other = await openService(h.config, clock);
  t.after(() => other.close());
  now += HOUR;
  const [a, b] = await Promise.all([purgeOnce(h.svc), purgeOnce(other)]);
  assert.equal(a + b, 3, `purges recorded: ${a} + ${b}`);
  const recorded = (await purges(h, keyId)).map((e) => (e.type === 'VideoPurged' ? e.data.jobId : '')).sort();
  assert.deepEqual(recorded, [...jobs].sort(), 'one VideoPurged per job');
});

test('the audit accepts VideoPurged and shows it as a purge movement', async (t) => {
  const h = await startHarness(t, { engine: fixedEngine(), env: { VIDEO_RETENTION_HOURS: '0' } });
  const { apiKey, keyId } = await h.createKey({ limit: 5 });
  const jobId = await completedJob(h, apiKey);
  await until(async () => ((await purges(h, keyId)).length === 1 ? true : undefined));
  const report = audit(keyId, await h.svc.store.readStream(ledgerStream(keyId)));
  assert.deepEqual(report.violations, []);
  const purge = report.movements.find((m) => m.movement === 'purge');
  assert.equal(purge?.jobId, jobId);
  assert.deepEqual([purge!.used, purge!.held, purge!.remaining], [1, 0, 4], 'no budget change');
  assert.match(toTable(report, { keyId, partnerName: 'P', differences: [] }), new RegExp(`purge +${jobId}.*video deleted`));
});

test('a running job is never purged: its video stays until it ends', async (t) => {
  const engine = gatedEngine();
  const h = await startHarness(t, { engine, env: { VIDEO_RETENTION_HOURS: '0' } });
  const { apiKey } = await h.createKey();
  const handle = await h.upload(apiKey);
  const jobId = (await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } })).body.job_id;
  await engine.started;
  assert.equal(await purgeOnce(h.svc), 0);
  assert.ok(existsSync(frozenPath(h, jobId)));
  engine.release();
});

test('S3 driver: the frozen object is deleted and VideoPurged recorded', async (t) => {
  const h = await startHarness(t, { engine: fixedEngine(), storage: 's3', env: { VIDEO_RETENTION_HOURS: '0' } });
  const { apiKey, keyId } = await h.createKey();
  const jobId = await completedJob(h, apiKey);
  await until(async () => ((await purges(h, keyId)).length === 1 ? true : undefined));
  await assert.rejects(h.svc.storage.openFrozen(jobId), /no frozen copy/);
});
