// Answers an outside review (issue rv) found outside SPEC or unclear, over real HTTP and a real
// database file: each test failed on the code before the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../support/harness.js';

const AUTH_BODY = { error: { code: 'authentication_error', message: 'Invalid, suspended, or revoked API key.' } };

test('Authentication 2: every 401 names the Bearer scheme in WWW-Authenticate (RFC 9110 11.6.1), the same value whatever the case', async (t) => {
  const h = await startHarness(t);
  for (const headers of [{}, { authorization: 'Basic abc' }, { authorization: 'Bearer rk_nope' }] as Record<string, string>[]) {
    for (const [method, path] of [['GET', '/v1/identity'], ['POST', '/v1/uploads'], ['GET', '/v1/jobs/x'], ['POST', '/v1/jobs/x/cancel']] as const) {
      const res = await h.request(method, path, { headers });
      assert.equal(res.status, 401, `${method} ${path}`);
      assert.deepEqual(res.body, AUTH_BODY);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer', `${method} ${path} ${JSON.stringify(headers)}`);
    }
  }
  const { apiKey } = await h.createKey();
  assert.equal((await h.request('GET', '/v1/identity', { key: apiKey })).headers.get('www-authenticate'), null, 'only on a 401');
});

test('an id that is not valid percent-encoding is an id like any other: 401 without a key, SPEC 404 with one (was 400 bad_request)', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const cases = [
    ['GET', '/v1/jobs/%zz', 'job_not_found'],
    ['GET', '/v1/jobs/%C0%AF', 'job_not_found'],
    ['GET', '/v1/jobs/100%', 'job_not_found'],
    ['POST', '/v1/jobs/%zz/cancel', 'job_not_found'],
    ['GET', '/v1/jobs/%zz/pose', 'job_not_found'],
    ['GET', '/v1/uploads/%E2%82', 'upload_not_found'],
  ] as const;
  for (const [method, path, code] of cases) {
    const anonymous = await h.request(method, path);
    assert.equal(anonymous.status, 401, `${method} ${path} without a key`);
    assert.deepEqual(anonymous.body, AUTH_BODY);
    const res = await h.request(method, path, { key: apiKey });
    assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    assert.equal(res.body.error.code, code, `${method} ${path}`);
  }
  // An unknown path stays the router's 404; the wrong method on a known one its 405.
  assert.equal((await h.request('GET', '/v1/nope%zz', { key: apiKey })).body.error.code, 'not_found');
  assert.equal((await h.request('DELETE', '/v1/jobs/%zz', { key: apiKey })).status, 405);
  // A valid escape still reaches the route decoded.
  assert.equal((await h.request('GET', '/v1/jobs/caf%C3%A9', { key: apiKey })).body.error.code, 'job_not_found');
});

test('GET /v1/jobs: limit outside 1-1000 is refused, not quietly read as 1 or 1000; every bad parameter is named in words', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const refused: [string, RegExp][] = [
    ['limit=0', /limit must be a whole number from 1 to 1000/],
    ['limit=1001', /limit must be a whole number from 1 to 1000/],
    ['limit=9999', /limit must be a whole number from 1 to 1000/],
    ['limit=-1', /limit must be a whole number from 1 to 1000/],
    ['limit=1.5', /limit must be a whole number from 1 to 1000/],
    ['limit=1&limit=2', /limit must be a whole number from 1 to 1000, given once/],
    ['status=done', /status must be one of queued, processing, completed, failed, cancelled/],
    ['status=queued&status=failed', /status must be one of queued, processing, completed, failed, cancelled, given once/],
    ['cursor=abc', /cursor must be the next_cursor of the previous page/],
  ];
  for (const [query, message] of refused) {
    const res = await h.request('GET', `/v1/jobs?${query}`, { key: apiKey });
    assert.equal(res.status, 400, query);
    assert.equal(res.body.error.code, 'malformed_request', query);
    assert.match(res.body.error.message, message, query);
    assert.doesNotMatch(res.body.error.message, /pattern|constant|anyOf/, `${query}: no schema jargon`);
  }
  for (const query of ['limit=1', 'limit=1000', 'limit=007', 'status=queued', 'unknown=1']) {
    const res = await h.request('GET', `/v1/jobs?${query}`, { key: apiKey });
    assert.equal(res.status, 200, query);
    assert.deepEqual(res.body, { jobs: [] }, query);
  }
});

test('a value outside a list (webhook event types) is named once with the values it may take, not once per value', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const res = await h.request('POST', '/v1/webhook-endpoints', { key: apiKey, body: { url: 'https://example.com/hooks', events: ['job.completed', 'job.bogus'] } });
  assert.equal(res.status, 400);
  assert.deepEqual(res.body, { error: { code: 'malformed_request', message: 'Malformed request: body/events/1 must be one of job.completed, job.failed, job.cancelled.' } });
});
