// Hostile input: fuzzed request lines, headers and bodies over raw sockets, and tampered signed
// upload URLs. SPEC.md (Errors): every failed request answers the envelope {error:{code,message}};
// none of these may cause a 5xx or a hang, and the server keeps serving afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { startHarness, type Harness } from '../support/harness.js';
import { budget, fcParams, LONG, tally } from './support/budget.js';
import { rawRequest, type RawOutcome } from './support/raw.js';

const counts = tally();
// A hang anywhere (a request, or a teardown waiting on a connection the server never closes) fails the test instead of stalling the run.
const limit = { timeout: LONG ? 900_000 : 120_000 };
const portOf = (url: string) => Number(new URL(url).port);

/** SPEC.md: a 4xx answer carrying exactly {error:{code,message}}; never a 5xx, never silence. */
function assertEnvelope(out: RawOutcome, method: string, what: string) {
  assert.equal(out.kind, 'response', `${what}: the server answered (${out.kind})`);
  if (out.kind !== 'response') return;
  const { status, body, headers } = out.response;
  assert.ok(status >= 200 && status < 500, `${what}: status ${status} ${body.slice(0, 200)}`);
  if (status < 400 || method === 'HEAD') return;
  assert.match(headers['content-type'] ?? '', /^application\/json/, `${what}: JSON error body`);
  const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
  assert.deepEqual(Object.keys(parsed), ['error'], `${what}: the envelope: ${body}`);
  assert.deepEqual(Object.keys(parsed.error ?? {}).sort(), ['code', 'message'], `${what}: the envelope: ${body}`);
  assert.equal(typeof parsed.error!.code, 'string');
  assert.equal(typeof parsed.error!.message, 'string');
  if (status === 405) assert.ok(!(headers.allow ?? '').split(/,\s*/).includes(method), `${what}: 405 for a method it allows`);
}

async function stillServing(h: Harness, key: string) {
  const live = await h.request('GET', '/livez');
  assert.equal(live.status, 200, 'GET /livez still answers');
  const handle = await h.upload(key);
  const job = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: handle, exercise_id: 'squat' } });
  assert.equal(job.status, 201, 'a valid submission still succeeds');
}

const enc = (s: string) => Buffer.from(s, 'utf8');
const crlf = '\r\n';

/** Pieces of a request line, from plausible to absurd. */
const methods = fc.oneof(
  fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE'),
  fc.constantFrom('GETT', 'PROPFIND', 'CONNECT', 'get', 'P OST', ''),
  fc.stringMatching(/^[A-Z]{1,12}$/),
);
const pathSegments = fc.oneof(
  fc.constantFrom('v1', 'jobs', 'uploads', 'identity', 'exercises', 'cancel', 'livez', 'openapi.json', '..', '.', '', '%2e%2e', '..%2f..%2f', '%00', '%zz', '%E0%A4%A', '%C0%AE', '~', 'ledger.db', 'read-models.db'),
  fc.string({ unit: 'grapheme', maxLength: 12 }).map(encodeURIComponent),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('A'.repeat(3000), 'up_' + 'A'.repeat(22), '00000000-0000-4000-8000-000000000000'),
);
const paths = fc.oneof(
  fc.constantFrom('/livez', '/v1/identity', '/v1/exercises', '/v1/uploads', '/v1/jobs', '/v1/jobs/x/cancel', '/v1/uploads/up_x', '/', '*', '//v1//jobs', '/v1/jobs/', '/V1/JOBS'),
  fc.array(pathSegments, { maxLength: 6 }).map((segments) => '/' + segments.join('/')),
  fc.tuple(fc.constantFrom('/v1/jobs', '/v1/jobs/x', '/v1/uploads/y', '/livez'), fc.constantFrom('?limit=abc', '?limit=0', '?limit=99999', '?cursor=-1', '?cursor=99999999999999999', '?status=bogus', '?status=queued&status=failed', '?__proto__[a]=1', '?%zz=1', '?' + 'a=1&'.repeat(500)))
    .map(([p, q]) => p + q),
);

type Auth = 'none' | 'valid' | 'suspended' | 'garbage';
const auths = fc.oneof(
  fc.constantFrom<Auth>('none', 'valid', 'valid', 'suspended'),
  fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer rk_' + 'x'.repeat(600), 'bearer rk_abc', 'Bearer rk_abc\0def', 'Bearer \u00ff\u00fe', 'Bearer ' + 'é'.repeat(10)),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `Bearer ${s}`),
);

