// GET /readyz: 200 when the event store, the read models and the storage answer and the read
// models are caught up; otherwise 503 not_ready in SPEC's envelope, and back to 200 once repaired.
// /livez answers 200 throughout. Real files changed behind the running service's back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, renameSync } from 'node:fs';
import { ledgerStream } from '../../src/events/ledger.js';
import { checkpointOf } from '../../src/projections/runner.js';
import { paths } from '../../src/service.js';
import { startHarness, type Harness } from '../support/harness.js';

async function probe(h: Harness) {
  const [ready, live] = await Promise.all([h.request('GET', '/readyz'), h.request('GET', '/livez')]);
  assert.equal(live.status, 200, '/livez is unchanged');
  assert.deepEqual(live.body, { status: 'ok' });
  return ready;
}

function assertNotReady(res: { status: number; body: any }, mentions: RegExp) {
  assert.equal(res.status, 503);
  assert.deepEqual(Object.keys(res.body), ['error']);
  assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'message']);
  assert.equal(res.body.error.code, 'not_ready');
  assert.match(res.body.error.message, mentions);
}

test('ready: 200 with no authentication', async (t) => {
  const h = await startHarness(t);
  const res = await probe(h);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { status: 'ready' });
});

test('read-model file removed behind the service: 503 not_ready, and 200 again once it is back', async (t) => {
  const h = await startHarness(t);
  const file = paths(h.config.dataDir).readModels;
  renameSync(file, `${file}.away`);
  assertNotReady(await probe(h), /read models are unreachable/);
  renameSync(`${file}.away`, file);
  assert.equal((await probe(h)).status, 200);
});

test('read-model file made unreadable: 503 not_ready, and 200 again once readable', async (t) => {
  const h = await startHarness(t);
  const file = paths(h.config.dataDir).readModels;
  chmodSync(file, 0o000);
  try {
    assertNotReady(await probe(h), /read models are unreachable/);
  } finally {
    chmodSync(file, 0o644);
  }
  assert.equal((await probe(h)).status, 200);
});

test('storage directory gone: 503 not_ready naming the storage', async (t) => {
  const h = await startHarness(t);
  const live = h.svc.disk!.live;
  renameSync(live, `${live}.away`);
  assertNotReady(await probe(h), /video storage is unreachable/);
  renameSync(`${live}.away`, live);
  assert.equal((await probe(h)).status, 200);
});

test('events appended behind the read models: the probe catches them up and answers 200', async (t) => {
  const h = await startHarness(t);
  const { keyId } = await h.createKey();
  // Another process's append that nobody projected yet (as after a crash between append and projection).
  const stream = ledgerStream(keyId);
  const revision = (await h.svc.store.readStream(stream)).length - 1;
  const { lastPosition } = await h.svc.store.append(stream, [{ type: 'KeySuspended', data: { keyId, at: new Date().toISOString() } }], revision);
  assert.ok(checkpointOf(h.svc.readDb()) < lastPosition, 'behind before the probe');
  assert.equal((await probe(h)).status, 200);
  assert.equal(checkpointOf(h.svc.readDb()), lastPosition);
});

test('the event store closed under the service: 503 not_ready naming it', async (t) => {
  const h = await startHarness(t);
  const db = (h.svc.store as unknown as { db: { close(): void } }).db;
  db.close();
  assertNotReady(await probe(h), /event store is unreachable/);
});
