// Webhook deliveries over real sockets (issue 11): a receiver on loopback verifies each request
// with the `standardwebhooks` package; the body's data is the job exactly as GET returns it;
// failures are retried with the same webhook-id and every attempt is in the key's ledger.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VideoProcessingError, type AnalysisEngine } from '../../src/analysis/engine.js';
import { main } from '../../src/cli/admin.js';
import { ledgerStream } from '../../src/events/ledger.js';
import { isForbiddenAddress } from '../../src/webhooks/addresses.js';
import { postWebhook } from '../../src/webhooks/send.js';
import { gatedEngine, sampleResult, until } from '../support/engines.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

const FAST = { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_RETRY_SCALE: '0.001' };

/** squat completes, bicep-curl fails as undecodable. */
const engine: AnalysisEngine = {
  version: 'test-webhooks/1',
  async analyze({ exerciseId }) {
    if (exerciseId === 'bicep-curl') throw new VideoProcessingError('not a video');
    return sampleResult;
  },
};

async function register(h: Harness, key: string, receiver: Receiver, events?: string[]) {
  const res = await h.request('POST', '/v1/webhook-endpoints', { key, body: { url: receiver.url, ...(events ? { events } : {}) } });
  assert.equal(res.status, 201, res.text);
  receiver.secret = res.body.secret;
  return res.body as { id: string; secret: string };
}

async function finishedJob(h: Harness, key: string, exerciseId: string) {
  const res = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: await h.upload(key), exercise_id: exerciseId } });
  assert.equal(res.status, 201, res.text);
  return until(async () => {
    const job = await h.request('GET', `/v1/jobs/${res.body.job_id}`, { key });
    return ['completed', 'failed'].includes(job.body.status) ? job.body : undefined;
  });
}

