// The admin CLI on a DATA_DIR that holds no ledger (a typo, a fresh machine) or is a file: a clear
// message, exit 1, nothing written (issue rv). Only `keys create` may start a new DATA_DIR.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAdmin } from './run.js';

test('a command that reads or changes existing data refuses a DATA_DIR with no ledger and creates nothing', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rv-data-dir-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'typo');
  {
    for (const argv of [['keys', 'list'], ['keys', 'suspend', 'key_x'], ['keys', 'set-limit', 'key_x', '3'], ['jobs', 'cancel', 'job_x'], ['jobs', 'list', '--key', 'key_x'], ['audit', 'key_x'], ['projections', 'rebuild']]) {
      const res = await runAdmin(dir, ...argv);
      assert.equal(res.code, 1, `${argv.join(' ')}: ${res.stderr}`);
      assert.equal(res.stdout, '', argv.join(' '));
      assert.match(res.stderr, /^error: DATA_DIR .* holds no ledger \(.*ledger\.db does not exist\): check DATA_DIR; nothing was created\n$/, argv.join(' '));
      assert.equal(existsSync(dir), false, `${argv.join(' ')} created ${dir}`);
    }
  }
});

test('keys create starts a new DATA_DIR (keys are issued before the first npm start); then the others work', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rv-data-dir-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'fresh');
  const created = await runAdmin(dir, 'keys', 'create', '--partner-name', 'Acme', '--limit', '2');
  assert.equal(created.code, 0, created.stderr);
  const { key_id } = JSON.parse(created.stdout);
  assert.ok(readdirSync(dir).includes('ledger.db'));
  const listed = await runAdmin(dir, 'keys', 'list');
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(JSON.parse(listed.stdout).key_id, key_id);
  // An operator sees every key: no "for this API key" in what the operator reads.
  const cancel = await runAdmin(dir, 'jobs', 'cancel', 'job_nope');
  assert.equal(cancel.code, 1);
  assert.equal(cancel.stderr, 'error: cannot cancel job job_nope: job_not_found (no job has this id)\n');
});

test('a DATA_DIR that is a file is named as such, not a stack trace', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rv-data-dir-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const file = join(root, 'data');
  writeFileSync(file, 'not a folder');
  for (const argv of [['keys', 'list'], ['keys', 'create', '--partner-name', 'Acme']]) {
    const res = await runAdmin(file, ...argv);
    assert.equal(res.code, 1, argv.join(' '));
    assert.equal(res.stderr, `error: DATA_DIR ${file} is not a directory\n`, argv.join(' '));
  }
});
