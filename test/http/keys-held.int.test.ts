// Authentication keeps a key by token across this process's own job events (issue 22w:
// Service.keysVersion = LiveReadModels.othersVersion + Projector.keyChanges), and must still refuse
// a key suspended or revoked by another process on the very next request. The service opened as
// `npm start` opens it (the ledger's writer thread, whose batches are projected on the companion
// connection while their fsync runs); real files, HTTP and the admin CLI as a process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideKey } from '../../src/commands/keys.js';
import { startHarness } from '../support/harness.js';
import { runAdmin } from '../cli/run.js';

test("the key held by token outlives this process's job events, and is refused at once when another process suspends or revokes it", async (t) => {
  const h = await startHarness(t, { ledgerWriter: 'thread' });
  const store = h.svc.store as { writesOnThread?: boolean };
  for (let i = 0; i < 200 && !store.writesOnThread; i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(store.writesOnThread, 'the writer thread booted');
  const k = await h.createKey({ limit: 5 });
  const identity = () => h.request('GET', '/v1/identity', { key: k.apiKey });
  assert.equal((await identity()).status, 200);
  const handle = await h.upload(k.apiKey);
  const before = h.svc.keysVersion();
  const job = await h.request('POST', '/v1/jobs', { key: k.apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
  assert.equal(job.status, 201);
  assert.equal((await h.request('GET', `/v1/jobs/${job.body.job_id}`, { key: k.apiKey })).status, 200);
  assert.deepEqual((await identity()).body.usage, { limit: 5, used: 0, remaining: 4 }, 'usage is read fresh');
  assert.equal(h.svc.keysVersion(), before, "this process's own job events leave the held keys alone");

  const suspend = await runAdmin(h.config.dataDir, 'keys', 'suspend', k.keyId);
  assert.equal(suspend.code, 0, suspend.stderr);
  assert.equal((await identity()).status, 401, 'suspended by the CLI: refused at once');
  assert.equal((await runAdmin(h.config.dataDir, 'keys', 'reinstate', k.keyId)).code, 0);
  assert.equal((await identity()).status, 200);
  const revoke = await runAdmin(h.config.dataDir, 'keys', 'revoke', k.keyId);
  assert.equal(revoke.code, 0, revoke.stderr);
  assert.equal((await h.request('GET', '/v1/jobs', { key: k.apiKey })).status, 401, 'revoked by the CLI: refused on the very next request');

  // A key change this process projects itself drops it too.
  const k2 = await h.createKey();
  assert.equal((await h.request('GET', '/v1/identity', { key: k2.apiKey })).status, 200);
  await h.svc.ledger.handle(k2.keyId, (s) => decideKey({ type: 'SuspendKey', keyId: k2.keyId, now: new Date().toISOString() }, s));
  assert.equal((await h.request('GET', '/v1/identity', { key: k2.apiKey })).status, 401);
});
