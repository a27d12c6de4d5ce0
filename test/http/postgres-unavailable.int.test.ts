// SPEC's store failures on the PostgreSQL ledger, as the SQLite versions of these tests check them
// on the embedded one: an append that cannot get the appender lock within STORE_BUSY_TIMEOUT_MS
// (another session holds it) is 503 store_unavailable for a mint and 500 internal_error for a
// submission (Rule 9), nothing is held, and the server keeps serving; a store that is gone makes
// /readyz 503 naming it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startHarness } from '../support/harness.js';
import { NO_POSTGRES, startPostgres, type TestPostgres } from '../support/postgres.js';

let server: TestPostgres | undefined;
before(async () => {
  if (!NO_POSTGRES) server = await startPostgres();
});
after(() => server?.stop());
const skip = NO_POSTGRES ?? false;

const usage = async (h: Awaited<ReturnType<typeof startHarness>>, key: string) => (await h.request('GET', '/v1/identity', { key })).body.usage;

test('postgres: appends blocked past STORE_BUSY_TIMEOUT_MS: mint 503 store_unavailable, submit 500 internal_error with the handle still claimable, then 201s', { skip }, async (t) => {
  const url = await server!.freshDatabase();
  const h = await startHarness(t, { env: { EVENT_STORE: 'postgres', POSTGRES_URL: url, STORE_BUSY_TIMEOUT_MS: '200' } });
  const { apiKey } = await h.createKey({ limit: 1 });
  const handle = await h.upload(apiKey);
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  t.after(() => locker.end());
  // The same key append_events takes per transaction, held by another session.
  await locker.query("SELECT pg_advisory_lock(hashtext('rep_coach.append'))");
  let mint;
  let submit;
  try {
    mint = await h.request('POST', '/v1/uploads', { key: apiKey });
    submit = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } });
  } finally {
    await locker.query("SELECT pg_advisory_unlock(hashtext('rep_coach.append'))");
  }
  assert.equal(mint.status, 503);
  assert.equal(mint.body.error.code, 'store_unavailable');
  assert.equal(submit.status, 500);
  assert.equal(submit.body.error.code, 'internal_error');
  assert.deepEqual(await usage(h, apiKey), { limit: 1, used: 0, remaining: 1 }, 'no unit held');
  assert.equal((await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } })).status, 201);
  assert.equal((await h.request('POST', '/v1/uploads', { key: apiKey })).status, 201);
});

test('postgres: the event store gone under the service: /readyz 503 not_ready naming it, /livez still 200', { skip }, async (t) => {
  const h = await startHarness(t, { env: { EVENT_STORE: 'postgres', POSTGRES_URL: await server!.freshDatabase() } });
  assert.equal((await h.request('GET', '/readyz')).status, 200);
  await h.svc.store.close();
  const ready = await h.request('GET', '/readyz');
  assert.equal(ready.status, 503);
  assert.equal(ready.body.error.code, 'not_ready');
  assert.match(ready.body.error.message, /event store is unreachable/);
  assert.equal((await h.request('GET', '/livez')).status, 200);
});
