import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../support/harness.js';

test('partner flow over real sockets: mint, PUT, submit, poll', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey({ limit: 3 });
  const handle = await h.upload(apiKey);
  const status = await h.request('GET', `/v1/uploads/${handle}`, { key: apiKey });
  assert.equal(status.body.state, 'uploaded');
  const job = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
  assert.equal(job.status, 201);
  const got = await h.request('GET', `/v1/jobs/${job.body.job_id}`, { key: apiKey });
  assert.deepEqual(got.body, { job_id: job.body.job_id, status: 'queued' });
});
