// The client's retry and flow rules against a scripted loopback server (a test double of the API,
// so each SPEC error class can be produced on demand): what is retried, how long it waits, and
// that analyze never resubmits after internal_error. The real server is in client.int.test.ts.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, parseRetryAfter, RepCoachError, RETRYABLE_CODES } from '@rep-coach/client';
import { errorCatalog } from '../../src/http/schemas.js';
import { UnknownExercise } from '../../src/commands/errors.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  at: number;
}
type Handler = (req: Seen, res: ServerResponse) => void;

/** A loopback server answering each request with the next handler matching its route. */
async function scripted(t: TestContext, routes: Record<string, Handler[] | Handler>) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      const s: Seen = { method: req.method!, path, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      seen.push(s);
      const key = `${req.method} ${path.replace(/^\/v1\/jobs\/[^/]+/, '/v1/jobs/ID').replace(/^\/storage\/.*/, '/storage/*')}`;
      const route = routes[key];
      const handler = Array.isArray(route) ? (route.length > 1 ? route.shift() : route[0]) : route;
      if (!handler) return envelope(res, 404, 'not_found', `no script for ${key}`);
      handler(s, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen, count: (method: string, path: string) => seen.filter((s) => s.method === method && s.path === path).length };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-123', ...headers });
  res.end(JSON.stringify(body));
}
const envelope = (res: ServerResponse, status: number, code: string, message = code, headers: Record<string, string> = {}) =>
  json(res, status, { error: { code, message } }, headers);

const fast = { baseDelayMs: 5 };

test("the client's retryable codes are SPEC's Retryable rows, and agree with the server's error table", () => {
  for (const code of ['spots_per_window_exceeded', 'unclaimed_bytes_exceeded', 'store_unavailable', 'storage_stat_unavailable', 'catalog_error']) assert.ok(RETRYABLE_CODES.has(code), code);
  for (const code of ['internal_error', 'usage_limit_exceeded', 'authentication_error', 'upload_incomplete']) assert.ok(!RETRYABLE_CODES.has(code), code);
  const server = Object.entries(errorCatalog).filter(([, e]) => e.retryable).map(([c]) => c).sort();
  assert.deepEqual([...RETRYABLE_CODES].sort(), server);
});

test('a retryable 503 store_unavailable is retried after the Retry-After the server sent', async (t) => {
  const api = await scripted(t, {
    'GET /v1/identity': [
      (_q, res) => envelope(res, 503, 'store_unavailable', 'down', { 'retry-after': '1' }),
      (_q, res) => json(res, 200, { partner_id: 'p', partner_name: 'P', status: 'active', usage: { limit: null, used: 0, remaining: null } }),
    ],
  });
  const client = createClient({ baseUrl: api.base, apiKey: 'k', retry: fast });
  const id = await client.getIdentity();
  assert.equal(id.partner_id, 'p');
  assert.equal(api.seen.length, 2);
  assert.ok(api.seen[1]!.at - api.seen[0]!.at >= 950, `waited ${api.seen[1]!.at - api.seen[0]!.at} ms for Retry-After: 1`);
  assert.equal(api.seen[0]!.headers.authorization, 'Bearer k');
});

test('terminal codes are never retried and surface as one typed error with code, status, retryable and request id', async (t) => {
  const api = await scripted(t, { 'POST /v1/uploads': (_q, res) => envelope(res, 429, 'usage_limit_exceeded', 'used up') });
  const client = createClient({ baseUrl: api.base, apiKey: 'k', retry: fast });
  const err = await client.createUpload().catch((e: unknown) => e);
  assert.ok(err instanceof RepCoachError);
  assert.deepEqual([err.code, err.status, err.retryable, err.requestId, err.message], ['usage_limit_exceeded', 429, false, 'req-123', 'used up']);
  assert.equal(api.seen.length, 1);
});

