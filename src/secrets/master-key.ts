// The master key that wraps every data key of the secrets vault (vault.ts). It never enters the
// ledger, the read models or the vault's database. Either the operator provides it
// (SECRETS_KEY_FILE: 32 bytes, raw or as 64 hex digits or base64, e.g. from a secrets manager's
// mounted file) or the first start creates DATA_DIR/secrets.key with mode 0600, which
// `admin backup` copies beside the vault (a backup is then as sensitive as DATA_DIR itself).
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface MasterKey {
  /** `mk_` + 16 hex digits of SHA-256 of the key: names it in the vault without revealing it. */
  id: string;
  key: Buffer;
  /** Where it came from: the operator's file, or the one the first start created in DATA_DIR. */
  source: 'SECRETS_KEY_FILE' | 'DATA_DIR';
  path: string;
}

export class SecretsKeyError extends Error {
  override name = 'SecretsKeyError';
}

export const masterKeyPath = (dataDir: string) => join(dataDir, 'secrets.key');

export const masterKeyId = (key: Buffer) => `mk_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;

/** 32 raw bytes, or their hex or base64 text (whitespace around it ignored). */
export function parseMasterKey(bytes: Buffer, path: string): Buffer {
  if (bytes.length === 32) return bytes;
  const text = bytes.toString('utf8').trim();
  if (/^[0-9a-f]{64}$/i.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{42,44}={0,2}$/.test(text)) {
    const key = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
    if (key.length === 32) return key;
  }
  throw new SecretsKeyError(`${path} must hold a 32-byte key: 32 raw bytes, 64 hex digits or base64 (it holds ${bytes.length} bytes)`);
}

/**
 * SECRETS_KEY_FILE when set (it must exist: a missing operator key is a configuration error, never
 * silently replaced), else DATA_DIR/secrets.key, created on first use with O_EXCL and mode 0600 so
 * two processes starting at once agree on one key.
 */
export function loadMasterKey(dataDir: string, keyFile: string | undefined): MasterKey {
  if (keyFile) {
    if (!existsSync(keyFile)) throw new SecretsKeyError(`SECRETS_KEY_FILE ${keyFile} does not exist`);
    const key = parseMasterKey(readFileSync(keyFile), keyFile);
    return { id: masterKeyId(key), key, source: 'SECRETS_KEY_FILE', path: keyFile };
  }
  const path = masterKeyPath(dataDir);
  try {
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString('hex')}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // Another process may have created it a moment ago and not written it yet.
  for (let i = 0; ; i++) {
    const bytes = readFileSync(path);
    if (bytes.length > 0 || i >= 50) {
      const key = parseMasterKey(bytes, path);
      return { id: masterKeyId(key), key, source: 'DATA_DIR', path };
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
}