const bodies = fc.oneof(
  fc.constant(enc('')),
  fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)),
  fc.json({ maxDepth: 4 }).map(enc),
  fc.record({
    upload_handle: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string()), fc.object(), fc.string({ unit: 'binary' }), fc.constant('\u0000up_x'), fc.constant('\ud800'), fc.constant('../../etc/passwd')),
    exercise_id: fc.oneof(fc.constantFrom('squat', 'push-up', '', '\u0000', 'SQUAT', 'squat\u0000'), fc.string(), fc.boolean(), fc.double()),
  }, { requiredKeys: [] }).map((o) => enc(JSON.stringify(o))),
  fc.constantFrom(
    enc('['.repeat(20000) + ']'.repeat(20000)),
    enc('{"a":'.repeat(10000) + '1' + '}'.repeat(10000)),
    enc(JSON.stringify({ upload_handle: 'x'.repeat(70_000), exercise_id: 'squat' })),
    enc('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"upload_handle":"up_x","exercise_id":"squat"}'),
    enc('{"upload_handle":"up_x","exercise_id":"squat","upload_handle":"up_y"}'),
    enc('{"upload_handle":1e400,"exercise_id":"squat"}'),
    enc('\ufeff{"upload_handle":"up_x","exercise_id":"squat"}'),
    Buffer.from([0xff, 0xfe, 0x7b, 0x00]),
  ),
);

const contentTypes = fc.constantFrom(undefined, 'application/json', 'text/plain', 'application/json; charset=utf-16', 'multipart/form-data; boundary=', 'application/x-www-form-urlencoded', 'video/mp4', '*/*', 'application/json\u0000');

/** Header-level attacks: framing lies, injection, size. */
const framings = fc.constantFrom('content-length', 'content-length', 'content-length', 'chunked', 'chunked-bad', 'short-length', 'te-and-cl', 'double-cl', 'none');
const extras = fc.array(
  fc.oneof(
    fc.constantFrom(
      'X-Request-Id: ../../etc/passwd',
      'X-Request-Id: ' + 'a'.repeat(200),
      'X-Inject: a\rb',
      'X-Inject: a\nInjected: yes',
      'X-Nul: a\0b',
      'X-Big: ' + 'b'.repeat(20_000),
      'X-Latin: \u00e9\u00ff',
      'Expect: 100-continue',
      'Expect: nonsense',
      'Upgrade: websocket',
      'Connection: upgrade',
      ': no-name',
      'No-Colon',
      'Host: second.example',
      'Accept-Encoding: gzip, br',
      'X-Forwarded-For: 127.0.0.1, ::1',
    ),
    fc.tuple(fc.stringMatching(/^[A-Za-z-]{1,20}$/), fc.string({ unit: 'binary', maxLength: 60 })).map(([n, v]) => `${n}: ${v}`),
  ),
  { maxLength: 4 },
);

function buildRequest(method: string, path: string, auth: string, body: Buffer, contentType: string | undefined, framing: string, extra: string[], host: boolean): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`];
  if (host) lines.push('Host: 127.0.0.1');
  if (auth) lines.push(`Authorization: ${auth}`);
  if (contentType !== undefined) lines.push(`Content-Type: ${contentType}`);
  lines.push(...extra, 'Connection: close');
  let payload = body;
  switch (framing) {
    case 'content-length':
      lines.push(`Content-Length: ${body.length}`);
      break;
    case 'short-length':
      lines.push(`Content-Length: ${Math.floor(body.length / 2)}`);
      break;
    case 'chunked':
      lines.push('Transfer-Encoding: chunked');
      payload = Buffer.concat([body.length ? Buffer.from(`${body.length.toString(16)}\r\n`) : Buffer.alloc(0), body, Buffer.from(body.length ? '\r\n0\r\n\r\n' : '0\r\n\r\n')]);
      break;
    case 'chunked-bad':
      lines.push('Transfer-Encoding: chunked');
      payload = Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]);
      break;
    case 'te-and-cl':
      lines.push('Transfer-Encoding: chunked', `Content-Length: ${body.length}`);
      break;
    case 'double-cl':
      lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`);
      break;
    case 'none':
      payload = Buffer.alloc(0);
      break;
  }
  return Buffer.concat([Buffer.from(lines.join(crlf) + crlf + crlf, 'latin1'), payload]);
}

