// admin backup / restore / audit verify on a real DATA_DIR, as an operator and an auditor meet them
// (issue rw): a target that is a file or inside DATA_DIR, a manifest that is not JSON, and the
// backup's own backup.json as the digest the README says it is. Each failed before the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../support/processes.js';
import { runAdmin } from './run.js';

test('backup: a target that is a file or inside DATA_DIR is refused by name and nothing is written; backup.json is a digest for audit verify; a manifest that is not JSON is named', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rw-backup-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const data = join(root, 'data');
  assert.equal((await runAdmin(data, 'keys', 'create', '--partner-name', 'Acme', '--limit', '3')).code, 0);
  const before = readdirSync(data).sort();

  const file = join(root, 'a-file');
  writeFileSync(file, 'x');
  const onFile = await runAdmin(data, 'backup', file);
  assert.equal(onFile.code, 1);
  assert.equal(onFile.stderr, `error: ${file} is not a directory: back up into a new or empty directory\n`);

  for (const inside of [join(data, 'backup'), join(data, 'storage', 'nested', 'backup')]) {
    const res = await runAdmin(data, 'backup', inside);
    assert.equal(res.code, 1, inside);
    assert.equal(res.stderr, `error: ${inside} is inside DATA_DIR ${data}: keep a backup outside DATA_DIR\n`);
    assert.equal(existsSync(inside), false, `${inside} was created`);
  }
  assert.deepEqual(readdirSync(data).sort(), before);

  // The backup's manifest is the digest an auditor checks the original against, as it is.
  const copy = join(root, 'copy');
  assert.equal((await runAdmin(data, 'backup', copy)).code, 0);
  assert.equal((await runAdmin(data, 'keys', 'create', '--partner-name', 'Later')).code, 0);
  const verified = await runAdmin(data, 'audit', 'verify', '--digest', join(copy, 'backup.json'));
  assert.equal(verified.code, 0, verified.stderr);
  assert.match(verified.stdout, /digest at position \d+: matches/);
  // So does the offline checker, on a whole-ledger export.
  const exported = join(root, 'export.ndjson');
  writeFileSync(exported, (await runAdmin(data, 'events', 'export', '--all')).stdout);
  const offline = spawnSync(process.execPath, [join(repoRoot, 'scripts/verify-ledger-export.mjs'), exported, '--digest', join(copy, 'backup.json')], { encoding: 'utf8' });
  assert.equal(offline.status, 0, offline.stderr);
  assert.match(offline.stdout, /digest at position \d+: matches/);
  // A digests file an auditor appends to (one `ledger digest` line each) is still read by its last line.
  const digests = join(root, 'digests.ndjson');
  const digest = (await runAdmin(data, 'ledger', 'digest')).stdout;
  writeFileSync(digests, `{"position":1,"root":"${'0'.repeat(64)}"}\n${digest}`);
  assert.equal((await runAdmin(data, 'audit', 'verify', '--digest', digests)).code, 0);

  const broken = join(root, 'broken');
  mkdirSync(broken);
  writeFileSync(join(broken, 'backup.json'), '{');
  const target = join(root, 'restored');
  const res = await runAdmin(target, 'restore', broken);
  assert.equal(res.code, 1);
  assert.equal(res.stderr, `error: ${broken} is not a backup (its backup.json is not JSON)\n`);
  assert.equal(existsSync(target), false);
});
