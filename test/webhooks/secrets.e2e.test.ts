// Webhook signing secrets at rest (issue 17), driven from outside: the server as `npm start` runs
// it, the admin CLI, real uploads and the real engine (random bytes fail as job.failed). Deliveries
// verify with the `standardwebhooks` package before and after a rotation; every file under
// DATA_DIR (WAL and journals included), a backup and `events export --all` are searched for each
// secret in every encoding; deleting the endpoint destroys its data key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { until } from '../support/engines.js';
import { admin, startServer } from '../support/processes.js';
import { startReceiver } from '../support/receiver.js';

/** Every way a secret could be written down: as issued, its key's base64/base64url/hex, its raw bytes. */
function encodings(secret: string): Buffer[] {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  assert.equal(key.length, 32);
  return [
    Buffer.from(secret),
    Buffer.from(key.toString('base64')),
    Buffer.from(key.toString('base64').replace(/=+$/, '')),
    Buffer.from(key.toString('base64url')),
    Buffer.from(key.toString('hex')),
    Buffer.from(key.toString('hex').toUpperCase()),
    key,
  ];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((f) => join(dir, f)).filter((f) => statSync(f).isFile());
}

function assertNowhere(secret: string, where: { name: string; bytes: Buffer }[]) {
  for (const { name, bytes } of where) {
    for (const enc of encodings(secret)) assert.equal(bytes.indexOf(enc), -1, `${name} holds the secret (${enc.length} bytes)`);
  }
}

const filesOf = (dir: string) => filesUnder(dir).map((f) => ({ name: f, bytes: readFileSync(f) }));

test('webhook secrets: sealed outside the ledger, verified before and after a rotation, in no file, backup or export; deleting the endpoint shreds its key', { timeout: 240_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-secrets-'));
  const backupDir = join(mkdtempSync(join(tmpdir(), 'rc-secrets-backup-')), 'b');
  t.after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(join(backupDir, '..'), { recursive: true, force: true });
  });
  const env = { DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_HOSTS: 'true', WORKER_CONCURRENCY: '1', LOG_LEVEL: 'info' };
  const key = admin(env, 'keys', 'create', '--partner-name', 'Secret Keeper').json() as { api_key: string; key_id: string };
  const server = await startServer(env);
  t.after(() => server.stop('SIGKILL'));
  const receiver = await startReceiver(t);
  const auth = { authorization: `Bearer ${key.api_key}` };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.base + path, { method, headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const failedJob = async () => {
    const spot = await call('POST', '/v1/uploads');
    assert.equal((await fetch(spot.body.upload_url, { method: 'PUT', body: randomBytes(512), headers: { 'content-type': 'video/mp4' } })).status, 200);
    const job = await call('POST', '/v1/jobs', { upload_handle: spot.body.handle, exercise_id: 'squat' });
    assert.equal(job.status, 201);
    return job.body.job_id as string;
  };
  const deliveryOf = (jobId: string) => until(async () => receiver.received.find((r) => r.status === 200 && JSON.parse(r.body).data.job_id === jobId), 60_000);

  // The start log says where the master key came from; the first start made it 0600 in DATA_DIR.
  await until(async () => (/secrets vault open/.test(server.output()) ? true : undefined));
  assert.match(server.output(), /"master_key":"DATA_DIR"/);
  assert.equal(statSync(join(dataDir, 'secrets.key')).mode & 0o777, 0o600);

  const created = await call('POST', '/v1/webhook-endpoints', { url: receiver.url, events: ['job.failed'] });
  assert.equal(created.status, 201);
  const first = created.body.secret as string;
  assert.match(first, /^whsec_[A-Za-z0-9+/]+=*$/);
  receiver.secret = first;

  const before = await deliveryOf(await failedJob());
  assert.ok(before.verified.ok, 'verified with the secret the endpoint was created with');
  assert.equal(String(before.headers['webhook-signature']).split(' ').length, 1);

  const rotated = await call('POST', `/v1/webhook-endpoints/${created.body.id}/rotate-secret`);
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  const second = rotated.body.secret as string;
  assert.match(second, /^whsec_/);
  assert.notEqual(second, first);
  assert.equal(rotated.body.id, created.body.id);
  const overlap = Date.parse(rotated.body.previous_secret_expires_at) - Date.parse(rotated.body.rotated_at);
  assert.equal(overlap, 24 * 3600 * 1000, 'the previous secret signs for 24 hours');
  assert.equal((await call('POST', '/v1/webhook-endpoints/we_nope/rotate-secret')).status, 404);

  // During the overlap a receiver holding either secret verifies the delivery.
  receiver.secret = second;
  const during = await deliveryOf(await failedJob());
  assert.ok(during.verified.ok, 'verified with the new secret');
  assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2, 'two signatures during the overlap');
  new Webhook(first).verify(during.body, during.headers as Record<string, string>);
  assert.throws(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(during.body, during.headers as Record<string, string>), 'a wrong secret does not verify');

  // Nowhere at rest: DATA_DIR (ledger, its WAL, read models, vault, storage), a backup, the export.
  const exported = admin(env, 'events', 'export', '--all');
  assert.equal(exported.status, 0, exported.stderr);
  assert.match(exported.stdout, /WebhookEndpointRegistered/);
  assert.match(exported.stdout, /"secretFingerprint":"sha256:[0-9a-f]{32}"/);
  assert.match(exported.stdout, /WebhookSecretRotated/);
  const backedUp = admin(env, 'backup', backupDir);
  assert.equal(backedUp.status, 0, backedUp.stderr);
  assert.ok(filesUnder(backupDir).some((f) => f.endsWith('secrets.db')) && filesUnder(backupDir).some((f) => f.endsWith('secrets.key')), 'the backup holds the vault and its key');
  const places = [...filesOf(dataDir), ...filesOf(backupDir), { name: 'events export --all', bytes: Buffer.from(exported.stdout) }];
  assert.ok(places.some((p) => p.name.endsWith('ledger.db-wal')), 'the WAL is among the files searched');
  for (const secret of [first, second]) assertNowhere(secret, places);

  // Deleting the endpoint destroys its data keys (both): the vault holds no row for them.
  const vaultKeys = () => {
    const db = new Database(join(dataDir, 'secrets.db'), { readonly: true });
    try {
      return (db.prepare('SELECT key_id FROM data_keys').all() as { key_id: string }[]).map((r) => r.key_id).filter((k) => k.startsWith('wk_'));
    } finally {
      db.close();
    }
  };
  assert.equal(vaultKeys().length, 2, 'the current and the previous secret are sealed');
  assert.equal((await call('DELETE', `/v1/webhook-endpoints/${created.body.id}`)).status, 204);
  assert.deepEqual(vaultKeys(), [], 'crypto-shredded');
  for (const secret of [first, second]) assertNowhere(secret, filesOf(dataDir));
});