async function adminJson(h: Harness, ...args: string[]) {
  let out = '';
  let err = '';
  const code = await main(args, { out: { write: (s: string) => ((out += s), true) } as never, err: { write: (s: string) => ((err += s), true) } as never }, () => h.config);
  assert.equal(code, 0, err);
  return out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

test('job.completed and job.failed reach the receiver, signed (standardwebhooks verifies them), data exactly as GET /v1/jobs/{job_id}', async (t) => {
  const h = await startHarness(t, { engine, webhooks: true, env: FAST });
  const { apiKey } = await h.createKey();
  const receiver = await startReceiver(t);
  await register(h, apiKey, receiver);
  const completed = await finishedJob(h, apiKey, 'squat');
  const failed = await finishedJob(h, apiKey, 'bicep-curl');
  const got = await receiver.delivered(2);
  assert.equal(receiver.received.length, 2, 'one request per finished job');
  for (const r of got) assert.ok(r.verified.ok, `signature verified: ${JSON.stringify(r.verified)}`);
  const byType = Object.fromEntries(got.map((r) => [JSON.parse(r.body).type, JSON.parse(r.body)]));
  assert.deepEqual(byType['job.completed'].data, completed);
  assert.deepEqual(byType['job.failed'].data, failed);
  assert.deepEqual(Object.keys(byType['job.completed']), ['type', 'timestamp', 'data']);
  assert.ok(!Number.isNaN(Date.parse(byType['job.completed'].timestamp)));
  for (const r of got) {
    assert.match(String(r.headers['webhook-id']), /^msg_/);
    assert.match(String(r.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
    assert.match(String(r.headers['content-type']), /^application\/json/);
  }
  // A tampered body fails verification with the same package: the check above could fail.
  const tampered = got[0]!;
  assert.equal(receiver.received.every((r) => r.verified.ok), true);
  const { Webhook } = await import('standardwebhooks');
  assert.throws(() => new Webhook(receiver.secret!).verify(tampered.body.replace('"type"', '"typo"'), tampered.headers as Record<string, string>));
});

test('a receiver that fails twice then succeeds: three attempts with one webhook-id, every attempt in the ledger and in admin webhooks deliveries', async (t) => {
  const h = await startHarness(t, { engine, webhooks: true, env: FAST });
  const { apiKey, keyId } = await h.createKey();
  const receiver = await startReceiver(t, (n) => (n <= 2 ? 503 : 204));
  await register(h, apiKey, receiver);
  await finishedJob(h, apiKey, 'squat');
  await receiver.delivered(1);
  assert.deepEqual(receiver.received.map((r) => r.status), [503, 503, 204]);
  assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1, 'the same webhook-id on every retry');
  assert.equal(new Set(receiver.received.map((r) => r.body)).size, 1, 'the same body on every retry');

  const deliveries = await until(async () => {
    const d = await adminJson(h, 'webhooks', 'deliveries', keyId);
    return d[0]?.state === 'succeeded' ? d : undefined;
  });
  assert.equal(deliveries.length, 1);
  assert.equal(deliveries[0].attempts, 3);
  assert.deepEqual(deliveries[0].history.map((a: any) => [a.attempt, a.outcome, a.status_code]), [[1, 'failed', 503], [2, 'failed', 503], [3, 'succeeded', 204]]);
  const types = (await h.svc.store.readStream(ledgerStream(keyId))).map((e) => e.type).filter((t) => t.startsWith('WebhookDelivery'));
  assert.deepEqual(types, ['WebhookDeliveryAttempted', 'WebhookDeliveryFailed', 'WebhookDeliveryAttempted', 'WebhookDeliveryFailed', 'WebhookDeliveryAttempted', 'WebhookDeliverySucceeded']);
  const audited = await main(['audit', keyId], { out: { write: () => true } as never, err: { write: () => true } as never }, () => h.config);
  assert.equal(audited, 0, 'the auditor accepts the delivery events (no violation, totals agree)');
  const verified = await main(['projections', 'verify'], { out: { write: () => true } as never, err: { write: () => true } as never }, () => h.config);
  assert.equal(verified, 0, 'the webhook read models equal a fresh replay of the ledger');
});

test('after the retry window the delivery is given up; admin webhooks redeliver sends it again with the same webhook-id', async (t) => {
  // 3 days x 0.00002 = 5.2 s of retries.
  const h = await startHarness(t, { engine, webhooks: true, env: { ...FAST, WEBHOOK_RETRY_SCALE: '0.00002' } });
  const { apiKey, keyId } = await h.createKey();
  let down = true;
  const receiver = await startReceiver(t, () => (down ? 500 : 200));
  await register(h, apiKey, receiver);
  await finishedJob(h, apiKey, 'squat');
  const [given] = await until(async () => {
    const d = await adminJson(h, 'webhooks', 'deliveries', keyId);
    return d[0]?.state === 'failed' ? d : undefined;
  }, 30_000);
  assert.ok(given.attempts >= 3, `retried with backoff before giving up (${given.attempts} attempts)`);
  assert.equal(given.next_attempt_at, null);
  const tries = receiver.received.length;
  assert.equal(tries, given.attempts);

  down = false;
  const [redelivered] = await adminJson(h, 'webhooks', 'redeliver', given.delivery_id);
  assert.equal(redelivered.state, 'pending');
  const [ok] = await receiver.delivered(1);
  assert.equal(ok!.headers['webhook-id'], given.delivery_id);
  await until(async () => ((await adminJson(h, 'webhooks', 'deliveries', keyId))[0].state === 'succeeded' ? true : undefined));
});

test('an endpoint gets only the events it names; a cancelled job sends job.cancelled; a deleted endpoint gets nothing more', async (t) => {
  const h = await startHarness(t, { webhooks: true, env: { ...FAST, WORKER_CONCURRENCY: '0' } });
  const { apiKey } = await h.createKey();
  const all = await startReceiver(t);
  const failuresOnly = await startReceiver(t);
  await register(h, apiKey, all);
  await register(h, apiKey, failuresOnly, ['job.failed']);
  const job = (await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: 'squat' } })).body;
  await h.request('POST', `/v1/jobs/${job.job_id}/cancel`, { key: apiKey });
  const [got] = await all.delivered(1);
  assert.deepEqual(JSON.parse(got!.body).data, { job_id: job.job_id, status: 'cancelled' });
  assert.equal(JSON.parse(got!.body).type, 'job.cancelled');

  const endpoints = (await h.request('GET', '/v1/webhook-endpoints', { key: apiKey })).body.webhook_endpoints;
  await h.request('DELETE', `/v1/webhook-endpoints/${endpoints[0].id}`, { key: apiKey });
  const second = (await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: await h.upload(apiKey), exercise_id: 'squat' } })).body;
  await h.request('POST', `/v1/jobs/${second.job_id}/cancel`, { key: apiKey });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(all.received.length, 1, 'nothing after the endpoint was deleted');
  assert.equal(failuresOnly.received.length, 0, 'job.failed only');
});

