// Tamper evidence, driven as an auditor would: edits made to the ledger file behind the service's
// back (a flipped byte, a deleted event, two events reordered, a truncated stream) are caught by
// `audit verify` (naming the stream and revision) and by the offline verifier on an export; edits
// to an export file are caught offline; a digest taken before more work still verifies after it and
// catches a rewrite that recomputed every stored hash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { main } from '../../src/cli/admin.js';
import { loadConfig } from '../../src/config.js';
import { SqliteEventStore } from '../../src/events/store/sqlite.js';
import { paths } from '../../src/service.js';
import { writeLedger } from '../../bench/ledger-fixture.js';
import { repoRoot } from '../support/processes.js';
import { memoryStream } from '../cli/run.js';
import { removeDir } from '../support/remove-dir.js';

const VERIFIER = join(repoRoot, 'scripts/verify-ledger-export.mjs');

async function admin(dir: string, ...argv: string[]) {
  const out = memoryStream();
  const err = memoryStream();
  const code = await main(argv, { out: out.stream, err: err.stream }, () => loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  return { code, out: out.text(), err: err.text() };
}

function offline(exportFile: string, ...args: string[]) {
  const res = spawnSync(process.execPath, [VERIFIER, exportFile, ...args], { encoding: 'utf8' });
  return { code: res.status, text: res.stdout + res.stderr };
}

/**
 * A ledger written before the chain existed (events only, as bench/ledger-fixture writes it), then
 * chained by the one-time step, then more events appended by the store itself.
 */
async function makeLedger(root: string): Promise<string> {
  const dir = join(root, 'base');
  mkdirSync(dir, { recursive: true });
  const ledger = paths(dir).ledger;
  writeLedger(ledger, { events: 400, keys: 4 });
  const store = new SqliteEventStore(ledger);
  await store.completeChain();
  for (let i = 0; i < 3; i++) {
    const revision = (await store.readStream('ledger-key_1')).at(-1)!.revision;
    await store.append('ledger-key_1', [{ type: 'KeySuspended', data: { keyId: 'key_1', at: new Date().toISOString() } }], revision);
  }
  await store.close();
  return dir;
}

/** A copy of the base ledger with `edit` applied straight to the file, as someone with disk access would. */
function tampered(root: string, base: string, name: string, edit: (db: Database.Database) => void): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(paths(base).ledger, paths(dir).ledger);
  const db = new Database(paths(dir).ledger);
  edit(db);
  db.close();
  return dir;
}

type Row = { position: number; stream: string; revision: number; type: string; data: string; recorded_at: string };
const rowsOf = (db: Database.Database, stream: string) => db.prepare<[string], Row>('SELECT * FROM events WHERE stream = ? ORDER BY revision').all(stream);

const EDITS: Record<string, { edit: (db: Database.Database) => void; names: RegExp }> = {
  'a flipped byte': {
    edit: (db) => {
      const row = rowsOf(db, 'ledger-key_2')[5]!;
      const bytes = Buffer.from(row.data);
      const i = bytes.indexOf('"at"') + 7; // inside the time's digits
      bytes[i] = bytes[i]! ^ 0x01;
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(bytes.toString(), row.position);
    },
    names: /ledger-key_2 revision 5\b/,
  },
  'a deleted event': {
    edit: (db) => db.prepare('DELETE FROM events WHERE position = ?').run(rowsOf(db, 'ledger-key_3')[7]!.position),
    names: /ledger-key_3 revision 7\b/,
  },
  'two events reordered': {
    edit: (db) => {
      const [a, b] = [rowsOf(db, 'ledger-key_0')[3]!, rowsOf(db, 'ledger-key_0')[4]!];
      const swap = db.prepare('UPDATE events SET type = ?, data = ?, recorded_at = ? WHERE position = ?');
      swap.run(b.type, b.data, b.recorded_at, a.position);
      swap.run(a.type, a.data, a.recorded_at, b.position);
    },
    names: /ledger-key_0 revision 3\b/,
  },
  'a truncated stream': {
    edit: (db) => db.prepare("DELETE FROM events WHERE stream = 'ledger-key_1' AND revision >= ?").run(rowsOf(db, 'ledger-key_1').length - 5),
    names: /ledger-key_1 revision \d+/,
  },
};