test('a Retry-After longer than the policy allows is not waited for: the retryable error is thrown with it', async (t) => {
  const api = await scripted(t, { 'POST /v1/uploads': (_q, res) => envelope(res, 429, 'spots_per_window_exceeded', 'wait', { 'retry-after': '3600' }) });
  const client = createClient({ baseUrl: api.base, apiKey: 'k', retry: { ...fast, maxDelayMs: 60_000 } });
  const err = (await client.createUpload().catch((e: unknown) => e)) as RepCoachError;
  assert.equal(err.code, 'spots_per_window_exceeded');
  assert.equal(err.retryable, true);
  assert.equal(err.retryAfterMs, 3_600_000);
  assert.equal(api.seen.length, 1);
});

test('retries stop after maxRetries', async (t) => {
  const api = await scripted(t, { 'GET /v1/exercises': (_q, res) => envelope(res, 500, 'catalog_error') });
  const client = createClient({ baseUrl: api.base, apiKey: 'k', retry: { ...fast, maxRetries: 2 } });
  const err = (await client.listExercises().catch((e: unknown) => e)) as RepCoachError;
  assert.equal(err.code, 'catalog_error');
  assert.equal(api.seen.length, 3);
});

test('a dropped connection is retried for a GET and a POST with an Idempotency-Key, never for a bare POST', async (t) => {
  let getCalls = 0;
  let postCalls = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      getCalls++;
      if (getCalls === 1) return req.socket.destroy();
      return json(res, 200, { status: 'ok' });
    }
    postCalls++;
    req.socket.destroy();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k', retry: { ...fast, maxRetries: 2 } });
  assert.deepEqual(await client.getLiveness(), { status: 'ok' });
  assert.equal(getCalls, 2);
  const bare = (await client.createUpload().catch((e: unknown) => e)) as RepCoachError;
  assert.equal(bare.code, 'network_error');
  assert.equal(bare.status, 0);
  assert.equal(postCalls, 1);
  postCalls = 0;
  await client.createUpload(undefined, { idempotencyKey: 'abc' }).catch(() => undefined);
  assert.equal(postCalls, 3);
});

function flow(t: TestContext, submit: Handler | Handler[], polls: Handler[]) {
  const uploads: Buffer[] = [];
  return scripted(t, {
    // analyze reads the catalog before it mints (issue rx).
    'GET /v1/exercises': (_q, res) => json(res, 200, { exercises: [{ exercise_id: 'squat', name: 'Squat', description: 'A squat.' }] }),
    'POST /v1/uploads': (q, res) => json(res, 201, { handle: 'h1', upload_url: `http://${q.headers.host}/storage/h1?sig=secret`, expires_at: new Date(Date.now() + 900_000).toISOString() }),
    'PUT /storage/*': (q, res) => {
      uploads.push(q.body);
      res.writeHead(200);
      res.end();
    },
    'POST /v1/jobs': submit,
    'GET /v1/jobs/ID': polls,
  }).then((api) => ({ ...api, uploads }));
}

