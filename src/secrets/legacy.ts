// Ledgers written before issue 17 carry webhook secrets in plain text, in the stored form of their
// schema v2 WebhookEndpointRegistered events. A hash-chained, append-only ledger cannot drop them,
// so the story is (README "Webhook secrets"):
// - the v3 upcaster lifts such an event to the current shape: a key id (legacySecretKeyId) and a
//   fingerprint, no secret, so nothing that reads events (read models, fold, `--upcast` exports)
//   sees it again;
// - the first time a delivery needs one, importLegacySecret seals it into the vault under that key
//   id (read from the stored form of the registration, in the key's own stream), so deliveries keep
//   their signatures; an endpoint already removed never needs it;
// - the read models of an older release held the secret in a column: dropSecretColumn rewrites
//   that table without it and vacuums the file;
// - the plain text stays in the ledger file, its backups and stored-form exports: treat those
//   secrets as exposed and rotate them (POST /v1/webhook-endpoints/{id}/rotate-secret).
import type Database from 'better-sqlite3';
import { fingerprintOf, type SecretVault } from './vault.js';

/** A legacy endpoint's key id: derived, so the upcaster and the import agree without a lookup. */
export const legacySecretKeyId = (endpointId: string) => `wk_legacy_${endpointId}`;

/**
 * The plain secret of a legacy endpoint, sealed into the vault under its legacy key id the first
 * time it is needed (the dispatcher signing a delivery). Read from the stored form of the endpoint's
 * v2 registration in its key's stream (an index seek on the stream, never a walk of the ledger).
 * `ledger` is the SQLite event store's database; other stores hold no pre-vault events.
 */
export function importLegacySecret(ledger: Database.Database, vault: SecretVault, keyId: string, endpointId: string, now: string): string | undefined {
  const rows = ledger
    .prepare<[string], { type: string; data: string }>('SELECT type, data FROM events WHERE stream = ? ORDER BY revision')
    .all(`ledger-${keyId}`);
  for (const { type, data } of rows) {
    if (type !== 'WebhookEndpointRegistered') continue;
    const d = JSON.parse(data) as { endpointId?: string; secret?: unknown };
    if (d.endpointId !== endpointId || typeof d.secret !== 'string') continue;
    vault.put(d.secret, now, legacySecretKeyId(endpointId));
    return d.secret;
  }
  return undefined;
}

/**
 * Read models written before issue 17 kept the secret in webhook_endpoints.secret. The table is
 * rebuilt without it (key ids and fingerprints derived as the upcaster does) and the file vacuumed,
 * so the old pages are gone from it. Returns the secrets it found, for the vault import.
 */
export function dropSecretColumn(db: Database.Database): { endpointId: string; secret: string }[] {
  const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('webhook_endpoints')").all().map((c) => c.name);
  if (!columns.includes('secret')) return [];
  const rows = db.prepare<[], { endpoint_id: string; secret: string }>('SELECT endpoint_id, secret FROM webhook_endpoints').all();
  db.transaction(() => {
    db.exec('ALTER TABLE webhook_endpoints ADD COLUMN secret_key_id TEXT');
    db.exec('ALTER TABLE webhook_endpoints ADD COLUMN secret_fingerprint TEXT');
    const set = db.prepare('UPDATE webhook_endpoints SET secret_key_id = ?, secret_fingerprint = ? WHERE endpoint_id = ?');
    for (const r of rows) set.run(legacySecretKeyId(r.endpoint_id), fingerprintOf(r.secret), r.endpoint_id);
    db.exec('ALTER TABLE webhook_endpoints DROP COLUMN secret');
  })();
  db.pragma('secure_delete = ON');
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  return rows.map((r) => ({ endpointId: r.endpoint_id, secret: r.secret }));
}
