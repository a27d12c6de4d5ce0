// Timeouts of the two listeners (issue 21, items 1 and 4; README "Timeouts"). The API cuts a body
// that trickles; the storage host bounds an upload by progress only: a PUT that keeps sending runs
// far past every timeout and lands, one that goes quiet is cut. Scaled down through the env knobs
// (seconds instead of minutes); the defaults are checked against the bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { request as httpRequest } from 'node:http';
import { listenerTimeouts } from '../../src/config.js';
import { startHarness } from '../support/harness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Raw socket: what arrives, and when the server closed it. */
function rawClient(base: string) {
  const url = new URL(base);
  const socket: Socket = connect(Number(url.port), url.hostname);
  let received = '';
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
  socket.on('data', (d) => (received += d.toString()));
  socket.on('error', () => undefined);
  return { socket, closed, received: () => received };
}

test('defaults: an API request must arrive within 30 s (cut within two minutes), uploads are bounded only by 60 s without bytes', () => {
  const t = listenerTimeouts({});
  assert.equal(t.apiRequestMs, 30_000);
  assert.ok(t.headersMs <= t.apiRequestMs);
  assert.equal(t.storageIdleMs, 60_000);
  assert.throws(() => listenerTimeouts({ UPLOAD_IDLE_TIMEOUT_SECONDS: '0' }), /UPLOAD_IDLE_TIMEOUT_SECONDS/);
});

test('a request body that trickles (one byte a second of 60,000 announced) is cut with 408 request_timeout, and the API keeps serving', async (t) => {
  const h = await startHarness(t, { env: { HTTP_REQUEST_TIMEOUT_SECONDS: '2', HTTP_HEADERS_TIMEOUT_SECONDS: '2' } });
  const { apiKey } = await h.createKey();
  const c = rawClient(h.base);
  const started = Date.now();
  c.socket.write(`POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{`);
  const drip = setInterval(() => c.socket.writable && c.socket.write(' '), 1000);
  t.after(() => clearInterval(drip));
  const closedAt = await Promise.race([c.closed, sleep(20_000).then(() => 0)]);
  clearInterval(drip);
  assert.ok(closedAt > 0, 'the trickling request was never cut');
  // requestTimeout 2 s, checked every 5 s by Node: well within the bound.
  assert.ok(closedAt - started < 10_000, `cut after ${closedAt - started} ms`);
  assert.match(c.received(), /^HTTP\/1\.1 408 /);
  assert.match(c.received(), /"code":"request_timeout"/);
  assert.equal((await h.request('GET', '/livez')).status, 200);
});

test('headers that never finish are cut too', async (t) => {
  const h = await startHarness(t, { env: { HTTP_REQUEST_TIMEOUT_SECONDS: '2', HTTP_HEADERS_TIMEOUT_SECONDS: '1' } });
  const c = rawClient(h.base);
  c.socket.write('GET /v1/identity HTTP/1.1\r\nHost: x\r\n');
  const drip = setInterval(() => c.socket.writable && c.socket.write('X-Slow: 1\r\n'), 500);
  t.after(() => clearInterval(drip));
  const closedAt = await Promise.race([c.closed, sleep(20_000).then(() => 0)]);
  clearInterval(drip);
  assert.ok(closedAt > 0, 'slow headers were never cut');
});

/** PUTs `chunks` chunks of `size` bytes, one every `everyMs`; resolves with the status and body. */
function slowPut(url: string, chunks: number, size: number, everyMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'PUT', headers: { 'content-type': 'video/mp4', 'content-length': String(chunks * size) } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    let sent = 0;
    const next = () => {
      req.write(Buffer.alloc(size, sent % 251));
      if (++sent === chunks) return void req.end();
      setTimeout(next, everyMs);
    };
    next();
  });
}

test('an upload that keeps sending runs well past every timeout (idle 1 s, request 1 s) and lands: the spot reads uploaded', async (t) => {
  const h = await startHarness(t, { env: { UPLOAD_IDLE_TIMEOUT_SECONDS: '1', HTTP_REQUEST_TIMEOUT_SECONDS: '1', HTTP_HEADERS_TIMEOUT_SECONDS: '1' } });
  const { apiKey } = await h.createKey();
  const spot = await h.request('POST', '/v1/uploads', { key: apiKey });
  const started = Date.now();
  // 8 s of upload, a chunk every 400 ms: eight times the idle timeout, never idle for one.
  const put = await slowPut(spot.body.upload_url, 20, 64 * 1024, 400);
  assert.ok(Date.now() - started > 7000);
  assert.equal(put.status, 200, put.body);
  assert.equal(put.body, '');
  const status = await h.request('GET', `/v1/uploads/${spot.body.handle}`, { key: apiKey });
  assert.equal(status.body.state, 'uploaded');
});

test('an upload that goes quiet for the idle timeout is cut with 408 upload_idle_timeout; nothing is stored, the spot stays minted', async (t) => {
  const h = await startHarness(t, { env: { UPLOAD_IDLE_TIMEOUT_SECONDS: '1' } });
  const { apiKey } = await h.createKey();
  const spot = await h.request('POST', '/v1/uploads', { key: apiKey });
  const url = new URL(spot.body.upload_url);
  const c = rawClient(`http://${url.host}`);
  c.socket.write(`PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n${'v'.repeat(100)}`);
  const closedAt = await Promise.race([c.closed, sleep(15_000).then(() => 0)]);
  assert.ok(closedAt > 0, 'the quiet upload was never cut');
  assert.match(c.received(), /^HTTP\/1\.1 408 /);
  assert.match(c.received(), /"code":"upload_idle_timeout"/);
  assert.match(c.received(), /x-content-type-options: nosniff/i);
  const status = await h.request('GET', `/v1/uploads/${spot.body.handle}`, { key: apiKey });
  assert.equal(status.body.state, 'minted');
});

test('a PUT that starts before the URL expires and ends after it: 410 upload_spot_expired, nothing stored', async (t) => {
  const h = await startHarness(t, { env: { UPLOAD_SPOT_TTL_SECONDS: '2' } });
  const { apiKey } = await h.createKey();
  const spot = await h.request('POST', '/v1/uploads', { key: apiKey });
  // Starts at once, lasts about 3 s: past the 2 s window.
  const put = await slowPut(spot.body.upload_url, 8, 1024, 400);
  assert.equal(put.status, 410, put.body);
  assert.equal(JSON.parse(put.body).error.code, 'upload_spot_expired');
  assert.equal(await h.svc.storage.stat(spot.body.handle), 0);
});
