// The built client package (packages/client/dist, as a partner installs it) against the real
// server on loopback: every method, the typed errors SPEC's table gives, and analyze() end to end
// on a real clip with the real engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { statSync } from 'node:fs';
import { createClient, operationTable, RepCoachError, type RepCoachClient } from '@rep-coach/client';
import { createPoseEngine } from '../../src/analysis/index.js';
import { startHarness } from '../support/harness.js';
import { haveVideos, NO_VIDEOS, videosDir } from '../support/processes.js';

const CLIP = join(videosDir, 'pushup_side_homegym.mp4');

test('every operation of the document is a client method; the methods work against the real server (no engine: jobs stay queued)', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey({ limit: 5, partnerName: 'SDK Partner' });
  const client: RepCoachClient = createClient({ baseUrl: h.base, apiKey });
  for (const id of Object.keys(operationTable)) assert.equal(typeof (client as unknown as Record<string, unknown>)[id], 'function', `client.${id}`);

  assert.deepEqual(await client.getLiveness(), { status: 'ok' });
  const me = await client.getIdentity();
  assert.deepEqual(me, { partner_id: me.partner_id, partner_name: 'SDK Partner', status: 'active', usage: { limit: 5, used: 0, remaining: 5 } });
  const { exercises } = await client.listExercises();
  assert.ok(exercises.some((e) => e.exercise_id === 'push-up'));

  const spot = await client.createUpload();
  assert.equal((await client.getUpload({ handle: spot.handle })).state, 'minted');
  const res = await fetch(spot.upload_url, { method: 'PUT', body: 'bytes', headers: { 'content-type': 'video/mp4' } });
  assert.equal(res.status, 200);
  assert.equal((await client.getUpload({ handle: spot.handle })).state, 'uploaded');

  const job = await client.submitJob({ body: { upload_handle: spot.handle, exercise_id: 'push-up' } }, { idempotencyKey: 'sdk-int-1' });
  assert.equal(job.status, 'queued');
  const again = await client.submitJob({ body: { upload_handle: spot.handle, exercise_id: 'push-up' } }, { idempotencyKey: 'sdk-int-1' });
  assert.equal(again.job_id, job.job_id, 'a repeated submission returns the same job');
  assert.deepEqual(await client.getJob({ job_id: job.job_id }), { job_id: job.job_id, status: 'queued' });
  assert.deepEqual((await client.listJobs({ query: { status: 'queued' } })).jobs, [{ job_id: job.job_id, status: 'queued' }]);
  assert.equal((await client.getIdentity()).usage.remaining, 4);
  assert.deepEqual(await client.cancelJob({ job_id: job.job_id }), { job_id: job.job_id, status: 'cancelled' });
  assert.equal((await client.getIdentity()).usage.remaining, 5, 'the cancelled job returned its unit');

  const finished = (await client.cancelJob({ job_id: job.job_id }).catch((e: unknown) => e)) as RepCoachError;
  assert.deepEqual([finished.code, finished.status, finished.retryable], ['job_already_finished', 409, false]);
  const notFound = (await client.getJob({ job_id: 'nope' }, { headers: { 'x-request-id': 'trace-42' } }).catch((e: unknown) => e)) as RepCoachError;
  assert.ok(notFound instanceof RepCoachError);
  assert.deepEqual([notFound.code, notFound.status, notFound.retryable, notFound.requestId], ['job_not_found', 404, false, 'trace-42']);
  const unknown = (await client.submitJob({ body: { upload_handle: spot.handle, exercise_id: 'handstand' } }).catch((e: unknown) => e)) as RepCoachError;
  assert.equal(unknown.code, 'unknown_exercise');
  const noPose = (await client.getJobPose({ job_id: job.job_id }).catch((e: unknown) => e)) as RepCoachError;
  assert.deepEqual([noPose.code, noPose.status], ['pose_not_available', 409]);

  const badKey = createClient({ baseUrl: h.base, apiKey: 'not-a-key' });
  const auth = (await badKey.getIdentity().catch((e: unknown) => e)) as RepCoachError;
  assert.deepEqual([auth.code, auth.status, auth.retryable, auth.message], ['authentication_error', 401, false, 'Invalid, suspended, or revoked API key.']);
  assert.ok(auth.requestId, 'every error carries the request id');
});

