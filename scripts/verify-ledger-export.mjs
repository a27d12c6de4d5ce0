#!/usr/bin/env node
// Checks a ledger export offline, with nothing but Node's own crypto: written to be read by an
// auditor in one sitting and trusted without the service's code (the README's "Tamper evidence"
// section is the specification it implements).
//
//   node scripts/verify-ledger-export.mjs EXPORT.ndjson [--all] [--digest DIGEST.json]
//
// EXPORT.ndjson comes from `npm run -s admin -- events export KEY_ID` (one key) or `events export
// --all` (the whole ledger). For every stream it checks that revisions run 0, 1, 2, ... up to the
// stream's head, and that every hash is SHA-256(previous hash || canonical encoding of the event).
// With --all (or a digest, which needs the whole ledger) it also recomputes the running root over
// all streams and checks it against each line's root and the digest's root at the digest's position.
// Exit 0: everything verifies. Exit 1: the first line, stream and revision that do not, and why.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const ZERO = Buffer.alloc(32);
const sha256 = (a, b) => createHash('sha256').update(a).update(b).digest();

// RFC 8785 (JCS): object keys sorted by UTF-16 code units, no whitespace, JSON.stringify's strings and numbers.
function canonical(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
}

const eventHash = (previous, e) =>
  sha256(previous, Buffer.from(canonical({ data: e.data, recordedAt: e.recordedAt, revision: e.revision, schemaVersion: e.schemaVersion, stream: e.stream, type: e.type }), 'utf8'));

const args = process.argv.slice(2);
const file = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--digest');
const digestAt = args.indexOf('--digest');
// A digest file: one JSON value (a backup's pretty-printed backup.json) or digests one per line (the last is used).
const digestOf = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return JSON.parse(text.trim().split('\n').pop());
  }
};
const digest = digestAt >= 0 ? digestOf(readFileSync(args[digestAt + 1], 'utf8')) : undefined;
const wholeLedger = args.includes('--all') || digest !== undefined;
if (!file) {
  console.error('usage: node scripts/verify-ledger-export.mjs EXPORT.ndjson [--all] [--digest DIGEST.json]');
  process.exit(2);
}

const streams = new Map(); // stream -> { revision, hash, head } of the last line seen
let root = ZERO;
let lastPosition = -Infinity;
let events = 0;
const fail = (where, why) => {
  console.error(`export does NOT verify: ${where}: ${why}`);
  process.exit(1);
};

const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
for (const [i, line] of lines.entries()) {
  let e;
  try {
    e = JSON.parse(line);
  } catch {
    fail(`line ${i + 1}`, 'not valid JSON');
  }
  const where = `line ${i + 1}, ${e.stream} revision ${e.revision} (position ${e.position})`;
  if (digest && lastPosition <= digest.position && e.position > digest.position) checkDigest(where);
  if (!(e.position > lastPosition)) fail(where, 'positions do not increase: lines were reordered or repeated');
  lastPosition = e.position;
  const s = streams.get(e.stream) ?? { revision: -1, hash: ZERO, head: e.head };
  if (e.revision !== s.revision + 1) fail(where, `expected revision ${s.revision + 1} of ${e.stream}: events are missing or reordered`);
  const hash = eventHash(s.hash, e);
  if (hash.toString('hex') !== e.hash) fail(where, 'the event does not match its hash: it was changed');
  streams.set(e.stream, { revision: e.revision, hash, head: s.head });
  root = sha256(root, hash);
  if (wholeLedger && e.root != null && root.toString('hex') !== e.root) fail(where, 'the running root differs: an event before it is missing, added or changed');
  events += 1;
}
for (const [stream, s] of streams) {
  if (s.head !== undefined && s.revision !== s.head) fail(stream, `the export ends at revision ${s.revision} but the stream's head is revision ${s.head}: it was truncated`);
}
if (digest && lastPosition <= digest.position) checkDigest('end of export');

function checkDigest(where) {
  if (lastPosition !== digest.position) fail(where, `no event at the digest's position ${digest.position}: events at or before it are missing`);
  if (root.toString('hex') !== digest.root) fail(where, `the root at position ${digest.position} is not the digest's: events at or before it were changed`);
  console.log(`digest at position ${digest.position}: matches`);
}

console.log(`export verified: ${events} events in ${streams.size} streams${wholeLedger ? `, root ${root.toString('hex')}` : ''}`);
