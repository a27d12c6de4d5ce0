// Edges an outside review (issue rv) left for a decision, decided in issue rw; over real HTTP
// sockets and a real database file. Each test failed on the code before the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { startHarness } from '../support/harness.js';

/** A request with headers sent as given: an array value goes out as that many header lines. */
function rawRequest(url: string, method: string, headers: Record<string, string | string[]> | string[], body?: string | Buffer): Promise<{ status: number; headers: Record<string, unknown>; body: any; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('storage host: a PUT carrying Authorization is refused as S3 refuses it (400, the host\'s envelope), nothing stored, the URL still good', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const minted = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal(minted.status, 201);
  const url: string = minted.body.upload_url;
  for (const authorization of [`Bearer ${apiKey}`, 'AWS4-HMAC-SHA256 Credential=x', '']) {
    const put = await rawRequest(url, 'PUT', { authorization, 'content-type': 'video/mp4' }, 'bytes that must not land');
    assert.equal(put.status, 400, `Authorization "${authorization}": ${put.text}`);
    assert.equal(put.body.error.code, 'authorization_not_allowed');
    assert.match(put.body.error.message, /without an Authorization header/);
    assert.match(String(put.headers['content-type']), /^application\/json/);
    assert.equal(put.headers['x-content-type-options'], 'nosniff');
  }
  // Checked before the signature, as S3 does (one auth mechanism at a time).
  const forged = await rawRequest(url.replace(/signature=[^&]+/, 'signature=bad'), 'PUT', { authorization: `Bearer ${apiKey}` }, 'x');
  assert.equal(forged.status, 400);
  // Nothing consumed: the spot is still minted, and the same URL without the header lands the bytes.
  assert.equal((await h.request('GET', `/v1/uploads/${minted.body.handle}`, { key: apiKey })).body.state, 'minted');
  const ok = await rawRequest(url, 'PUT', { 'content-type': 'video/mp4' }, 'the video');
  assert.equal(ok.status, 200);
  assert.equal(ok.text, '');
  assert.equal((await h.request('GET', `/v1/uploads/${minted.body.handle}`, { key: apiKey })).body.state, 'uploaded');
});

test('two Idempotency-Key headers are a bad key (400 invalid_idempotency_key), not one key "a, b"; nothing is minted or created', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const auth = { authorization: `Bearer ${apiKey}` };
  const mint = await rawRequest(`${h.base}/v1/uploads`, 'POST', { ...auth, 'idempotency-key': ['key-a', 'key-b'] });
  assert.equal(mint.status, 400, mint.text);
  assert.deepEqual(Object.keys(mint.body), ['error']);
  assert.equal(mint.body.error.code, 'invalid_idempotency_key');
  assert.match(mint.body.error.message, /more than once/);
  // No mint was taken from the window: the next mint leaves SPOTS_PER_WINDOW - 1.
  const first = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal(first.status, 201);
  assert.match(first.headers.get('ratelimit') ?? '', /r=99;/);

  const handle = await h.upload(apiKey);
  const body = JSON.stringify({ upload_handle: handle, exercise_id: 'squat' });
  const submit = await rawRequest(`${h.base}/v1/jobs`, 'POST', { ...auth, 'content-type': 'application/json', 'idempotency-key': ['job-a', 'job-b'] }, body);
  assert.equal(submit.status, 400, submit.text);
  assert.equal(submit.body.error.code, 'invalid_idempotency_key');
  assert.deepEqual((await h.request('GET', '/v1/jobs', { key: apiKey })).body, { jobs: [] });
  assert.equal((await h.request('GET', `/v1/uploads/${handle}`, { key: apiKey })).body.state, 'uploaded');
  // The same names in different case are the same header.
  const mixed = await rawRequest(`${h.base}/v1/jobs`, 'POST', ['authorization', auth.authorization, 'content-type', 'application/json', 'Idempotency-Key', 'job-a', 'idempotency-key', 'job-b'], body);
  assert.equal(mixed.status, 400, mixed.text);

  // One header whose value holds a comma is one key like any other, and replays.
  const once = await rawRequest(`${h.base}/v1/jobs`, 'POST', { ...auth, 'content-type': 'application/json', 'idempotency-key': 'job-a, job-b' }, body);
  assert.equal(once.status, 201, once.text);
  const again = await rawRequest(`${h.base}/v1/jobs`, 'POST', { ...auth, 'content-type': 'application/json', 'idempotency-key': 'job-a, job-b' }, body);
  assert.equal(again.status, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body.job_id, once.body.job_id);
});

