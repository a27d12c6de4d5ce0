// GET /v1/jobs/{job_id}/pose (issue 11): the pose track a completed job's result was judged from,
// stored beside the result (not in the ledger), gzipped when asked, scoped to the key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AnalysisEngine, PoseTrack } from '../../src/analysis/engine.js';
import { rebuild } from '../../src/projections/rebuild.js';
import { paths } from '../../src/service.js';
import { gatedEngine, sampleResult, until } from '../support/engines.js';
import { startHarness, type Harness } from '../support/harness.js';

const LANDMARKS = ['nose', 'left_shoulder', 'right_shoulder'];
const track = (frames: number): PoseTrack => ({
  landmarks: LANDMARKS,
  width: 640,
  height: 360,
  frames_ms: Array.from({ length: frames }, (_, i) => i * 100),
  keypoints: Array.from({ length: frames }, (_, i) => LANDMARKS.flatMap((_, k) => [0.5, (i + k) / 100, 0.9])),
});

/** A double that returns the result with a pose track of `frames` frames (the real engine's shape). */
const poseEngine = (frames: number): AnalysisEngine => ({
  version: 'test-pose/1',
  async analyze() {
    return sampleResult;
  },
  async analyzeWithPose() {
    return { result: sampleResult, pose: track(frames) };
  },
});

async function completedJob(h: Harness, key: string): Promise<string> {
  const res = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: await h.upload(key), exercise_id: 'squat' } });
  assert.equal(res.status, 201, res.text);
  await until(async () => ((await h.request('GET', `/v1/jobs/${res.body.job_id}`, { key })).body.status === 'completed' ? true : undefined));
  return res.body.job_id;
}

/** A raw GET, so the test sees the bytes on the wire (fetch would undo the gzip). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

test('a completed job serves its pose track: one row per frame, three numbers per landmark', async (t) => {
  const h = await startHarness(t, { engine: poseEngine(42) });
  const { apiKey } = await h.createKey();
  const jobId = await completedJob(h, apiKey);
  const res = await h.request('GET', `/v1/jobs/${jobId}/pose`, { key: apiKey });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body, track(42));
  assert.equal(res.body.frames_ms.length, res.body.keypoints.length);
  for (const row of res.body.keypoints) assert.equal(row.length, res.body.landmarks.length * 3);
});

test('Accept-Encoding: gzip gets the track gzipped (Content-Encoding: gzip); without it, plain JSON', async (t) => {
  const h = await startHarness(t, { engine: poseEngine(300) });
  const { apiKey } = await h.createKey();
  const jobId = await completedJob(h, apiKey);
  const auth = { authorization: `Bearer ${apiKey}` };
  const zipped = await rawGet(`${h.base}/v1/jobs/${jobId}/pose`, { ...auth, 'accept-encoding': 'br;q=1, gzip;q=0.8' });
  assert.equal(zipped.status, 200);
  assert.equal(zipped.headers['content-encoding'], 'gzip');
  assert.match(String(zipped.headers['content-type']), /^application\/json/);
  const plain = await rawGet(`${h.base}/v1/jobs/${jobId}/pose`, auth);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.deepEqual(JSON.parse(gunzipSync(zipped.body).toString()), JSON.parse(plain.body.toString()));
  assert.ok(zipped.body.length < plain.body.length / 2, `gzip shrinks the track (${zipped.body.length} vs ${plain.body.length} bytes)`);
  const refused = await rawGet(`${h.base}/v1/jobs/${jobId}/pose`, { ...auth, 'accept-encoding': 'gzip;q=0' });
  assert.equal(refused.headers['content-encoding'], undefined, 'q=0 refuses gzip');
});

test('409 pose_not_available before the job completes; 404 job_not_found for a missing or foreign job', async (t) => {
  const engine = gatedEngine();
  const h = await startHarness(t, { engine });
  const { apiKey } = await h.createKey();
  const other = await h.createKey();
  const res = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: 'squat' } });
  await engine.started;
  const early = await h.request('GET', `/v1/jobs/${res.body.job_id}/pose`, { key: apiKey });
  assert.equal(early.status, 409);
  assert.equal(early.body.error.code, 'pose_not_available');
  const foreign = await h.request('GET', `/v1/jobs/${res.body.job_id}/pose`, { key: other.apiKey });
  assert.deepEqual([foreign.status, foreign.body.error.code], [404, 'job_not_found']);
  const missing = await h.request('GET', '/v1/jobs/00000000-0000-4000-8000-000000000000/pose', { key: apiKey });
  assert.deepEqual([missing.status, missing.body.error.code], [404, 'job_not_found']);
  engine.release();
});

test('a cancelled job has no pose track: 409 pose_not_available', async (t) => {
  const h = await startHarness(t, { env: { WORKER_CONCURRENCY: '0' } });
  const { apiKey } = await h.createKey();
  const res = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: 'squat' } });
  await h.request('POST', `/v1/jobs/${res.body.job_id}/cancel`, { key: apiKey });
  const pose = await h.request('GET', `/v1/jobs/${res.body.job_id}/pose`, { key: apiKey });
  assert.deepEqual([pose.status, pose.body.error.code], [409, 'pose_not_available']);
});

test('the track is not in the ledger and survives projections rebuild', async (t) => {
  const h = await startHarness(t, { engine: poseEngine(7) });
  const { apiKey } = await h.createKey();
  const jobId = await completedJob(h, apiKey);
  const events = await h.svc.store.readAll(0, 1000);
  assert.ok(!JSON.stringify(events).includes('"frames_ms"'), 'no pose data in any event');
  const files = paths(h.config.dataDir);
  await rebuild({ ledgerPath: files.ledger, readModelsPath: files.readModels });
  const res = await h.request('GET', `/v1/jobs/${jobId}/pose`, { key: apiKey });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, track(7));
});
