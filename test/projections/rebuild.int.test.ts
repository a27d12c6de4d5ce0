// projections rebuild and verify: a rebuild gives exactly the live models, twice over; verify finds
// a tampered row; a rebuild under a load of reads loses no request and serves nothing stale after
// the swap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { paths } from '../../src/service.js';
import { applyBatch, openReadModels } from '../../src/projections/runner.js';
import { rebuild, RebuildBusyError } from '../../src/projections/rebuild.js';
import { verify } from '../../src/projections/verify.js';
import { writeLedger } from '../../bench/ledger-fixture.js';
import { startHarness } from '../support/harness.js';
import { runAdmin } from '../cli/run.js';
import { dump, makeHistory, scriptedEngine } from './support.js';
import { removeDir } from '../support/remove-dir.js';

const filesOf = (dataDir: string) => {
  const p = paths(dataDir);
  return { ledgerPath: p.ledger, readModelsPath: p.readModels };
};

test('a rebuild gives exactly the live read models, and the running service reads the new file', async (t) => {
  const h = await startHarness(t, { engine: scriptedEngine() });
  await makeHistory(h);
  const before = dump(h.svc.readDb());
  const report = await rebuild(filesOf(h.config.dataDir));
  assert.equal(realpathSync(paths(h.config.dataDir).readModels), report.file);
  assert.deepEqual(dump(h.svc.readDb()), before);
  assert.equal((await verify(filesOf(h.config.dataDir))).differenceCount, 0);
});

test('projections is idempotent if run twice: the same events applied again, or a second rebuild, change nothing', async (t) => {
  const h = await startHarness(t, { engine: scriptedEngine() });
  await makeHistory(h);
  const events = await h.svc.store.readAll(0, 10_000);
  const dir = mkdtempSync(join(tmpdir(), 'rc-idem-'));
  t.after(() => removeDir(dir));
  // Projected as the service projects beside its SQLite ledger: results left in it (job-results.ts).
  const db = openReadModels(join(dir, 'rm.db'), undefined, paths(h.config.dataDir).ledger);
  applyBatch(db, events);
  const once = dump(db);
  applyBatch(db, events);
  applyBatch(db, events.slice(3, 9));
  assert.deepEqual(dump(db), once);
  db.close();

  await rebuild(filesOf(h.config.dataDir));
  const first = dump(h.svc.readDb());
  await rebuild(filesOf(h.config.dataDir));
  assert.deepEqual(dump(h.svc.readDb()), first);
  assert.deepEqual(first, once);
});

test('verify detects a tampered, a deleted and an invented row (real CLI, exit 1), and passes after a rebuild', async (t) => {
  const h = await startHarness(t, { engine: scriptedEngine() });
  const { jobIds, keys } = await makeHistory(h);
  const clean = await runAdmin(h.config.dataDir, 'projections', 'verify');
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.match(clean.stdout, /identical to a replay/);

  const db = h.svc.readDb();
  db.prepare("UPDATE jobs SET status = 'completed' WHERE job_id = ?").run(jobIds[1]);
  db.prepare('DELETE FROM uploads WHERE job_id = ?').run(jobIds[0]);
  db.prepare("INSERT INTO keys (key_id, partner_id, partner_name, key_hash, status, created_at, updated_at) VALUES ('key_forged', 'p', 'Forged', 'x', 'active', 'a', 'a')").run();
  db.prepare('UPDATE keys SET used = used - 1 WHERE key_id = ?').run(keys[0]!.keyId);

  const res = await runAdmin(h.config.dataDir, 'projections', 'verify', '--format', 'json');
  assert.equal(res.code, 1, res.stderr);
  const report = JSON.parse(res.stdout);
  assert.equal(report.identical, false);
  const found = report.differences.map((d: any) => [d.table, d.key, d.kind, d.columns && Object.keys(d.columns)]);
  assert.deepEqual(found.sort(), [
    ['jobs', jobIds[1], 'changed', ['status']],
    ['keys', keys[0]!.keyId, 'changed', ['used']],
    ['keys', 'key_forged', 'unexpected', undefined],
    ['uploads', found.find((f: any) => f[0] === 'uploads')[1], 'missing', undefined],
  ].sort());
  assert.deepEqual(report.differences.find((d: any) => d.table === 'jobs').columns.status, ['completed', 'failed']);

  assert.equal((await runAdmin(h.config.dataDir, 'projections', 'rebuild')).code, 0);
  assert.equal((await runAdmin(h.config.dataDir, 'projections', 'verify')).code, 0);
});