test('a JSON body that starts with a UTF-8 byte-order mark is read (RFC 8259 8.1); every other malformed body stays a clear 400', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const handle = await h.upload(apiKey);
  const json = JSON.stringify({ upload_handle: handle, exercise_id: 'squat' });
  const withBom = await h.request('POST', '/v1/jobs', { key: apiKey, raw: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)]), headers: { 'content-type': 'application/json' } });
  assert.equal(withBom.status, 201, withBom.text);
  assert.equal(withBom.body.status, 'queued');
  // The same request without the mark is the same request (idempotent resubmission: same job).
  const plain = await h.request('POST', '/v1/jobs', { key: apiKey, raw: json, headers: { 'content-type': 'application/json' } });
  assert.equal(plain.status, 201);
  assert.equal(plain.body.job_id, withBom.body.job_id);

  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const refused: [Buffer, RegExp][] = [
    [bom, /the body is empty/],
    [Buffer.concat([bom, bom, Buffer.from(json)]), /not valid JSON/],
    [Buffer.concat([bom, Buffer.from('{')]), /not valid JSON/],
    [Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(json, 'utf16le')]), /not valid JSON/],
    [Buffer.concat([bom, Buffer.from('[]')]), /must be object/],
    [Buffer.concat([bom, Buffer.from('{}')]), /upload_handle/],
  ];
  for (const [raw, message] of refused) {
    const res = await h.request('POST', '/v1/jobs', { key: apiKey, raw, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400, `${raw.toString('hex').slice(0, 16)}: ${res.text}`);
    assert.equal(res.body.error.code, 'malformed_request');
    assert.match(res.body.error.message, message, raw.toString('hex').slice(0, 16));
  }
  // Webhook registration reads its body the same way.
  const hook = await h.request('POST', '/v1/webhook-endpoints', { key: apiKey, raw: Buffer.concat([bom, Buffer.from(JSON.stringify({ url: 'http://nonexistent.invalid/hooks' }))]), headers: { 'content-type': 'application/json' } });
  assert.notEqual(hook.body?.error?.code, 'malformed_request', hook.text);
});

test('a webhook url with spaces or control characters is refused (400 invalid_webhook_url), not stored as given and called as another string', async (t) => {
  const h = await startHarness(t, { env: { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' } });
  const { apiKey } = await h.createKey();
  for (const url of [' http://127.0.0.1:9/hook', 'http://127.0.0.1:9/hook ', 'http://127.0.0.1:9/a b', 'http://127.0.0.1:9/a\tb', 'http://127.0.0.1:9/a\nb', 'http://127.0.0.1:9/\u0000']) {
    const res = await h.request('POST', '/v1/webhook-endpoints', { key: apiKey, body: { url } });
    assert.equal(res.status, 400, `${JSON.stringify(url)}: ${res.text}`);
    assert.equal(res.body.error.code, 'invalid_webhook_url');
    assert.match(res.body.error.message, /spaces or control characters/);
  }
  assert.deepEqual((await h.request('GET', '/v1/webhook-endpoints', { key: apiKey })).body, { webhook_endpoints: [] });
  // Percent-encoded, the same path is fine.
  const ok = await h.request('POST', '/v1/webhook-endpoints', { key: apiKey, body: { url: 'http://127.0.0.1:9/a%20b' } });
  assert.equal(ok.status, 201, ok.text);
  assert.equal(ok.body.url, 'http://127.0.0.1:9/a%20b');
});

test('storage host: a PUT without Content-Length (chunked, a streamed body) stores the bytes like any PUT', async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey();
  const minted = await h.request('POST', '/v1/uploads', { key: apiKey });
  const url: string = minted.body.upload_url;
  // node:http sends a body written in pieces without a length as Transfer-Encoding: chunked.
  const chunked = await new Promise<{ status: number; text: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = httpRequest(url, { method: 'PUT', headers: { 'content-type': 'video/mp4' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    req.write('part one, ');
    req.end('part two');
  });
  assert.equal(chunked.status, 200, chunked.text);
  assert.equal(chunked.text, '');
  assert.equal((await h.request('GET', `/v1/uploads/${minted.body.handle}`, { key: apiKey })).body.state, 'uploaded');
  // A 0-byte PUT (Content-Length: 0) is a PUT of no bytes: the spot stays minted.
  const other = await h.request('POST', '/v1/uploads', { key: apiKey });
  assert.equal((await rawRequest(other.body.upload_url, 'PUT', { 'content-length': '0' })).status, 200);
  assert.equal((await h.request('GET', `/v1/uploads/${other.body.handle}`, { key: apiKey })).body.state, 'minted');
});
