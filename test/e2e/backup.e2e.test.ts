// `admin backup DIR` under load (a real server process answering real submissions, cancels and
// reads while the CLI copies), then `admin restore DIR` into an empty DATA_DIR: `projections verify`
// and `audit verify` pass there, the jobs and usage are those of the ledger at the backup's
// position, the live jobs' videos came along, and the backup is a prefix of the original ledger
// (its digest verifies against the original after everything appended since).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { admin, startServer, type ServerProcess } from '../support/processes.js';
import { runAdmin } from '../cli/run.js';
import { removeDir } from '../support/remove-dir.js';

const LIMIT = 10_000;

async function submit(server: ServerProcess, apiKey: string): Promise<{ jobId: string; bytes: Buffer }> {
  const auth = { authorization: `Bearer ${apiKey}` };
  const spot = await (await fetch(`${server.base}/v1/uploads`, { method: 'POST', headers: auth })).json();
  const bytes = randomBytes(2048);
  const put = await fetch(spot.upload_url, { method: 'PUT', body: bytes, headers: { 'content-type': 'video/mp4' } });
  assert.equal(put.status < 300, true, `PUT ${put.status}`);
  const res = await fetch(`${server.base}/v1/jobs`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ upload_handle: spot.handle, exercise_id: 'squat' }) });
  assert.equal(res.status, 201, await res.clone().text());
  return { jobId: (await res.json()).job_id, bytes };
}

test('a backup taken under load restores into an empty DATA_DIR with the same jobs and usage; projections verify and audit verify pass', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rc-backup-'));
  t.after(() => removeDir(root));
  const dataDir = join(root, 'data');
  const env = { DATA_DIR: dataDir, WORKER_CONCURRENCY: '0', SPOTS_PER_WINDOW: '1000000', UNCLAIMED_BYTES_CAP: '1000000000' };
  const server = await startServer(env);
  t.after(() => server.stop());
  const key = admin(env, 'keys', 'create', '--partner-name', 'Backed up', '--limit', String(LIMIT)).json();
  const auth = { authorization: `Bearer ${key.api_key}` };

  const submitted: { jobId: string; bytes: Buffer; at: number }[] = [];
  let running = true;
  let failures = 0;
  const submitter = async () => {
    while (running) {
      try {
        const job = await submit(server, key.api_key);
        submitted.push({ ...job, at: performance.now() });
        // Every fourth job is cancelled: releases as well as holds in the copied history.
        if (submitted.length % 4 === 0) assert.equal((await fetch(`${server.base}/v1/jobs/${job.jobId}/cancel`, { method: 'POST', headers: auth })).status, 200);
      } catch (err) {
        failures += 1;
        throw err;
      }
    }
  };
  const reader = async () => {
    while (running) assert.equal((await fetch(`${server.base}/v1/identity`, { headers: auth })).status, 200);
  };
  const load = [submitter(), submitter(), submitter(), reader()];
  while (submitted.length < 12) await new Promise((r) => setTimeout(r, 50));

  const backupDir = join(root, 'backup');
  const startedAt = performance.now();
  const before = submitted.length;
  const taken = await runAdmin(dataDir, 'backup', backupDir);
  const during = submitted.filter((s) => s.at > startedAt).length;
  await new Promise((r) => setTimeout(r, 300));
  running = false;
  await Promise.all(load);
  assert.equal(taken.code, 0, taken.stderr);
  assert.equal(failures, 0, 'no request failed while the backup ran');
  const manifest = JSON.parse(taken.stdout);
  assert.ok(during > 0 || submitted.length > before, 'the API kept accepting submissions during the backup');

  // Restore refuses a DATA_DIR that is not empty, and changes nothing there.
  const refused = await runAdmin(dataDir, 'restore', backupDir);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /not empty/);

  const restored = join(root, 'restored');
  const res = await runAdmin(restored, 'restore', backupDir);
  assert.equal(res.code, 0, res.stderr);
  for (const args of [['projections', 'verify'], ['audit', 'verify'], ['audit', key.key_id]]) {
    const check = await runAdmin(restored, ...args);
    assert.equal(check.code, 0, `${args.join(' ')}: ${check.stdout}${check.stderr}`);
  }

  // The backup is a prefix of the original ledger: its digest verifies there after the later appends.
  const digestFile = join(root, 'digest.json');
  writeFileSync(digestFile, JSON.stringify({ position: manifest.position, root: manifest.root, at: manifest.createdAt }));
  await server.stop();
  const prefix = await runAdmin(dataDir, 'audit', 'verify', '--digest', digestFile);
  assert.equal(prefix.code, 0, prefix.stdout + prefix.stderr);

  // The jobs and usage are the original ledger's at the backup's position.
  const original = new Database(join(dataDir, 'ledger.db'), { readonly: true });
  const at = (type: string) => new Set(original.prepare<[string, number], { data: string }>('SELECT data FROM events WHERE type = ? AND position <= ?').all(type, manifest.position).map((r) => JSON.parse(r.data).jobId as string));
  const queued = at('JobQueued');
  const cancelled = at('JobCancelled');
  original.close();
  assert.ok(submitted.slice(0, before).every((s) => queued.has(s.jobId)), 'every job accepted before the backup began is in it');

  const copy = await startServer({ ...env, DATA_DIR: restored });
  t.after(() => copy.stop());
  const listed = await (await fetch(`${copy.base}/v1/jobs?limit=1000`, { headers: auth })).json();
  const statuses = Object.fromEntries(listed.jobs.map((j: { job_id: string; status: string }) => [j.job_id, j.status]));
  assert.deepEqual(Object.keys(statuses).sort(), [...queued].sort());
  for (const id of queued) assert.equal(statuses[id], cancelled.has(id) ? 'cancelled' : 'queued', id);
  const live = [...queued].filter((id) => !cancelled.has(id));
  const identity = await (await fetch(`${copy.base}/v1/identity`, { headers: auth })).json();
  assert.deepEqual(identity.usage, { limit: LIMIT, used: 0, remaining: LIMIT - live.length });

  // The live jobs' videos came along, byte for byte, so a worker on the restored data can run them.
  for (const id of live) {
    const file = join(restored, 'storage', 'frozen', id);
    assert.ok(existsSync(file), `video of live job ${id}`);
    assert.deepEqual(readFileSync(file), submitted.find((s) => s.jobId === id)!.bytes);
  }
  assert.equal((await fetch(`${copy.base}/v1/jobs/${live[0]}`, { headers: auth })).status, 200);
});

test('restore refuses a directory that is not a backup, and backup refuses a non-empty target', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rc-backup-'));
  t.after(() => removeDir(root));
  const data = join(root, 'data');
  admin({ DATA_DIR: data }, 'keys', 'create', '--partner-name', 'X');
  const notBackup = join(root, 'nothing');
  mkdirSync(notBackup);
  const res = await runAdmin(join(root, 'fresh'), 'restore', notBackup);
  assert.equal(res.code, 1);
  assert.match(res.stderr, /not a backup/);
  writeFileSync(join(notBackup, 'stray'), 'x');
  const full = await runAdmin(data, 'backup', notBackup);
  assert.equal(full.code, 1);
  assert.match(full.stderr, /not empty/);
});