test('audit verify and the offline verifier pass on an intact ledger, chained once from a pre-chain ledger without rewriting an event', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rc-tamper-'));
  t.after(() => removeDir(root));
  const dir = join(root, 'legacy');
  mkdirSync(dir);
  const ledger = paths(dir).ledger;
  writeLedger(ledger, { events: 5_000, keys: 20 });
  const snapshot = () => new Database(ledger, { readonly: true }).prepare('SELECT * FROM events ORDER BY position').all();
  const before = snapshot();

  // Interrupted after one batch, then resumed: the one-time step continues where it stopped.
  const store = new SqliteEventStore(ledger);
  assert.equal(store.chain.backfillBatch(2_000), 2_000);
  assert.equal(store.chain.unchained(), 3_000);
  await store.close();
  const res = await admin(dir, 'audit', 'verify');
  assert.equal(res.code, 0, res.out + res.err);
  assert.match(res.out, /ledger verified: 5000 events in 20 streams/);
  assert.deepEqual(snapshot(), before, 'no event row was rewritten');

  const exported = await admin(dir, 'events', 'export', '--all');
  assert.equal(exported.code, 0, exported.err);
  writeFileSync(join(root, 'all.ndjson'), exported.out);
  const check = offline(join(root, 'all.ndjson'), '--all');
  assert.equal(check.code, 0, check.text);
  const one = await admin(dir, 'events', 'export', 'key_7');
  for (const line of one.out.trim().split('\n').map((l) => JSON.parse(l))) assert.match(line.hash, /^[0-9a-f]{64}$/);
  writeFileSync(join(root, 'one.ndjson'), one.out);
  assert.equal(offline(join(root, 'one.ndjson')).code, 0);
});

test('edits to the ledger file behind the service\'s back are caught by audit verify (first stream and revision named) and by the offline verifier', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rc-tamper-'));
  t.after(() => removeDir(root));
  const base = await makeLedger(root);
  for (const [name, { edit, names }] of Object.entries(EDITS)) {
    const dir = tampered(root, base, name.replace(/ /g, '-'), edit);
    const res = await admin(dir, 'audit', 'verify');
    if (process.env.SHOW) console.log(name, res.out);
    assert.equal(res.code, 1, `${name}: ${res.out}`);
    assert.match(res.out, /does NOT verify/, name);
    assert.match(res.err.split('\n')[0]!, names, `${name}: ${res.err}`);
    const key = names.source.match(/key_\d/)![0];
    const keyOnly = await admin(dir, 'audit', 'verify', key);
    assert.equal(keyOnly.code, 1, `${name} (audit verify ${key}): ${keyOnly.out}`);
    assert.match(keyOnly.err, names, name);

    // The operator exports the tampered ledger for an auditor: the export shows it too.
    for (const scope of [['--all'], [key]]) {
      const exported = await admin(dir, 'events', 'export', ...scope);
      const file = join(dir, 'export.ndjson');
      writeFileSync(file, exported.out);
      const check = offline(file, ...(scope[0] === '--all' ? ['--all'] : []));
      if (process.env.SHOW) console.log(name, scope, check.text);
      assert.equal(check.code, 1, `${name}, export ${scope}: ${check.text}`);
      assert.match(check.text, /does NOT verify/);
    }
  }
});

test('edits to an export file are caught by the offline verifier: a flipped byte, a deleted line, two lines reordered, a truncated stream', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rc-tamper-'));
  t.after(() => removeDir(root));
  const base = await makeLedger(root);
  for (const scope of ['--all', 'key_1']) {
    const lines = (await admin(base, 'events', 'export', scope)).out.trim().split('\n');
    const file = join(root, 'export.ndjson');
    writeFileSync(file, `${lines.join('\n')}\n`);
    assert.equal(offline(file, scope === '--all' ? '--all' : '').code, 0, 'the untouched export verifies');
    const flipped = [...lines];
    const bytes = Buffer.from(flipped[10]!);
    const at = bytes.indexOf('"data"') + 12;
    bytes[at] = bytes[at]! ^ 0x02;
    flipped[10] = bytes.toString();
    const swapped = [...lines];
    [swapped[4], swapped[5]] = [swapped[5]!, swapped[4]!];
    const last = JSON.parse(lines.at(-1)!).stream;
    const edits: Record<string, string[]> = {
      'flipped byte': flipped,
      'deleted line': lines.filter((_, i) => i !== 7),
      'reordered lines': swapped,
      'truncated stream': lines.slice(0, -2),
      'truncated stream, other lines kept': lines.filter((l, i) => !(JSON.parse(l).stream === last && i === lines.length - 1)),
    };
    for (const [name, edited] of Object.entries(edits)) {
      writeFileSync(file, `${edited.join('\n')}\n`);
      const check = offline(file, ...(scope === '--all' ? ['--all'] : []));
      assert.equal(check.code, 1, `${name} (${scope}): ${check.text}`);
    }
  }
});

