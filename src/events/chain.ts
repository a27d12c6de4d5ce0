// Tamper evidence: every event's hash chains it to the previous event of its stream, and a running
// root chains every event hash in global order, so a digest {position, root} taken at any time
// proves the whole prefix up to that position (README "Tamper evidence" is the auditor's spec; the
// independent re-implementation in scripts/verify-ledger-export.mjs must agree with this file).
//
//   encoding(e)  = UTF-8 of the RFC 8785 (JCS) canonical JSON of
//                  {"data","recordedAt","revision","schemaVersion","stream","type"} as stored
//   hash(e)      = SHA-256(hash(previous event of the stream) || encoding(e)); 32 zero bytes before revision 0
//   root(n)      = SHA-256(root(n-1) || hash(n-th event in global order)); root(0) = 32 zero bytes
import { createHash } from 'node:crypto';

/** The hash "before" revision 0 of every stream, and the root of an empty ledger. */
export const GENESIS: Buffer = Buffer.alloc(32);

/** The fields the hash covers, as stored (before upcasting: an upcaster never changes a hash). */
export interface Hashable {
  stream: string;
  revision: number;
  type: string;
  schemaVersion: number;
  recordedAt: string;
  data: unknown;
}

/**
 * RFC 8785 canonical JSON of a JSON value: object keys sorted by UTF-16 code units, no whitespace,
 * strings and numbers as ECMAScript's JSON.stringify writes them. Values JSON.stringify would drop
 * (undefined, functions) are dropped the same way, so the hash of an event about to be stored equals
 * the hash of the same event parsed back from its stored text.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += (i === 0 ? '' : ',') + (v === undefined || typeof v === 'function' || typeof v === 'symbol' ? 'null' : canonicalJson(v));
    }
    return `${out}]`;
  }
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return canonicalJson(withJson.toJSON());
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Most objects are built with a fixed key order: sort only when it is not already sorted.
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      keys.sort();
      break;
    }
  }
  let out = '{';
  for (const key of keys) {
    const v = record[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    out += `${out.length === 1 ? '' : ','}${quoted(key)}:${canonicalJson(v)}`;
  }
  return `${out}}`;
}

/** Object keys repeat across events: their JSON form is computed once. */
const quotedKeys = new Map<string, string>();
function quoted(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    q = JSON.stringify(key);
    if (quotedKeys.size < 10_000) quotedKeys.set(key, q);
  }
  return q;
}

/** The canonical encoding of an event, given its data's canonical JSON: the envelope's keys are already in sorted order. */
export function encodeEvent(e: Omit<Hashable, 'data'>, canonicalData: string): string {
  return `{"data":${canonicalData},"recordedAt":${JSON.stringify(e.recordedAt)},"revision":${e.revision},"schemaVersion":${e.schemaVersion},"stream":${JSON.stringify(e.stream)},"type":${JSON.stringify(e.type)}}`;
}

export function eventHash(previous: Buffer, e: Hashable): Buffer {
  return eventHashOfText(previous, e, canonicalJson(e.data));
}

/**
 * The hash, given the data's canonical JSON text. New events are stored as that text, so checking
 * them needs no parse: if the hash over the stored text matches, the text is the canonical form
 * that was hashed (SHA-256 has no known collisions); otherwise the caller canonicalizes and retries
 * (events stored before the chain existed are plain JSON.stringify output).
 */
export function eventHashOfText(previous: Buffer, e: Omit<Hashable, 'data'>, canonicalData: string): Buffer {
  return createHash('sha256').update(previous).update(encodeEvent(e, canonicalData), 'utf8').digest();
}

export function nextRoot(root: Buffer, hash: Buffer): Buffer {
  return createHash('sha256').update(root).update(hash).digest();
}

/** One event as stored (data is the stored JSON text) and/or the hash stored for it, as `audit verify` reads them. */
export interface CheckItem {
  position: number;
  event?: { stream: string; revision: number; type: string; schemaVersion: number; recordedAt: string; data: string };
  /** What was stored at append time; `root` only where the store keeps running roots (SQLite). */
  stored?: { stream: string; revision: number; hash: Buffer; root?: Buffer };
}

/**
 * The root after the last item, from the stored hashes (recomputed where an event has none): the
 * digest of a store that keeps no running roots (KurrentDB).
 */
export async function rootOf(items: AsyncIterable<CheckItem>): Promise<{ position: number; root: string }> {
  const heads = new Map<string, Buffer>();
  let root = GENESIS;
  let position = 0;
  for await (const { position: p, event: e, stored } of items) {
    if (!e) continue;
    const hash = stored?.hash ?? hashStored(heads.get(e.stream) ?? GENESIS, e);
    heads.set(e.stream, hash);
    root = nextRoot(root, hash);
    position = p;
  }
  return { position, root: root.toString('hex') };
}

/** The hash of an event as stored (its data as stored JSON text), by the fast path when the text is canonical. */
export function hashStored(previous: Buffer, e: NonNullable<CheckItem['event']>, expected?: Buffer): Buffer {
  if (expected) {
    const fast = eventHashOfText(previous, e, e.data);
    if (fast.equals(expected)) return fast;
  }
  return eventHash(previous, { ...e, data: JSON.parse(e.data) });
}

/** What `ledger digest` prints and `audit verify --digest` checks: the root after the event at `position`. */
export interface Digest {
  position: number;
  root: string;
  at: string;
}

/** Parses a digest an auditor kept; throws a message naming what is wrong. */
export function parseDigest(text: string): Omit<Digest, 'at'> & { at?: string } {
  let d: unknown;
  try {
    d = JSON.parse(text);
  } catch {
    throw new Error('the digest is not JSON (expected {"position","root","at"} as `ledger digest` prints it)');
  }
  const { position, root, at } = (d ?? {}) as Record<string, unknown>;
  if (!Number.isSafeInteger(position) || (position as number) < 0) throw new Error('the digest has no valid "position"');
  if (typeof root !== 'string' || !/^[0-9a-f]{64}$/.test(root)) throw new Error('the digest has no valid "root" (64 hex digits)');
  return { position: position as number, root, at: typeof at === 'string' ? at : undefined };
}
