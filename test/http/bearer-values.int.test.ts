// Bearer values stay out of everything kept (issue 21, items 2 and 3): after a partner's usual day
// (mints with and without Idempotency-Key, replays, uploads, a job, a webhook endpoint) no upload
// URL signature, API key or webhook secret is in any file under DATA_DIR (ledger, WAL, SHM, read
// models, storage), in a backup or in `events export --all`; and every one of those files is
// private to the service's user. The idempotent replay is still the first answer byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { backup } from '../../src/backup.js';
import { main as admin } from '../../src/cli/admin.js';
import { loadConfig } from '../../src/config.js';
import { upcast } from '../../src/events/upcasters.js';
import { exposedEntries, makePrivate } from '../../src/private-files.js';
import { openService } from '../../src/service.js';
import { startHarness } from '../support/harness.js';
import { fixedEngine } from '../support/engines.js';
import { removeDir } from '../support/remove-dir.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []));
}

/** Pieces of a secret: the whole and 20-character windows, so a value split across pages still shows. */
const pieces = (secret: string) => [secret, ...[0, 20, 40].map((i) => secret.slice(i, i + 20)).filter((p) => p.length === 20)];

function leaks(haystack: Buffer, secrets: Record<string, string>): string[] {
  return Object.entries(secrets).flatMap(([name, value]) => (pieces(value).some((p) => haystack.includes(p)) ? [name] : []));
}

async function exportAll(dataDir: string): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const code = await admin(['events', 'export', '--all'], { out, err: new PassThrough() }, () => loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  assert.equal(code, 0);
  return Buffer.concat(chunks).toString('utf8');
}

test('no upload URL signature, API key or webhook secret in DATA_DIR, a backup or events export --all; all of it 0600/0700', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-bearer-'));
  const backupDir = join(mkdtempSync(join(tmpdir(), 'rc-bearer-backup-')), 'b');
  t.after(() => removeDir(dataDir));
  t.after(() => removeDir(join(backupDir, '..')));
  const h = await startHarness(t, { dataDir, engine: fixedEngine() });
  const { apiKey } = await h.createKey();
  const secrets: Record<string, string> = { 'API key': apiKey };

  for (let i = 0; i < 4; i++) {
    const headers = i % 2 === 0 ? { 'idempotency-key': `mint-${i}` } : undefined;
    const first = await h.request('POST', '/v1/uploads', { key: apiKey, headers });
    assert.equal(first.status, 201);
    const signature = new URL(first.body.upload_url).searchParams.get('signature')!;
    secrets[`upload_url signature ${i}`] = signature;
    // The signed query is the credential; the host and path (the handle) are not secret.
    secrets[`upload_url query ${i}`] = new URL(first.body.upload_url).search;
    if (headers) {
      const replay = await h.request('POST', '/v1/uploads', { key: apiKey, headers });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.text, first.text, 'the replay is the first answer byte for byte, signed URL included');
    }
    assert.equal((await fetch(first.body.upload_url, { method: 'PUT', body: `video ${i}` })).status, 200);
    if (i === 0) {
      const job = await h.request('POST', '/v1/jobs', { key: apiKey, body: { upload_handle: first.body.handle, exercise_id: 'squat' }, headers: { 'idempotency-key': 'job-0' } });
      assert.equal(job.status, 201);
    }
  }
  const files = filesUnder(dataDir);
  assert.ok(files.some((f) => f.endsWith('ledger.db-wal')), 'the WAL is searched too');
  for (const file of files) assert.deepEqual(leaks(readFileSync(file), secrets), [], file);
  assert.deepEqual(exposedEntries(dataDir), []);

  await backup(dataDir, backupDir);
  for (const file of filesUnder(backupDir)) assert.deepEqual(leaks(readFileSync(file), secrets), [], file);
  assert.deepEqual(exposedEntries(backupDir), []);

  const exported = await exportAll(dataDir);
  assert.match(exported, /IdempotentResponseRecorded/);
  assert.deepEqual(leaks(Buffer.from(exported), secrets), []);
});