test('analyze: mints, streams the bytes with progress, submits with an Idempotency-Key, polls at the given interval, returns the job', async (t) => {
  const done = { job_id: 'j1', status: 'completed', result: { repetitions: [], overall_feedback: {} } };
  const api = await flow(t, (_q, res) => json(res, 201, { job_id: 'j1', status: 'queued' }), [
    (_q, res) => json(res, 200, { job_id: 'j1', status: 'queued' }),
    (_q, res) => json(res, 200, { job_id: 'j1', status: 'processing' }),
    (_q, res) => json(res, 200, done),
  ]);
  const video = new Uint8Array(1_000_000).map((_, i) => i % 251);
  const progress: number[] = [];
  const updates: string[] = [];
  const client = createClient({ baseUrl: api.base, apiKey: 'k', retry: fast });
  const job = await client.analyze(video, { exerciseId: 'squat', pollIntervalMs: 200, onUploadProgress: (p) => progress.push(p.loaded / p.total), onJobUpdate: (j) => updates.push(j.status) });
  assert.deepEqual(job, done);
  assert.deepEqual(updates, ['queued', 'processing', 'completed']);
  assert.ok(Buffer.from(video).equals(api.uploads[0]!), 'the upload carried the exact bytes');
  assert.equal(progress.at(-1), 1);
  assert.ok(progress.length > 2 && progress.every((p, i) => i === 0 || p >= progress[i - 1]!), 'progress only grows');
  const put = api.seen.find((s) => s.method === 'PUT')!;
  assert.equal(put.headers.authorization, undefined, 'the upload URL never gets the API key');
  assert.equal(put.headers['content-length'], '1000000');
  const mint = api.seen.find((s) => s.path === '/v1/uploads')!;
  const submit = api.seen.find((s) => s.method === 'POST' && s.path === '/v1/jobs')!;
  assert.ok(mint.headers['idempotency-key'] && submit.headers['idempotency-key'] && mint.headers['idempotency-key'] !== submit.headers['idempotency-key']);
  assert.deepEqual(JSON.parse(submit.body.toString()), { upload_handle: 'h1', exercise_id: 'squat' });
  const polls = api.seen.filter((s) => s.method === 'GET' && s.path.startsWith('/v1/jobs/'));
  for (let i = 1; i < polls.length; i++) assert.ok(polls[i]!.at - polls[i - 1]!.at >= 190, 'polls are spaced by pollIntervalMs');
});

test('analyze never resubmits after internal_error: one submission, the typed error thrown', async (t) => {
  const api = await flow(t, (_q, res) => envelope(res, 500, 'internal_error', 'job record write unconfirmed'), []);
  const client = createClient({ baseUrl: api.base, apiKey: 'k', retry: fast });
  const err = (await client.analyze(new Uint8Array(10), { exerciseId: 'squat', pollIntervalMs: 10 }).catch((e: unknown) => e)) as RepCoachError;
  assert.ok(err instanceof RepCoachError);
  assert.deepEqual([err.code, err.status, err.retryable], ['internal_error', 500, false]);
  assert.equal(api.count('POST', '/v1/jobs'), 1);
  assert.equal(api.count('POST', '/v1/uploads'), 1, 'no second spot either');
});

test('analyze retries a retryable submission refusal with the same Idempotency-Key, and returns a failed job as is', async (t) => {
  const api = await flow(t, [
    (_q, res) => envelope(res, 503, 'storage_stat_unavailable', 'later', { 'retry-after': '0' }),
    (_q, res) => json(res, 201, { job_id: 'j2', status: 'queued' }),
  ], [
    (_q, res) => json(res, 200, { job_id: 'j2', status: 'failed', error_code: 'video_processing_failed', message: 'The video could not be processed for analysis.' }),
  ]);
  const client = createClient({ baseUrl: api.base, apiKey: 'k', retry: fast });
  const job = await client.analyze(new Uint8Array(10), { exerciseId: 'squat', pollIntervalMs: 10 });
  assert.equal(job.status, 'failed');
  assert.equal(job.error_code, 'video_processing_failed');
  const submits = api.seen.filter((s) => s.method === 'POST' && s.path === '/v1/jobs');
  assert.equal(submits.length, 2);
  assert.equal(submits[0]!.headers['idempotency-key'], submits[1]!.headers['idempotency-key']);
});

test('analyze stops when its signal aborts', async (t) => {
  const api = await flow(t, (_q, res) => json(res, 201, { job_id: 'j3', status: 'queued' }), [(_q, res) => json(res, 200, { job_id: 'j3', status: 'queued' })]);
  const client = createClient({ baseUrl: api.base, apiKey: 'k', retry: fast });
  const ac = new AbortController();
  const run = client.analyze(new Uint8Array(10), { exerciseId: 'squat', pollIntervalMs: 60_000, signal: ac.signal, onJobUpdate: () => ac.abort() });
  await assert.rejects(run, (e: Error) => e.name === 'AbortError');
});

