// The secrets vault: the only place that holds webhook signing secrets and the only code that can
// decrypt them (envelope encryption). Each secret gets its own random 256-bit data key; the secret
// is sealed with AES-256-GCM under that data key, and the data key is wrapped (AES-256-GCM) under
// the master key (master-key.ts), which lives outside this database. Both are bound to the key id
// as additional data, so a sealed value moved to another row does not open.
//
// The ledger records only the key id and a fingerprint (an event can never be erased from a
// hash-chained, append-only ledger); destroying a key id deletes its row, and with it the only copy
// of its data key: the secret is gone for good (crypto-shredding), wherever a copy of its sealed
// bytes might linger. secure_delete zeroes the freed pages and the rollback journal (no WAL) is
// deleted at each commit, so no file under DATA_DIR keeps the wrapped key after a destroy.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { MasterKey } from './master-key.js';

export const vaultPath = (dataDir: string) => join(dataDir, 'secrets.db');

const DDL = `
CREATE TABLE IF NOT EXISTS data_keys (
  key_id        TEXT PRIMARY KEY,
  master_key_id TEXT NOT NULL,
  wrapped_key   BLOB NOT NULL,
  sealed        BLOB NOT NULL,
  fingerprint   TEXT NOT NULL,
  created_at    TEXT NOT NULL
) STRICT;`;

const IV = 12;
const TAG = 16;

function seal(key: Buffer, plain: Buffer, aad: string): Buffer {
  const iv = randomBytes(IV);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]);
}

function open(key: Buffer, sealed: Buffer, aad: string): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV));
  d.setAAD(Buffer.from(aad));
  d.setAuthTag(sealed.subarray(IV, IV + TAG));
  return Buffer.concat([d.update(sealed.subarray(IV + TAG)), d.final()]);
}

/**
 * What the ledger may say about a secret: a one-way digest, domain-separated, of 128 bits. The
 * secret has 256 random bits, so the fingerprint cannot be turned back into it; it lets an auditor
 * or a partner check which secret was in force.
 */
export const fingerprintOf = (secret: string) =>
  `sha256:${createHash('sha256').update('rep-coach webhook secret\0').update(secret).digest('hex').slice(0, 32)}`;

export const newKeyId = () => `wk_${randomBytes(12).toString('base64url')}`;

export class VaultError extends Error {
  override name = 'VaultError';
}

export interface SecretVault {
  /** Seals a new secret under a new data key; returns what the ledger may record. */
  put(secret: string, now: string, keyId?: string): { keyId: string; fingerprint: string };
  /** The secret, or undefined when its key was destroyed (or never existed). */
  get(keyId: string): string | undefined;
  /** Crypto-shredding: deletes the data key. True if there was one. */
  destroy(keyId: string): boolean;
  /** Every key id held, oldest first (for reconciling against the ledger). */
  keys(): { keyId: string; createdAt: string }[];
  readonly masterKeyId: string;
  close(): void;
}

export function openVault(path: string, master: MasterKey, busyTimeoutMs = 5000): SecretVault {
  const db = new Database(path, { timeout: busyTimeoutMs });
  // No WAL: a -wal file would keep a destroyed row's old page until a checkpoint. A rollback journal
  // is removed at each commit, and secure_delete overwrites freed content with zeros.
  db.pragma('journal_mode = DELETE');
  db.pragma('secure_delete = ON');
  db.pragma('synchronous = FULL');
  db.exec(DDL);
  const insert = db.prepare('INSERT INTO data_keys (key_id, master_key_id, wrapped_key, sealed, fingerprint, created_at) VALUES (?, ?, ?, ?, ?, ?)');
  const select = db.prepare<[string], { master_key_id: string; wrapped_key: Buffer; sealed: Buffer }>(
    'SELECT master_key_id, wrapped_key, sealed FROM data_keys WHERE key_id = ?',
  );
  const remove = db.prepare('DELETE FROM data_keys WHERE key_id = ?');
  // Prepared when first used (the sweeper's reconcile, not the request path): it walks the vault.
  let list: Database.Statement<[], { key_id: string; created_at: string }> | undefined;
  const cache = new Map<string, string>();

  return {
    masterKeyId: master.id,
    put(secret, now, keyId = newKeyId()) {
      const dataKey = randomBytes(32);
      const fingerprint = fingerprintOf(secret);
      insert.run(keyId, master.id, seal(master.key, dataKey, keyId), seal(dataKey, Buffer.from(secret, 'utf8'), keyId), fingerprint, now);
      dataKey.fill(0);
      return { keyId, fingerprint };
    },
    get(keyId) {
      const hit = cache.get(keyId);
      if (hit !== undefined) {
        // Another process may have destroyed it: the row is the truth, the cache only spares the AES.
        if (select.get(keyId)) return hit;
        cache.delete(keyId);
        return undefined;
      }
      const row = select.get(keyId);
      if (!row) return undefined;
      if (row.master_key_id !== master.id) {
        throw new VaultError(`data key ${keyId} is wrapped by master key ${row.master_key_id}, but this process has ${master.id} (check SECRETS_KEY_FILE)`);
      }
      const dataKey = open(master.key, row.wrapped_key, keyId);
      const secret = open(dataKey, row.sealed, keyId).toString('utf8');
      dataKey.fill(0);
      if (cache.size > 1024) cache.clear();
      cache.set(keyId, secret);
      return secret;
    },
    destroy(keyId) {
      cache.delete(keyId);
      return remove.run(keyId).changes > 0;
    },
    keys: () => (list ??= db.prepare('SELECT key_id, created_at FROM data_keys ORDER BY created_at, key_id')).all().map((r) => ({ keyId: r.key_id, createdAt: r.created_at })),
    close: () => db.close(),
  };
}
