// Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is "whsec_" + base64
// of random bytes; the signature is HMAC-SHA256 over "id.timestamp.body" keyed with those bytes,
// sent as "v1,<base64>" in webhook-signature beside webhook-id and webhook-timestamp.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** 32 random bytes (the specification asks for 24 to 64). */
export const newWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/**
 * One signature per secret, space-separated (Standard Webhooks lets a receiver accept any of them):
 * during a rotation's overlap the new secret's comes first, then the old one's.
 */
export function signedHeaders(secrets: string | readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  const all = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': all.map((secret) => signatureOf(secret, id, timestampSeconds, body)).join(' '),
  };
}