test('analyze: an id the catalog lacks is 404 unknown_exercise before any mint; a catalog_error is retried, then the flow goes on (issue rx)', async (t) => {
  const api = await flow(t, (_q, res) => json(res, 201, { job_id: 'j4', status: 'queued' }), [(_q, res) => json(res, 200, { job_id: 'j4', status: 'completed', result: { repetitions: [], overall_feedback: {} } })]);
  const client = createClient({ baseUrl: api.base, apiKey: 'k', retry: fast });
  const err = (await client.analyze(new Uint8Array(10), { exerciseId: 'squat ', pollIntervalMs: 10 }).catch((e: unknown) => e)) as RepCoachError;
  assert.ok(err instanceof RepCoachError);
  assert.deepEqual([err.code, err.status, err.retryable, err.message], ['unknown_exercise', 404, false, new UnknownExercise().message]);
  assert.equal(err.requestId, 'req-123', 'the request id of the catalog read');
  assert.deepEqual(api.seen.map((s) => `${s.method} ${s.path}`), ['GET /v1/exercises']);

  const flaky = await scripted(t, {
    'GET /v1/exercises': [
      (_q, res) => envelope(res, 500, 'catalog_error', 'later', { 'retry-after': '0' }),
      (_q, res) => json(res, 200, { exercises: [{ exercise_id: 'squat', name: 'Squat', description: 'A squat.' }] }),
    ],
    'POST /v1/uploads': (_q, res) => envelope(res, 429, 'usage_limit_exceeded', 'no'),
  });
  const second = createClient({ baseUrl: flaky.base, apiKey: 'k', retry: fast });
  const refused = (await second.analyze(new Uint8Array(10), { exerciseId: 'squat' }).catch((e: unknown) => e)) as RepCoachError;
  assert.equal(refused.code, 'usage_limit_exceeded', 'past the catalog, on to the mint');
  assert.equal(flaky.count('GET', '/v1/exercises'), 2);
});

test('an API key read from a file with its line break is sent trimmed; one no header can carry, and a baseUrl that is not http(s), are a TypeError at createClient, not 10 s of network_error retries (issue rx)', async (t) => {
  const api = await scripted(t, { 'GET /v1/identity': (q, res) => json(res, 200, { auth: q.headers.authorization }) });
  const started = Date.now();
  const body = (await createClient({ baseUrl: api.base, apiKey: 'rk_abc\n', retry: fast }).getIdentity()) as unknown as { auth: string };
  assert.equal(body.auth, 'Bearer rk_abc');
  assert.equal((await createClient({ baseUrl: api.base, apiKey: '  rk_abc\r\n', retry: fast }).getIdentity() as unknown as { auth: string }).auth, 'Bearer rk_abc');
  assert.ok(Date.now() - started < 2000);
  assert.throws(() => createClient({ baseUrl: api.base, apiKey: 'rk_a\nb' }), { name: 'TypeError', message: /apiKey holds a control character/ });
  assert.throws(() => createClient({ baseUrl: api.base, apiKey: '\n' }), { name: 'TypeError', message: 'apiKey is required' });
  assert.throws(() => createClient({ baseUrl: 'localhost:8080', apiKey: 'k' }), { name: 'TypeError', message: 'baseUrl must be an http(s) URL, got "localhost:8080"' });
  assert.throws(() => createClient({ baseUrl: 'not a url', apiKey: 'k' }), { name: 'TypeError', message: 'baseUrl must be an http(s) URL, got "not a url"' });
  assert.equal(api.seen.length, 2);
});

test('Retry-After is read as seconds or as an HTTP date', () => {
  assert.equal(parseRetryAfter('7'), 7000);
  assert.equal(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1)), 30_000);
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter(null), undefined);
});

test('a 2xx that is not JSON (a proxy page) is a typed invalid_response, not a parse crash', async (t) => {
  const api = await scripted(t, {
    'GET /v1/identity': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>portal</html>');
    },
  });
  const err = (await createClient({ baseUrl: api.base, apiKey: 'k' }).getIdentity().catch((e: unknown) => e)) as RepCoachError;
  assert.ok(err instanceof RepCoachError);
  assert.deepEqual([err.code, err.status, err.retryable], ['invalid_response', 200, false]);
});