/** Inputs that once got a non-envelope answer, a dropped socket or a 500: always sent, not left to chance. */
const KNOWN = (key: string): [string, string][] => [
  ['oversized headers', `GET /v1/identity HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`],
  ['an unknown method', 'GETT /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
  ['a NUL byte in the path', 'GET /v1/jobs/a\0b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
  ['a bare CR in a header', 'GET /livez HTTP/1.1\r\nHost: x\r\nX: a\rb\r\nConnection: close\r\n\r\n'],
  ['Transfer-Encoding with Content-Length', 'POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n'],
  ['no Host header', `GET /v1/identity HTTP/1.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`],
  ['CONNECT', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n'],
  ['an unknown Expect', 'POST /v1/jobs HTTP/1.1\r\nHost: x\r\nExpect: nonsense\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'],
  ['bad percent-encoding in a path parameter', `GET /v1/jobs/%E0%A4%A HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`],
  ['not a URL at all', 'PUT http://[::1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'],
  ['a trailing slash on a POST route', `POST /v1/jobs/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`],
  ['a trailing slash on a GET route', `GET /v1/identity/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`],
  ['an upgrade with a malformed chunked body', 'POST //v1//jobs HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\nUpgrade: websocket\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n0\r\n\r\n'],
  ['an absolute URL to elsewhere', 'PUT http://evil.example/uploads/x?expires=1&signature=00 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'],
];

test('known hostile requests get the envelope from the API and the storage host (SPEC: Errors)', limit, async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey({ limit: null });
  const storage = portOf((await h.request('POST', '/v1/uploads', { key: apiKey })).body.upload_url);
  for (const [name, data] of KNOWN(apiKey)) {
    for (const [server, port] of [['API', portOf(h.base)], ['storage host', storage]] as const) {
      assertEnvelope(await rawRequest(port, data), data.split(' ')[0]!, `${name} (${server})`);
    }
  }
  counts.add({ badInputs: KNOWN(apiKey).length * 2 });
  await stillServing(h, apiKey);
});

test('a handle named like an Object.prototype property is not found (SPEC: POST /v1/jobs rule 6)', limit, async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey({ limit: null });
  for (const handle of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
    const res = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
    assert.deepEqual([res.status, res.body?.error?.code], [404, 'upload_not_found'], handle);
  }
  counts.add({ badInputs: 5 });
});

test('fuzzed requests to the API always get a 4xx envelope or a success, never a 5xx or a hang (SPEC: Errors)', limit, async (t) => {
  const h = await startHarness(t);
  const port = portOf(h.base);
  const { apiKey } = await h.createKey({ limit: 5 });
  const suspended = await h.createKey({ limit: null });
  await h.svc.ledger.handle(suspended.keyId, () => [{ type: 'KeySuspended', data: { keyId: suspended.keyId, at: new Date().toISOString() } }]);
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(methods, paths, auths, bodies, contentTypes, framings, extras, fc.boolean(), async (method, path, auth, body, ct, framing, extra, host) => {
      const authorization = auth === 'none' ? '' : auth === 'valid' ? `Bearer ${apiKey}` : auth === 'suspended' ? `Bearer ${suspended.apiKey}` : auth;
      const out = await rawRequest(port, buildRequest(method, path, authorization, body, ct, framing, extra, host || framing === 'none'));
      sent++;
      assertEnvelope(out, method, `${method} ${path.slice(0, 80)}`);
    }),
    fcParams(budget(400, 15_000)),
  );
  counts.add({ badInputs: sent });
  await stillServing(h, apiKey);
});

