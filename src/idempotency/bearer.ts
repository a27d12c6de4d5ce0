// Bearer values never enter the ledger (DESIGN.md): the idempotency record of POST /v1/uploads keeps
// what rebuilds its answer (the handle, the expiry and the signing time), not the signed upload_url.
// At replay the URL is signed again from those and the signing key, so the replayed answer is the
// first one byte for byte (the disk driver's HMAC and S3's SigV4 are both deterministic given the
// signing time) and nothing in the ledger, a backup or an export authorizes a write.

/** What the stored answer lacks, and how to put it back. */
export interface UploadUrlRebuild {
  kind: 'upload_url';
  handle: string;
  expiresAt: string;
  /** When the URL was signed (SigV4 puts it in the URL; the disk driver's URL does not depend on it). */
  signedAt: string;
  /**
   * The URL without its query (no credential in it): the replay keeps the first answer's host and
   * path even on a node whose STORAGE_PUBLIC_URL differs, and takes only the signed query anew.
   */
  urlBase: string;
}

export type Rebuild = UploadUrlRebuild;

type Spot = { handle?: unknown; upload_url?: unknown; expires_at?: unknown };

function spotOf(body: string): Spot | undefined {
  if (!body.includes('"upload_url"')) return undefined;
  try {
    const parsed = JSON.parse(body) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Spot) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The answer as it may be stored: an upload spot's URL blanked (its place kept, so the replay puts it
 * back where it was), with what re-signs it. `signedAt` tells when the URL was signed.
 */
export function withoutUploadUrl(body: string, signedAt: (spot: { handle: string; expiresAt: string; url: string }) => string): { body: string; rebuild?: Rebuild } {
  const spot = spotOf(body);
  if (!spot || typeof spot.upload_url !== 'string' || spot.upload_url === '' || typeof spot.handle !== 'string' || typeof spot.expires_at !== 'string') return { body };
  const rebuild: UploadUrlRebuild = {
    kind: 'upload_url',
    handle: spot.handle,
    expiresAt: spot.expires_at,
    signedAt: signedAt({ handle: spot.handle, expiresAt: spot.expires_at, url: spot.upload_url }),
    urlBase: spot.upload_url.split('?')[0]!,
  };
  return { body: JSON.stringify({ ...spot, upload_url: '' }), rebuild };
}

/** The first answer again: the stored body with the URL signed anew in its place. */
export async function withUploadUrl(body: string, rebuild: Rebuild, sign: (handle: string, expiresAt: Date, signedAt: Date) => Promise<string>): Promise<string> {
  const spot = spotOf(body) ?? {};
  const fresh = await sign(rebuild.handle, new Date(rebuild.expiresAt), new Date(rebuild.signedAt));
  const query = fresh.indexOf('?');
  return JSON.stringify({ ...spot, upload_url: query < 0 ? fresh : rebuild.urlBase + fresh.slice(query) });
}

/** SigV4's X-Amz-Date (20260101T000000Z) as ISO 8601, when the URL carries one. */
export function amzDateOf(url: string): string | undefined {
  try {
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(new URL(url).searchParams.get('X-Amz-Date') ?? '');
    return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z` : undefined;
  } catch {
    return undefined;
  }
}