test('SSRF at delivery: a loopback address is refused at connect time unless WEBHOOK_ALLOW_PRIVATE_HOSTS=true', async (t) => {
  const receiver = await startReceiver(t);
  const refused = await postWebhook(receiver.url.replace('127.0.0.1', 'localhost'), {}, '{}', { timeoutMs: 2000, allowPrivateHosts: false });
  assert.equal(refused.statusCode, null);
  assert.match(refused.error, /non-public/);
  const literal = await postWebhook(receiver.url, {}, '{}', { timeoutMs: 2000, allowPrivateHosts: false });
  assert.match(literal.error, /non-public/);
  assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
  const allowed = await postWebhook(receiver.url, {}, '{}', { timeoutMs: 2000, allowPrivateHosts: true });
  assert.equal(allowed.statusCode, 400, 'reached (the receiver refuses an unsigned body)');
  for (const ip of ['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.100.100.200', '::1', 'fe80::1', 'fd00:ec2::254', '::ffff:10.0.0.1', '0.0.0.0']) {
    assert.equal(isForbiddenAddress(ip), true, ip);
  }
  for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) assert.equal(isForbiddenAddress(ip), false, ip);
});

/** Runs admin and returns its exit code and stderr (refusals exit 1). */
async function adminRun(h: Harness, ...args: string[]) {
  let err = '';
  const code = await main(args, { out: { write: () => true } as never, err: { write: (s: string) => ((err += s), true) } as never }, () => h.config);
  return { code, err };
}

test('a key revoked while its job runs: the job\'s outcome is not sent to its endpoints; the delivery ends unsent with the reason in the ledger; redeliver is refused; a suspended key\'s jobs are still delivered', async (t) => {
  const gated = gatedEngine();
  const h = await startHarness(t, { engine: gated, webhooks: true, env: FAST });
  const revoked = await h.createKey();
  const suspended = await h.createKey();
  const receiver = await startReceiver(t);
  const other = await startReceiver(t);
  await register(h, revoked.apiKey, receiver);
  await register(h, suspended.apiKey, other);
  const submit = async (key: string) => {
    const res = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: await h.upload(key), exercise_id: 'squat' } });
    assert.equal(res.status, 201, res.text);
    return res.body.job_id as string;
  };
  const jobA = await submit(revoked.apiKey);
  const jobB = await submit(suspended.apiKey);
  await gated.started;
  assert.equal((await adminRun(h, 'keys', 'revoke', revoked.keyId)).code, 0);
  assert.equal((await adminRun(h, 'keys', 'suspend', suspended.keyId)).code, 0);
  gated.release();

  const [ended] = await until(async () => {
    const d = await adminJson(h, 'webhooks', 'deliveries', revoked.keyId);
    return d[0]?.state === 'failed' ? d : undefined;
  });
  assert.equal(ended.job_id, jobA);
  assert.equal(ended.next_attempt_at, null, 'never retried');
  assert.equal(ended.last_error, 'not sent: the API key was revoked');
  assert.deepEqual(ended.history.map((a: any) => [a.attempt, a.outcome, a.status_code]), [[1, 'failed', null]]);
  // The suspended key's job was delivered (suspension is reversible; its results stay its own).
  const [got] = await other.delivered(1);
  assert.equal(JSON.parse(got!.body).data.job_id, jobB);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(receiver.received.length, 0, 'no request reached the revoked key\'s endpoint');

  const redeliver = await adminRun(h, 'webhooks', 'redeliver', ended.delivery_id);
  assert.equal(redeliver.code, 1);
  assert.match(redeliver.err, /revoked/);
  assert.equal((await adminRun(h, 'audit', revoked.keyId)).code, 0, 'the auditor accepts the unsent delivery');
  assert.equal((await adminRun(h, 'projections', 'verify')).code, 0, 'the read models equal a fresh replay');
  // A rebuild (set-based SQL replay, projections/bulk-sql.ts) gives the same rows.
  assert.equal((await adminRun(h, 'projections', 'rebuild')).code, 0);
  assert.equal((await adminRun(h, 'projections', 'verify')).code, 0, 'the rebuilt read models equal a fresh replay');
  const [rebuilt] = await adminJson(h, 'webhooks', 'deliveries', revoked.keyId);
  assert.deepEqual([rebuilt.state, rebuilt.last_error, rebuilt.attempts], ['failed', 'not sent: the API key was revoked', 1]);
});
