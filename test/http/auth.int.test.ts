// SPEC "Authentication" and the cross-cutting rules of "Errors" and "Versioning".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideKey } from '../../src/commands/keys.js';
import { startHarness } from '../support/harness.js';
import { runAdmin } from '../cli/run.js';

const AUTH_BODY = { error: { code: 'authentication_error', message: 'Invalid, suspended, or revoked API key.' } };

test('GET /livez answers without authentication and carries no account data', async (t) => {
  const h = await startHarness(t);
  const res = await h.request('GET', '/livez');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { status: 'ok' });
});

test('Authentication 2: missing, malformed, invalid, suspended and revoked keys all get the same 401', async (t) => {
  const h = await startHarness(t);
  const suspended = await h.createKey();
  const revoked = await h.createKey();
  const now = new Date().toISOString();
  await h.svc.ledger.handle(suspended.keyId, (s) => decideKey({ type: 'SuspendKey', keyId: suspended.keyId, now }, s));
  await h.svc.ledger.handle(revoked.keyId, (s) => decideKey({ type: 'RevokeKey', keyId: revoked.keyId, now }, s));
  const cases: Record<string, Record<string, string>> = {
    missing: {},
    'not bearer': { authorization: `Basic ${suspended.apiKey}` },
    'empty bearer': { authorization: 'Bearer ' },
    invalid: { authorization: 'Bearer rk_nope' },
    suspended: { authorization: `Bearer ${suspended.apiKey}` },
    revoked: { authorization: `Bearer ${revoked.apiKey}` },
  };
  for (const [name, headers] of Object.entries(cases)) {
    for (const [method, path] of [['GET', '/v1/identity'], ['GET', '/v1/exercises'], ['POST', '/v1/uploads'], ['GET', '/v1/jobs']] as const) {
      const res = await h.request(method, path, { headers });
      assert.equal(res.status, 401, `${name} ${method} ${path}`);
      assert.deepEqual(res.body, AUTH_BODY, `${name} ${method} ${path}`);
    }
  }
});

test('Authentication 1: the Bearer scheme is matched case-insensitively', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  assert.equal((await h.request('GET', '/v1/identity', { headers: { authorization: `bearer ${apiKey}` } })).status, 200);
  assert.equal((await h.request('GET', '/v1/identity', { headers: { authorization: `Bearer ${apiKey.toUpperCase()}` } })).status, 401, 'the key itself is case-sensitive');
});

test('Authentication 2: a suspended key that is reinstated works again; a revoked one never does', async (t) => {
  const h = await startHarness(t);
  const k = await h.createKey();
  const now = new Date().toISOString();
  await h.svc.ledger.handle(k.keyId, (s) => decideKey({ type: 'SuspendKey', keyId: k.keyId, now }, s));
  assert.equal((await h.request('GET', '/v1/identity', { key: k.apiKey })).status, 401);
  await h.svc.ledger.handle(k.keyId, (s) => decideKey({ type: 'ReinstateKey', keyId: k.keyId, now }, s));
  assert.equal((await h.request('GET', '/v1/identity', { key: k.apiKey })).status, 200);
});

test('a key the server holds from earlier requests is refused on the very next request after another process revokes it', async (t) => {
  // The auth hook keeps keys by token while the read models are unchanged (http/auth.ts): every
  // change of a key, from this process or the admin CLI's, must reach the next request.
  const h = await startHarness(t);
  const k = await h.createKey({ limit: 5 });
  const identity = () => h.request('GET', '/v1/identity', { key: k.apiKey });
  for (let i = 0; i < 3; i++) assert.equal((await identity()).status, 200);

  const limit = await runAdmin(h.config.dataDir, 'keys', 'set-limit', k.keyId, '7');
  assert.equal(limit.code, 0, limit.stderr);
  assert.equal((await identity()).body.usage.limit, 7, 'a limit set by the CLI shows on the next request');

  const suspend = await runAdmin(h.config.dataDir, 'keys', 'suspend', k.keyId);
  assert.equal(suspend.code, 0, suspend.stderr);
  assert.equal((await identity()).status, 401, 'suspended by the CLI: refused at once');
  assert.equal((await runAdmin(h.config.dataDir, 'keys', 'reinstate', k.keyId)).code, 0);
  assert.equal((await identity()).status, 200);
  assert.equal((await identity()).status, 200);

  const revoke = await runAdmin(h.config.dataDir, 'keys', 'revoke', k.keyId);
  assert.equal(revoke.code, 0, revoke.stderr);
  const after = await h.request('GET', `/v1/jobs/job_x`, { key: k.apiKey });
  assert.equal(after.status, 401, 'revoked by the CLI: refused on the very next request');
  assert.deepEqual(after.body, AUTH_BODY);
  assert.equal((await identity()).status, 401);
});

test('a key held from earlier requests is refused at once when this process suspends it, and its usage follows its jobs', async (t) => {
  const h = await startHarness(t);
  const k = await h.createKey({ limit: 2 });
  const identity = () => h.request('GET', '/v1/identity', { key: k.apiKey });
  assert.deepEqual((await identity()).body.usage, { limit: 2, used: 0, remaining: 2 });
  const handle = await h.upload(k.apiKey);
  assert.equal((await h.request('POST', '/v1/jobs', { key: k.apiKey, body: { upload_handle: handle, exercise_id: 'squat' } })).status, 201);
  assert.deepEqual((await identity()).body.usage, { limit: 2, used: 0, remaining: 1 }, 'the held unit shows on the next request');
  await h.svc.ledger.handle(k.keyId, (s) => decideKey({ type: 'SuspendKey', keyId: k.keyId, now: new Date().toISOString() }, s));
  assert.equal((await identity()).status, 401);
});

test('Errors: unknown routes and methods answer in the envelope (404 not_found, 405 method_not_allowed)', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const missing = await h.request('GET', '/v1/nothing-here', { key: apiKey });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.error.code, 'not_found');
  const wrongMethod = await h.request('DELETE', '/v1/jobs', { key: apiKey });
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.body.error.code, 'method_not_allowed');
  assert.match(wrongMethod.headers.get('allow') ?? '', /GET/);
  const legacy = await h.request('GET', '/identity', { key: apiKey });
  assert.equal(legacy.status, 404, 'Versioning 1: routes other than /livez carry /v1');
});

test('every response carries X-Request-Id, echoing a well-formed one the client sent', async (t) => {
  const h = await startHarness(t);
  const own = await h.request('GET', '/livez', { headers: { 'x-request-id': 'trace-123' } });
  assert.equal(own.headers.get('x-request-id'), 'trace-123');
  const generated = await h.request('GET', '/v1/identity');
  assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('GET /openapi.json is an OpenAPI 3.1 document covering every partner route', async (t) => {
  const h = await startHarness(t);
  const res = await h.request('GET', '/openapi.json');
  assert.equal(res.status, 200);
  assert.equal(res.body.openapi, '3.1.0');
  for (const path of ['/v1/identity', '/v1/exercises', '/v1/uploads', '/v1/uploads/{handle}', '/v1/jobs', '/v1/jobs/{job_id}', '/v1/jobs/{job_id}/cancel']) {
    assert.ok(res.body.paths[path], `missing ${path}`);
  }
});

test('a body over the size limit is refused in the envelope (413), and the server keeps serving', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const res = await h.request('POST', '/v1/jobs', { key: apiKey, raw: 'x'.repeat(200_000), headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 413);
  assert.equal(res.body.error.code, 'payload_too_large');
  assert.equal((await h.request('GET', '/livez')).status, 200);
});
