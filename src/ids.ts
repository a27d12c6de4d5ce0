// Identifiers and API-key hashing. Keys are stored only as SHA-256 hashes: they are 256-bit random
// secrets, so a fast hash is enough (no password stretching needed) and lookup stays O(1).
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const newJobId = (): string => randomUUID();
export const newHandle = (): string => `up_${randomBytes(16).toString('base64url')}`;
export const newKeyId = (): string => `key_${randomBytes(8).toString('hex')}`;
export const newPartnerId = (): string => `ptn_${randomBytes(8).toString('hex')}`;
export const newApiKey = (): string => `rk_${randomBytes(32).toString('base64url')}`;
export const hashApiKey = (apiKey: string): string => createHash('sha256').update(apiKey).digest('hex');

/** Handles are opaque but have a fixed alphabet; anything else cannot have been minted here. */
export const isWellFormedHandle = (s: string): boolean => /^up_[A-Za-z0-9_-]{22}$/.test(s);