test('a webhook secret, first or rotated, is in no DATA_DIR file, backup or export (sealed in the vault, issue 17)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-bearer-'));
  const backupDir = join(mkdtempSync(join(tmpdir(), 'rc-bearer-backup-')), 'b');
  t.after(() => removeDir(dataDir));
  t.after(() => removeDir(join(backupDir, '..')));
  const h = await startHarness(t, { dataDir, env: { WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true' } });
  const { apiKey } = await h.createKey();
  const endpoint = await h.request('POST', '/v1/webhook-endpoints', { key: apiKey, body: { url: 'http://127.0.0.1:9/hook' } });
  assert.equal(endpoint.status, 201);
  const rotated = await h.request('POST', `/v1/webhook-endpoints/${endpoint.body.id}/rotate-secret`, { key: apiKey });
  assert.equal(rotated.status, 200);
  const secrets: Record<string, string> = {};
  for (const [name, value] of [['first', String(endpoint.body.secret)], ['rotated', String(rotated.body.secret)]]) {
    secrets[`webhook secret ${name}`] = value!;
    secrets[`webhook secret ${name} (base64 part)`] = value!.replace(/^whsec_/, '');
  }
  for (const file of filesUnder(dataDir)) assert.deepEqual(leaks(readFileSync(file), secrets), [], file);
  await backup(dataDir, backupDir);
  for (const file of filesUnder(backupDir)) assert.deepEqual(leaks(readFileSync(file), secrets), [], file);
  assert.deepEqual(exposedEntries(dataDir), []);
  assert.deepEqual(exposedEntries(backupDir), []);
  assert.deepEqual(leaks(Buffer.from(await exportAll(dataDir)), secrets), []);
});

test('a ledger from before issue 21 (idempotency records holding the signed URL): read without it, replayed byte for byte', () => {
  const body = '{"handle":"up_abc","upload_url":"http://127.0.0.1:8081/uploads/up_abc?expires=1795613360&signature=' + 'e'.repeat(64) + '","expires_at":"2026-11-25T13:29:20.369Z"}';
  const lifted = upcast({ type: 'IdempotentResponseRecorded', schemaVersion: 2, data: { status: 201, body, at: '2026-11-25T13:14:20.369Z' } });
  assert.equal(String(lifted.data.body).includes('signature'), false);
  assert.deepEqual(lifted.data.rebuild, { kind: 'upload_url', handle: 'up_abc', expiresAt: '2026-11-25T13:29:20.369Z', signedAt: '2026-11-25T13:14:20.369Z', urlBase: 'http://127.0.0.1:8081/uploads/up_abc' });
  // An S3 URL gives its own signing time.
  const s3 = upcast({ type: 'IdempotentResponseRecorded', schemaVersion: 1, data: { status: 201, at: 'x', body: '{"handle":"up_s","upload_url":"https://b.s3.amazonaws.com/uploads/up_s?X-Amz-Date=20261125T131420Z&X-Amz-Signature=abc","expires_at":"2026-11-25T13:29:20.000Z"}' } });
  assert.equal((s3.data.rebuild as { signedAt: string }).signedAt, '2026-11-25T13:14:20.000Z');
  // Other answers are untouched.
  const job = upcast({ type: 'IdempotentResponseRecorded', schemaVersion: 2, data: { status: 201, body: '{"job_id":"j","status":"queued"}', at: 'x' } });
  assert.deepEqual(job.data, { status: 201, body: '{"job_id":"j","status":"queued"}', at: 'x' });
});

test('at start, entries an older version left readable by others are made private (0600 files, 0700 folders)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-modes-'));
  t.after(() => removeDir(dataDir));
  const first = await openService(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  await first.close();
  chmodSync(dataDir, 0o755);
  chmodSync(join(dataDir, 'ledger.db'), 0o644);
  writeFileSync(join(dataDir, 'storage', 'live', 'up_old'), 'bytes', { mode: 0o666 });
  chmodSync(join(dataDir, 'storage', 'live', 'up_old'), 0o666);
  assert.ok(exposedEntries(dataDir).length >= 3);
  const svc = await openService(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
  t.after(() => svc.close());
  assert.deepEqual(exposedEntries(dataDir), []);
  assert.equal(statSync(join(dataDir, 'ledger.db')).mode & 0o777, 0o600);
  assert.equal(statSync(dataDir).mode & 0o777, 0o700);
  assert.deepEqual(makePrivate(dataDir).fixed, [], 'nothing left to fix');
});