test('the signed upload URL refuses tampering, expiry, another handle, replay after claim and other methods (SPEC: PUT {upload_url})', limit, async (t) => {
  const clock = { now: Date.parse('2026-05-01T00:00:00.000Z') };
  const h = await startHarness(t, { clock: () => new Date(clock.now) });
  const { apiKey } = await h.createKey({ limit: null });
  const other = await h.createKey({ limit: null });
  const mint = async (key: string) => (await h.request('POST', '/v1/uploads', { key })).body as { handle: string; upload_url: string };
  const put = (url: string, body: string | Buffer, method = 'PUT') => fetch(url, { method, body: method === 'GET' || method === 'HEAD' ? undefined : typeof body === 'string' ? body : new Uint8Array(body) });
  let sent = 0;
  const expectRefusal = async (res: Response, status: number, code: string, what: string) => {
    sent++;
    const text = await res.text();
    assert.equal(res.status, status, `${what}: ${text}`);
    if (res.status !== 405 || text) assert.equal(JSON.parse(text).error.code, code, what);
  };

  // Tampered: every single-character change of the query is refused, and the bytes are not taken.
  const a = await mint(apiKey);
  const url = new URL(a.upload_url);
  const signature = url.searchParams.get('signature')!;
  for (let i = 0; i < signature.length; i += 7) {
    const tampered = new URL(url);
    tampered.searchParams.set('signature', signature.slice(0, i) + (signature[i] === 'a' ? 'b' : 'a') + signature.slice(i + 1));
    await expectRefusal(await put(tampered.href, 'evil'), 403, 'signature_invalid', `signature changed at ${i}`);
  }
  for (const expires of ['0', '-1', String(Number(url.searchParams.get('expires')) + 3600), '1e400', 'NaN', '', '9'.repeat(40)]) {
    const tampered = new URL(url);
    tampered.searchParams.set('expires', expires);
    await expectRefusal(await put(tampered.href, 'evil'), 403, 'signature_invalid', `expires=${expires}`);
  }
  const noSig = new URL(url);
  noSig.search = '';
  await expectRefusal(await put(noSig.href, 'evil'), 403, 'signature_invalid', 'no query');
  assert.equal((await h.request('GET', `/v1/uploads/${a.handle}`, { key: apiKey })).body.state, 'minted', 'no tampered PUT landed');

  // Another handle's signature, on this key and on another key.
  const b = await mint(apiKey);
  const c = await mint(other.apiKey);
  for (const target of [b, c]) {
    const swapped = new URL(url);
    swapped.pathname = `/uploads/${target.handle}`;
    await expectRefusal(await put(swapped.href, 'evil'), 403, 'signature_invalid', 'another handle with this signature');
    assert.equal((await h.request('GET', `/v1/uploads/${target.handle}`, { key: target === c ? other.apiKey : apiKey })).body.state, 'minted');
  }

  // Other methods.
  for (const method of ['GET', 'POST', 'DELETE', 'PATCH', 'HEAD']) {
    const res = await put(a.upload_url, 'x', method);
    await expectRefusal(res, 405, 'method_not_allowed', method);
    assert.equal(res.headers.get('allow'), 'PUT');
  }

  // Replay after claim: refused, and the job keeps the bytes it was submitted with.
  const original = Buffer.from('the bytes the job was submitted with');
  assert.equal((await put(a.upload_url, original)).status, 200);
  const job = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: a.handle, exercise_id: 'squat' } });
  assert.equal(job.status, 201);
  await expectRefusal(await put(a.upload_url, 'replayed bytes'), 403, 'upload_closed', 'replay after claim');
  assert.equal((await h.request('GET', `/v1/uploads/${a.handle}`, { key: apiKey })).body.state, 'claimed');
  assert.deepEqual(readFileSync(join(h.config.dataDir, 'storage', 'frozen', job.body.job_id)), original, "the job's frozen bytes are unchanged");

  // Expired: the URL dies with the spot.
  const d = await mint(apiKey);
  clock.now += 900_000;
  await expectRefusal(await put(d.upload_url, 'late'), 403, 'url_expired', 'PUT after expiry');
  assert.equal((await h.request('GET', `/v1/uploads/${d.handle}`, { key: apiKey })).body.state, 'expired');

  counts.add({ badInputs: sent });
  await stillServing(h, apiKey);
});

test('fuzzed requests to the storage host always get a 4xx envelope, never a 5xx or a hang', limit, async (t) => {
  const h = await startHarness(t);
  const { apiKey } = await h.createKey({ limit: null });
  const minted = (await h.request('POST', '/v1/uploads', { key: apiKey })).body as { upload_url: string };
  const port = portOf(minted.upload_url);
  const signed = new URL(minted.upload_url);
  const targets = fc.oneof(
    fc.constant(`${signed.pathname}${signed.search}`),
    fc.tuple(fc.nat({ max: signed.search.length - 1 }), fc.string({ minLength: 1, maxLength: 1 })).map(([i, ch]) => `${signed.pathname}${signed.search.slice(0, i)}${ch}${signed.search.slice(i + 1)}`),
    paths,
    fc.constantFrom('http://[::1', 'http://evil.example/uploads/x', '//uploads/x', '/uploads/', '/uploads/../signing.key', '/uploads/..%2fsigning.key', '/uploads/%zz', `/uploads/${'A'.repeat(70)}?expires=1&signature=00`),
  );
  let sent = 0;
  await fc.assert(
    fc.asyncProperty(methods, targets, bodies, contentTypes, framings, extras, fc.boolean(), async (method, target, body, ct, framing, extra, host) => {
      // The valid URL with a valid PUT is a legitimate upload: only hostile variants count here.
      if (method === 'PUT' && target === `${signed.pathname}${signed.search}` && framing === 'content-length' && extra.length === 0) return;
      const out = await rawRequest(port, buildRequest(method, target, '', body, ct, framing, extra, host || framing === 'none'));
      sent++;
      assertEnvelope(out, method, `storage ${method} ${target.slice(0, 80)}`);
    }),
    fcParams(budget(300, 5000)),
  );
  counts.add({ badInputs: sent });
  const live = await fetch(`http://127.0.0.1:${port}/uploads/x`, { method: 'PUT', body: 'x' });
  assert.equal(live.status, 403, 'the storage host still answers');
  await stillServing(h, apiKey);
});
