// No query on the API's event loop whose cost grows with the data (issue 22): every SQL statement
// the service prepares while it serves every route, runs jobs (the queue's picks), sweeps, dispatches
// webhooks and answers a metrics scrape is recorded, and its EXPLAIN QUERY PLAN must read through an
// index (SEARCH), never walk a whole table (SCAN). Statements of the admin paths (rebuild, verify,
// audit) and of opening a file are not on the event loop and are not recorded here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { sampleResult } from '../support/engines.js';
import { startHarness } from '../support/harness.js';
import { purgeOnce } from '../../src/runner/retention.js';
import { sweepOnce } from '../../src/runner/sweeper.js';

/** Tables of a fixed handful of rows: a scan of them costs the same at any size of the data. */
const FIXED_SIZE = new Set(['job_counts', 'checkpoint', 'chain_state']);

/**
 * Walks that stop at their LIMIT: an index (or the rowid) read in the ORDER BY's order, every row
 * of it a match, so they read LIMIT rows whatever the size. Listed by hand, each with its reason.
 */
const BOUNDED_WALKS = new Map([
  // The chain's tip: the last row of the rowid order.
  ['SELECT position, root FROM event_hashes ORDER BY position DESC LIMIT 1', 'event_hashes'],
  // The keys to serve next: the first rows of a partial index that holds only keys with work waiting.
  ['SELECT key_id, processing, last_start, head_seq FROM queue_keys WHERE head_seq IS NOT NULL ORDER BY processing, last_start, head_seq LIMIT ?', 'queue_keys'],
]);

const seen = new Map<Database.Database, Set<string>>();
const realPrepare = Database.prototype.prepare;
Database.prototype.prepare = function (this: Database.Database, sql: string) {
  let texts = seen.get(this);
  if (!texts) seen.set(this, (texts = new Set()));
  texts.add(sql);
  return realPrepare.call(this, sql);
} as typeof Database.prototype.prepare;

/** NULL for every parameter: the plan depends on the statement, not the values. */
function nulls(sql: string): unknown[] {
  const named = [...new Set(sql.match(/[@$:][A-Za-z_]\w*/g) ?? [])];
  if (named.length > 0) return [Object.fromEntries(named.map((n) => [n.slice(1), null]))];
  return Array.from({ length: (sql.replace(/'[^']*'/g, '').match(/\?/g) ?? []).length }, () => null);
}

test('every statement run while serving, queueing and sweeping reads through an index', async (t) => {
  const h = await startHarness(t, { engine: { version: 'test/1', analyze: async () => sampleResult }, webhooks: true, env: { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WEBHOOK_RETRY_SCALE: '0.001' } });
  const a = await h.createKey({ partnerName: 'A', limit: 50 });
  const b = await h.createKey({ partnerName: 'B' });
  const hook = await h.request('POST', '/v1/webhook-endpoints', { key: b.apiKey, body: { url: 'http://127.0.0.1:9/hook', events: ['job.completed'] } });
  assert.equal(hook.status, 201, hook.text);
  const ids: string[] = [];
  for (const key of [a.apiKey, a.apiKey, b.apiKey, a.apiKey]) {
    const handle = await h.upload(key);
    const res = await h.request('POST', '/v1/jobs', { key, body: { upload_handle: handle, exercise_id: 'squat' }, headers: { 'idempotency-key': `k-${ids.length}` } });
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.job_id);
    await h.request('GET', `/v1/uploads/${handle}`, { key });
  }
  const cancel = await h.request('POST', `/v1/jobs/${ids[3]}/cancel`, { key: a.apiKey });
  assert.ok([200, 409].includes(cancel.status), cancel.text);
  await h.request('POST', '/v1/uploads', { key: a.apiKey });
  const deadline = Date.now() + 30_000;
  for (const id of ids.slice(0, 3)) {
    for (;;) {
      const key = id === ids[2] ? b.apiKey : a.apiKey;
      const res = await h.request('GET', `/v1/jobs/${id}`, { key });
      if (res.body.status === 'completed') break;
      assert.ok(Date.now() < deadline, `job ${id} did not complete`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  for (const key of [a.apiKey, b.apiKey]) {
    await h.request('GET', '/v1/identity', { key });
    await h.request('GET', '/v1/jobs', { key });
    await h.request('GET', '/v1/jobs?status=completed&limit=1', { key });
    await h.request('GET', '/v1/webhook-endpoints', { key });
    await h.request('GET', '/v1/exercises', { key });
  }
  await h.request('GET', `/v1/jobs/${ids[0]}/pose`, { key: a.apiKey });
  await h.request('GET', '/v1/identity', { key: 'rc_live_not_a_key' });
  await sweepOnce(h.svc);
  await purgeOnce(h.svc);
  await h.svc.metrics.registry.metrics();
  await h.request('DELETE', `/v1/webhook-endpoints/${hook.body.endpoint_id ?? hook.body.id}`, { key: b.apiKey });

  const scans: string[] = [];
  let checked = 0;
  for (const [db, texts] of seen) {
    if (!db.open) continue;
    for (const sql of texts) {
      if (/sqlite_master|pragma_|^\s*(CREATE|PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|EXPLAIN)\b/i.test(sql)) continue;
      const explain = realPrepare.call(db, `EXPLAIN QUERY PLAN ${sql}`) as Database.Statement<unknown[]>;
      const plan = explain.all(...nulls(sql)) as { detail: string }[];
      checked++;
      for (const { detail } of plan) {
        const table = /^SCAN (\w+)/.exec(detail)?.[1];
        const bounded = BOUNDED_WALKS.get(sql.replace(/\s+/g, ' ').trim()) === table && !plan.some((p) => p.detail.includes('TEMP B-TREE'));
        if (table && table !== 'CONSTANT' && !FIXED_SIZE.has(table) && !bounded) scans.push(`${detail}  <-  ${sql.replace(/\s+/g, ' ').trim()}`);
      }
    }
  }
  assert.ok(checked > 20, `only ${checked} statements recorded`);
  assert.deepEqual(scans, [], `statements that scan a table:\n${scans.join('\n')}`);
});
