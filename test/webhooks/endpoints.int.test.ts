// Webhook endpoints over HTTP (issue 11): register (secret shown once), list (no secrets), delete,
// scoped to the key; the SSRF guard at registration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../support/harness.js';

const ALLOW = { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' };

test('POST /v1/webhook-endpoints answers 201 {id,url,events,secret,created_at}; the secret is whsec_ + base64 of 24+ bytes', async (t) => {
  const h = await startHarness(t, { env: ALLOW });
  const { apiKey } = await h.createKey();
  const res = await h.request('POST', '/v1/webhook-endpoints', { key: apiKey, body: { url: 'http://127.0.0.1:9/hook' } });
  assert.equal(res.status, 201, res.text);
  assert.deepEqual(Object.keys(res.body).sort(), ['created_at', 'events', 'id', 'secret', 'url']);
  assert.equal(res.body.url, 'http://127.0.0.1:9/hook');
  assert.deepEqual(res.body.events, ['job.completed', 'job.failed', 'job.cancelled'], 'all events when none are named');
  assert.match(res.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  assert.ok(Buffer.from(res.body.secret.slice(6), 'base64').length >= 24);
  assert.ok(!Number.isNaN(Date.parse(res.body.created_at)));

  const some = await h.request('POST', '/v1/webhook-endpoints', { key: apiKey, body: { url: 'http://127.0.0.1:9/failures', events: ['job.failed'] } });
  assert.deepEqual(some.body.events, ['job.failed']);
  const list = await h.request('GET', '/v1/webhook-endpoints', { key: apiKey });
  assert.equal(list.status, 200);
  assert.deepEqual(list.body, {
    webhook_endpoints: [
      { id: res.body.id, url: res.body.url, events: res.body.events, created_at: res.body.created_at },
      { id: some.body.id, url: some.body.url, events: ['job.failed'], created_at: some.body.created_at },
    ],
  });
  assert.ok(!list.text.includes('whsec_'), 'GET never shows a secret');
});

test('DELETE /v1/webhook-endpoints/{id}: 204, then gone; a foreign or unknown id is 404 webhook_endpoint_not_found', async (t) => {
  const h = await startHarness(t, { env: ALLOW });
  const mine = await h.createKey();
  const other = await h.createKey();
  const created = (await h.request('POST', '/v1/webhook-endpoints', { key: mine.apiKey, body: { url: 'http://127.0.0.1:9/hook' } })).body;
  const foreign = await h.request('DELETE', `/v1/webhook-endpoints/${created.id}`, { key: other.apiKey });
  assert.deepEqual([foreign.status, foreign.body.error.code], [404, 'webhook_endpoint_not_found']);
  assert.equal((await h.request('GET', '/v1/webhook-endpoints', { key: other.apiKey })).body.webhook_endpoints.length, 0, 'not listed to another key');
  const removed = await h.request('DELETE', `/v1/webhook-endpoints/${created.id}`, { key: mine.apiKey });
  assert.equal(removed.status, 204);
  assert.equal(removed.text, '');
  assert.deepEqual((await h.request('GET', '/v1/webhook-endpoints', { key: mine.apiKey })).body, { webhook_endpoints: [] });
  const again = await h.request('DELETE', `/v1/webhook-endpoints/${created.id}`, { key: mine.apiKey });
  assert.deepEqual([again.status, again.body.error.code], [404, 'webhook_endpoint_not_found']);
  const unknown = await h.request('DELETE', '/v1/webhook-endpoints/constructor', { key: mine.apiKey });
  assert.equal(unknown.status, 404);
});

test('bad bodies: 400 malformed_request for a missing url or an unknown event; 400 invalid_webhook_url for a non-http(s) URL or one with credentials', async (t) => {
  const h = await startHarness(t, { env: ALLOW });
  const { apiKey } = await h.createKey();
  const post = (body: unknown) => h.request('POST', '/v1/webhook-endpoints', { key: apiKey, body });
  for (const body of [{}, { url: 'http://127.0.0.1:9/', events: ['job.started'] }, { url: 'http://127.0.0.1:9/', events: [] }]) {
    const res = await post(body);
    assert.deepEqual([res.status, res.body.error.code], [400, 'malformed_request'], JSON.stringify(body));
  }
  for (const url of ['ftp://example.com/hook', 'not a url', 'http://user:pw@127.0.0.1:9/']) {
    const res = await post({ url });
    assert.deepEqual([res.status, res.body.error.code], [400, 'invalid_webhook_url'], url);
  }
  assert.equal((await h.request('POST', '/v1/webhook-endpoints', { body: { url: 'http://127.0.0.1:9/' } })).status, 401);
});

test('SSRF: loopback, private, link-local and metadata URLs are refused at registration (400 webhook_url_not_allowed)', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  for (const url of [
    'http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://10.1.2.3/', 'http://172.20.0.1/', 'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://[fd00:ec2::254]/', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/',
  ]) {
    const res = await h.request('POST', '/v1/webhook-endpoints', { key: apiKey, body: { url } });
    assert.deepEqual([res.status, res.body?.error?.code], [400, 'webhook_url_not_allowed'], url);
  }
  assert.deepEqual((await h.request('GET', '/v1/webhook-endpoints', { key: apiKey })).body, { webhook_endpoints: [] });
});