test('a digest taken before more work verifies after it, and catches a rewrite that recomputed every stored hash', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rc-tamper-'));
  t.after(() => removeDir(root));
  const base = await makeLedger(root);
  const taken = await admin(base, 'ledger', 'digest');
  assert.equal(taken.code, 0, taken.err);
  const digest = JSON.parse(taken.out);
  assert.deepEqual(Object.keys(digest), ['position', 'root', 'at']);
  const digestFile = join(root, 'digest.json');
  writeFileSync(digestFile, taken.out);

  const store = new SqliteEventStore(paths(base).ledger);
  for (let i = 0; i < 5; i++) {
    const revision = (await store.readStream('ledger-key_2')).at(-1)!.revision;
    await store.append('ledger-key_2', [{ type: 'KeyReinstated', data: { keyId: 'key_2', at: new Date().toISOString() } }], revision);
  }
  await store.close();
  const later = await admin(base, 'audit', 'verify', '--digest', digestFile);
  assert.equal(later.code, 0, later.out + later.err);
  assert.match(later.out, /digest at position \d+: matches/);
  writeFileSync(join(root, 'all.ndjson'), (await admin(base, 'events', 'export', '--all')).out);
  const offlineLater = offline(join(root, 'all.ndjson'), '--digest', digestFile);
  assert.equal(offlineLater.code, 0, offlineLater.text);

  // Someone with the file rewrites an old event and recomputes every hash and root with our own code.
  const dir = tampered(root, base, 'rewritten', (db) => {
    db.prepare("UPDATE events SET data = replace(data, 'Partner 3', 'Partner X') WHERE stream = 'ledger-key_3' AND revision = 0").run();
    db.exec('DELETE FROM event_hashes; DELETE FROM chain_state;');
  });
  const rechained = new SqliteEventStore(paths(dir).ledger);
  await rechained.completeChain();
  await rechained.close();
  assert.equal((await admin(dir, 'audit', 'verify')).code, 0, 'without a digest a full rewrite is consistent');
  const caught = await admin(dir, 'audit', 'verify', '--digest', digestFile);
  assert.equal(caught.code, 1, caught.out);
  assert.match(caught.out, /digest at position \d+: does NOT match/);
  writeFileSync(join(dir, 'all.ndjson'), (await admin(dir, 'events', 'export', '--all')).out);
  assert.equal(offline(join(dir, 'all.ndjson'), '--digest', digestFile).code, 1);

  // A digest past the ledger's end (events removed from the end) is caught too.
  const cut = tampered(root, base, 'cut', (db) => db.prepare('DELETE FROM events WHERE position > ?').run(digest.position - 3));
  const short = await admin(cut, 'audit', 'verify', '--digest', digestFile);
  assert.equal(short.code, 1, short.out);
});

test('the offline verifier is plain Node: it runs from a directory with nothing else in it', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rc-verifier-'));
  t.after(() => removeDir(root));
  copyFileSync(VERIFIER, join(root, 'verify.mjs'));
  writeFileSync(join(root, 'empty.ndjson'), '');
  assert.match(execFileSync(process.execPath, [join(root, 'verify.mjs'), join(root, 'empty.ndjson')], { cwd: root, encoding: 'utf8' }), /export verified: 0 events/);
  assert.ok(!/from '(?!node:)/.test(readFileSync(VERIFIER, 'utf8')), 'imports only node: modules');
});
