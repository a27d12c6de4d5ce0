// Old events are never rewritten: they are lifted to the current shape as they are read.
// Each upcaster takes an event of version v and returns it at version v + 1.
import { amzDateOf, withoutUploadUrl } from '../idempotency/bearer.js';
import { CURRENT_SCHEMA_VERSION, retryableFailure } from './ledger.js';
import { fingerprintOf } from '../secrets/vault.js';
import { legacySecretKeyId } from '../secrets/legacy.js';

type Raw = { type: string; data: Record<string, unknown>; schemaVersion: number };
type Upcaster = (event: Raw) => Raw;

const upcasters: Record<number, Upcaster> = {
  // v2: JobFailed says whether the failure was transient (an auditor settling a disputed unit needs
  // it). v1 events carried only the error code, which is exactly what the rule reads.
  1: (e) => ({
    ...e,
    schemaVersion: 2,
    data: e.type === 'JobFailed' ? { ...e.data, retryable: retryableFailure(String(e.data.errorCode)) } : e.data,
  }),
  // v3: WebhookEndpointRegistered names its secret by a vault key id and a fingerprint instead of
  // carrying it. A v2 event's stored form still holds the secret (a hash-chained ledger cannot be
  // rewritten); its lifted form does not: the secret is moved into the vault under the endpoint's
  // legacy key id at boot (secrets/legacy.ts) and is read from there, never from the event.
  2: (e) => {
    if (e.type !== 'WebhookEndpointRegistered' || typeof e.data.secret !== 'string') return { ...e, schemaVersion: 3 };
    const { secret, ...rest } = e.data;
    return { ...e, schemaVersion: 3, data: { ...rest, secretKeyId: legacySecretKeyId(String(e.data.endpointId)), secretFingerprint: fingerprintOf(secret) } };
  },
};

export function upcast(event: Raw): Raw {
  let current = event;
  while (current.schemaVersion < CURRENT_SCHEMA_VERSION) {
    const step = upcasters[current.schemaVersion];
    if (!step) throw new Error(`no upcaster from schema version ${current.schemaVersion} of ${current.type}`);
    current = step(current);
  }
  return current.type === 'IdempotentResponseRecorded' ? withoutStoredUploadUrl(current) : current;
}

/**
 * Ledgers written before issue 21 kept POST /v1/uploads' answer whole, signed upload_url included.
 * Read, such a record takes today's shape (URL blanked, what re-signs it beside), whatever its
 * schema version, so a replay signs the URL afresh and nothing read hands the stored one on. The
 * old row itself is never rewritten (append-only, hash-chained): its URL expired 15 minutes after
 * it was minted and authorizes nothing since (README "Bearer values").
 */
function withoutStoredUploadUrl(e: Raw): Raw {
  if (e.data.rebuild !== undefined || typeof e.data.body !== 'string') return e;
  const lifted = withoutUploadUrl(e.data.body, ({ url, expiresAt }) => amzDateOf(url) ?? new Date(Date.parse(expiresAt) - 900_000).toISOString());
  return lifted.rebuild ? { ...e, data: { ...e.data, body: lifted.body, rebuild: lifted.rebuild } } : e;
}
