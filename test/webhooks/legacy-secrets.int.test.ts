// A DATA_DIR from before issue 17: its ledger's (schema v2) WebhookEndpointRegistered events and its
// read models carry the signing secret in plain text. Opening the service upcasts the events to a
// key id and a fingerprint and rewrites the read-model table without it; the first delivery seals
// the secret into the vault (so deliveries keep verifying with the secret the partner holds); and a rotation then moves
// the endpoint to a secret that was never in the ledger. The rotation's overlap ends after 24 h:
// from then on one signature, by the new secret only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { openReadModels } from '../../src/projections/runner.js';
import { endpointById } from '../../src/projections/webhooks.js';
import { legacySecretKeyId } from '../../src/secrets/legacy.js';
import { paths } from '../../src/service.js';
import { signingSecrets } from '../../src/webhooks/dispatcher.js';
import { rotateSecret } from '../../src/webhooks/endpoints.js';
import { signedHeaders } from '../../src/webhooks/signing.js';
import { newWebhookSecret } from '../../src/webhooks/signing.js';
import { startHarness } from '../support/harness.js';
import { removeDir } from '../support/remove-dir.js';

test('a pre-vault DATA_DIR: plain secrets move into the vault and out of the read models; rotation, then one signature after 24 h', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-legacy-secrets-'));
  t.after(() => removeDir(dir));
  const files = paths(dir);
  const legacy = newWebhookSecret();
  const at = '2026-01-01T00:00:00.000Z';

  // The old release's ledger (v2 events) and read models (a secret column, projected).
  const store = new SqliteEventStore(files.ledger);
  const insert = store.db.prepare("INSERT INTO events (stream, revision, type, schema_version, data, recorded_at) VALUES ('ledger-k_old', ?, ?, 2, ?, ?)");
  insert.run(0, 'KeyIssued', JSON.stringify({ keyId: 'k_old', partnerId: 'p', partnerName: 'Veteran', keyHash: 'h', limit: null, at }), at);
  insert.run(1, 'WebhookEndpointRegistered', JSON.stringify({ endpointId: 'we_old', url: 'https://example.com/h', events: ['job.failed'], secret: legacy, at }), at);
  await store.close();
  const old = openReadModels(files.readModels);
  old.exec(`DROP TABLE webhook_endpoints;
    CREATE TABLE webhook_endpoints (endpoint_id TEXT PRIMARY KEY, key_id TEXT NOT NULL, url TEXT NOT NULL, events TEXT NOT NULL,
      secret TEXT NOT NULL, created_at TEXT NOT NULL, removed_at TEXT, seq INTEGER NOT NULL);`);
  old.prepare("INSERT INTO webhook_endpoints VALUES ('we_old', 'k_old', 'https://example.com/h', '[\"job.failed\"]', ?, ?, NULL, 2)").run(legacy, at);
  old.prepare('UPDATE checkpoint SET position = 2').run();
  old.close();
  assert.ok(readFileSync(files.readModels).includes(legacy) || readFileSync(`${files.readModels}-wal`).includes(legacy), 'the old read models did hold it');

  let now = Date.parse('2026-03-01T00:00:00.000Z');
  const h = await startHarness(t, { dataDir: dir, clock: () => new Date(now) });
  const row = endpointById(h.svc.readDb(), 'we_old')!;
  assert.equal(row.secret_key_id, legacySecretKeyId('we_old'));
  assert.match(row.secret_fingerprint, /^sha256:[0-9a-f]{32}$/);
  assert.equal(h.svc.vault.get(row.secret_key_id), undefined, 'not in the vault before a delivery needs it');
  assert.deepEqual(signingSecrets(h.svc, row), [legacy], 'the first delivery signs with the secret the partner holds');
  assert.equal(h.svc.vault.get(row.secret_key_id), legacy, 'sealed into the vault from then on');
  for (const f of [files.readModels, `${files.readModels}-wal`]) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(f);
    } catch {
      continue;
    }
    assert.equal(bytes.indexOf(legacy), -1, `${f} no longer holds the secret`);
  }
  const lifted = (await h.svc.store.readStream('ledger-k_old', 0)).find((e) => e.type === 'WebhookEndpointRegistered')!;
  assert.equal('secret' in (lifted.data as object), false, 'the upcast event carries no secret');

  const rotated = await rotateSecret(h.svc, 'k_old', 'we_old');
  const during = endpointById(h.svc.readDb(), 'we_old')!;
  assert.deepEqual(signingSecrets(h.svc, during), [rotated.secret, legacy]);
  const body = '{"type":"job.failed"}';
  const headers = signedHeaders(signingSecrets(h.svc, during), 'msg_1', Math.floor(Date.now() / 1000), body);
  new Webhook(legacy).verify(body, headers);
  new Webhook(rotated.secret).verify(body, headers);

  now += 24 * 3600 * 1000 + 1000; // the overlap is over
  const after = signingSecrets(h.svc, during);
  assert.deepEqual(after, [rotated.secret]);
  const single = signedHeaders(after, 'msg_2', Math.floor(Date.now() / 1000), body);
  assert.equal(single['webhook-signature']!.split(' ').length, 1);
  new Webhook(rotated.secret).verify(body, single);
  assert.throws(() => new Webhook(legacy).verify(body, single), 'the old secret no longer verifies');
});
