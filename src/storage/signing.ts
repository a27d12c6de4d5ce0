// HMAC signatures for disk-driver upload URLs, bound to the handle and the spot's expiry, like
// Rails' ActiveStorage DiskService. The secret lives in DATA_DIR, created on first boot.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export function loadOrCreateSecret(path: string): Buffer {
  if (!existsSync(path)) {
    try {
      writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex');
}

export function sign(secret: Buffer, handle: string, expiresUnix: number): string {
  return createHmac('sha256', secret).update(`PUT\n${handle}\n${expiresUnix}`).digest('hex');
}

export function verify(secret: Buffer, handle: string, expiresUnix: number, signature: string): boolean {
  const expected = Buffer.from(sign(secret, handle, expiresUnix), 'hex');
  const given = Buffer.from(/^[0-9a-f]{64}$/.test(signature) ? signature : '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