test('analyze() uploads a real clip with progress, the real engine analyzes it, and the job and its pose track come back typed', { skip: haveVideos ? false : NO_VIDEOS, timeout: 600_000 }, async (t) => {
  const h = await startHarness(t, { engine: createPoseEngine() });
  const { apiKey } = await h.createKey();
  const client = createClient({ baseUrl: h.base, apiKey });
  const progress: { loaded: number; total: number }[] = [];
  const statuses: string[] = [];
  const job = await client.analyze(CLIP, { exerciseId: 'push-up', pollIntervalMs: 250, onUploadProgress: (p) => progress.push(p), onJobUpdate: (j) => statuses.push(j.status) });
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(progress.at(-1)!.loaded, statSync(CLIP).size);
  assert.equal(progress.at(-1)!.total, statSync(CLIP).size);
  assert.equal(statuses.at(-1), 'completed');
  assert.ok(job.result!.repetitions.length >= 1, 'the push-ups were found');
  assert.deepEqual(job, await client.getJob({ job_id: job.job_id }), 'analyze returns the job as GET serves it');

  const pose = await client.getJobPose({ job_id: job.job_id });
  assert.ok(pose.landmarks.includes('left_shoulder') && pose.landmarks.includes('right_ankle'));
  assert.equal(pose.keypoints.length, pose.frames_ms.length);
  assert.ok(pose.keypoints.every((row) => row.length === pose.landmarks.length * 3));
  assert.equal((await client.getIdentity()).usage.used, 1);
});

test('analyze() with an exercise id the catalog lacks: the server\'s 404 unknown_exercise (same code, status, message) before any mint or upload; the catalog is read once per client for known ids', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const calls: string[] = [];
  const counting: typeof fetch = (input, init) => {
    calls.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
    return fetch(input, init);
  };
  const client = createClient({ baseUrl: h.base, apiKey, fetch: counting });

  // What the server itself answers for this id, to compare with.
  const server = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: 'h', exercise_id: 'handstand' } });
  assert.equal(server.status, 404);

  const err = (await client.analyze(CLIP, { exerciseId: 'handstand' }).catch((e: unknown) => e)) as RepCoachError;
  assert.ok(err instanceof RepCoachError, String(err));
  assert.deepEqual([err.code, err.status, err.retryable, err.message], [server.body.error.code, 404, false, server.body.error.message]);
  assert.ok(err.requestId, 'the request id of the catalog read that decided');
  assert.deepEqual(calls, ['GET /v1/exercises'], 'nothing minted, nothing uploaded, nothing submitted');
  // No spot was minted: the next mint still has 99 of 100 left after it.
  const mint = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal(mint.status, 201);
  assert.match(mint.headers.get('ratelimit') ?? '', /r=99;/);

  // A typo is looked up live every time (the catalog may have gained the id since).
  calls.length = 0;
  await client.analyze(CLIP, { exerciseId: 'handstand' }).catch(() => undefined);
  assert.deepEqual(calls, ['GET /v1/exercises']);

  // A known id: the catalog read by listExercises() is used, not read again; the flow goes on.
  await client.listExercises();
  calls.length = 0;
  const job = await client.analyze(Buffer.from('not a video'), { exerciseId: 'squat', contentType: 'video/mp4', pollIntervalMs: 50, signal: AbortSignal.timeout(2000) }).catch((e: unknown) => e);
  assert.ok(job instanceof Error, 'no engine here: the job stays queued until the signal ends the wait');
  assert.deepEqual(calls.slice(0, 2), ['POST /v1/uploads', 'POST /v1/jobs'], 'minted and submitted (the PUT goes to the storage host, not through this fetch)');
  assert.ok(!calls.includes('GET /v1/exercises'));
});