test('a rebuild while a load of GETs and writes runs against the server: no failed request, no stale read after the swap', async (t) => {
  const h = await startHarness(t);
  const { apiKey, keyId } = await h.createKey({ limit: 1000, partnerName: 'Loaded' });
  const handle = await h.upload(apiKey);
  const job = (await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: handle, exercise_id: 'squat' } })).body.job_id;
  // Enough other keys' events that the rebuild takes a while, appended as another process would.
  writeLedger(paths(h.config.dataDir).ledger, { events: 60_000, keys: 200, seed: 7 });
  await h.svc.projector.catchUp();
  // A marker only the old file has: once a read shows the real name, the old file must never answer again.
  h.svc.readDb().prepare("UPDATE keys SET partner_name = 'STALE' WHERE key_id = ?").run(keyId);

  let failures: string[] = [];
  let staleAfterSwap = 0;
  let swapped = false;
  let reads = 0;
  let running = true;
  let limit = 1000;
  const reader = async () => {
    while (running) {
      const [identity, jobRes] = await Promise.all([
        h.request('GET', '/v1/identity', { key: apiKey }),
        h.request('GET', `/v1/jobs/${job}`, { key: apiKey }),
      ]);
      reads += 2;
      for (const r of [identity, jobRes]) if (r.status !== 200) failures.push(`${r.status} ${r.text}`);
      if (identity.body?.partner_name === 'Loaded') swapped = true;
      else if (swapped) staleAfterSwap += 1;
    }
  };
  const writer = async () => {
    // Read-your-writes across the swap: each acknowledged limit change is what the next GET shows.
    while (running) {
      limit += 1;
      const now = h.svc.clock().toISOString();
      await h.svc.ledger.handle(keyId, () => [{ type: 'LimitSet', data: { keyId, limit, at: now } }]);
      const seen = (await h.request('GET', '/v1/identity', { key: apiKey })).body?.usage?.limit;
      if (seen !== limit) failures.push(`limit ${limit} acknowledged, GET showed ${seen}`);
    }
  };
  const load = [reader(), reader(), reader(), writer()];
  const cli = await runAdmin(h.config.dataDir, 'projections', 'rebuild');
  await new Promise((r) => setTimeout(r, 300));
  running = false;
  await Promise.all(load);
  assert.equal(cli.code, 0, cli.stderr);
  assert.match(cli.stderr, /rebuild: \d+% /, 'plain progress lines when stderr is not a terminal');
  assert.ok(reads > 50, `only ${reads} reads ran during the rebuild`);
  assert.deepEqual(failures, []);
  assert.ok(swapped, 'the server never read the rebuilt file');
  assert.equal(staleAfterSwap, 0);
  const identity = await h.request('GET', '/v1/identity', { key: apiKey });
  assert.deepEqual([identity.body.partner_name, identity.body.usage.limit], ['Loaded', limit]);
  assert.equal((await verify(filesOf(h.config.dataDir))).differenceCount, 0);
});

test('a server idle since before a swap answers from the new file on its very next request, after a first and a later rebuild', async (t) => {
  // Servers notice a swap by the mark the rebuild commits to the file it swaps out (no stat per
  // read: projections/live.ts); its key cache (http/auth.ts) must not outlive the old file either.
  const h = await startHarness(t);
  const { apiKey, keyId } = await h.createKey({ partnerName: 'Real' });
  const name = async () => (await h.request('GET', '/v1/identity', { key: apiKey })).body.partner_name;
  for (let round = 0; round < 2; round++) {
    // A marker only the file in use has (round 0: the plain file from the start; round 1: a generation).
    h.svc.readDb().prepare("UPDATE keys SET partner_name = 'STALE' WHERE key_id = ?").run(keyId);
    assert.equal(await name(), 'STALE');
    assert.equal(await name(), 'STALE');
    const cli = await runAdmin(h.config.dataDir, 'projections', 'rebuild');
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(await name(), 'Real', `round ${round}: the next request reads the rebuilt file`);
  }
});

test('one rebuild at a time per DATA_DIR; a lock or files left by a crashed rebuild are cleaned up by the next one', async (t) => {
  const h = await startHarness(t);
  await h.createKey({ limit: 1 });
  const files = filesOf(h.config.dataDir);
  const lock = `${files.readModelsPath}.rebuild.lock`;
  writeFileSync(lock, String(process.pid)); // a live holder
  await assert.rejects(rebuild(files), RebuildBusyError);
  const cli = await runAdmin(h.config.dataDir, 'projections', 'rebuild');
  assert.equal(cli.code, 1);
  assert.match(cli.stderr, /another rebuild \(pid \d+\) is running/);

  writeFileSync(lock, '999999999'); // a holder that is gone
  const crashed = `${files.readModelsPath}.rebuild-20200101T000000Z-1`;
  writeFileSync(crashed, 'half a file');
  writeFileSync(`${crashed}-wal`, '');
  const report = await rebuild(files);
  assert.equal(existsSync(crashed) || existsSync(`${crashed}-wal`) || existsSync(lock), false);
  assert.equal(realpathSync(files.readModelsPath), report.file);
});
