// The admin CLI on a DATA_DIR that holds no ledger (a typo, a fresh machine) or is a file: a clear
// message, exit 1, nothing written (issue rv). Only `keys create` may start a new DATA_DIR. A DATA_DIR
// that can never be made, or one set but empty: refused at once, by name (issue rw).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, spawnSync } from 'node:child_process';
import { repoRoot, startArgs } from '../support/processes.js';
import { runAdmin, type CliResult } from './run.js';

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

/** A command as `npm start` / `npm run -s admin` runs it, stopped if it has not ended within 60 s. */
function runWithin(args: string[], env: Record<string, string>): Promise<CliResult & { hung: boolean }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'silent', METRICS_PORT: '0', PORT: '0', STORAGE_PORT: '0', WORKER_CONCURRENCY: '0', ...env }, timeout: 60_000, killSignal: 'SIGKILL' },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, hung: err?.killed === true }),
    );
  });
}
const adminArgs = (...argv: string[]) => ['--import', join(repoRoot, 'src/runtime/ts-loader.mjs'), join(repoRoot, 'src/cli/admin.ts'), ...argv];

test('a DATA_DIR that can never be created (/proc/nope) stops the server and admin at once with exit 1 naming it (mkdir -p used to spin forever)', { skip: process.platform !== 'linux' && 'needs /proc' }, async (t) => {
  const dir = '/proc/nope';
  const server = await runWithin(startArgs, { DATA_DIR: dir });
  assert.equal(server.hung, false, 'npm start hung');
  assert.equal(server.code, 1);
  assert.match(server.stderr, /DATA_DIR \/proc\/nope cannot be created: ENOENT/);
  for (const argv of [['keys', 'create', '--partner-name', 'Acme'], ['projections', 'verify']]) {
    const res = await runWithin(adminArgs(...argv), { DATA_DIR: dir });
    assert.equal(res.hung, false, `${argv.join(' ')} hung`);
    assert.equal(res.code, 1, argv.join(' '));
    assert.match(res.stderr, /^error: DATA_DIR \/proc\/nope (cannot be created: ENOENT|holds no ledger)/, argv.join(' '));
  }
  // A backup into such a folder is refused the same way, and restore into such a DATA_DIR.
  const root = mkdtempSync(join(tmpdir(), 'rw-data-dir-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const data = join(root, 'data');
  assert.equal((await runAdmin(data, 'keys', 'create', '--partner-name', 'Acme')).code, 0);
  const backup = await runWithin(adminArgs('backup', '/proc/nope/backup'), { DATA_DIR: data });
  assert.equal(backup.hung, false, 'backup hung');
  assert.equal(backup.code, 1);
  assert.match(backup.stderr, /^error: the backup folder \/proc\/nope\/backup cannot be created: ENOENT/);
  const copy = join(root, 'copy');
  assert.equal((await runAdmin(data, 'backup', copy)).code, 0);
  const restore = await runWithin(adminArgs('restore', copy), { DATA_DIR: dir });
  assert.equal(restore.hung, false, 'restore hung');
  assert.equal(restore.code, 1);
  assert.match(restore.stderr, /^error: DATA_DIR \/proc\/nope cannot be created: ENOENT/);
});

test('DATA_DIR set but empty is refused by name (it used to mean ./data, quietly), by the server and by admin', async () => {
  for (const args of [startArgs, adminArgs('keys', 'list')]) {
    for (const value of ['', ' ']) {
      const res = await runWithin(args, { DATA_DIR: value });
      assert.equal(res.hung, false);
      assert.equal(res.code, 1, args.join(' '));
      assert.equal(res.stderr, 'configuration error: DATA_DIR is set but empty: name a path, or unset it for the default\n', args.join(' '));
    }
  }
  const res = await runWithin(adminArgs('keys', 'list'), { DATA_DIR: '/nonexistent/rw', SECRETS_KEY_FILE: '' });
  assert.equal(res.stderr, 'configuration error: SECRETS_KEY_FILE is set but empty: name a path, or unset it for the default\n');
});

test('a DATA_DIR whose databases cannot be written (read-only snapshot, immutable files) is named with what to do, not SQLite\'s bare text', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'rw-data-dir-'));
  const dir = join(root, 'data');
  assert.equal((await runAdmin(dir, 'keys', 'create', '--partner-name', 'Acme')).code, 0);
  // Root ignores file modes: immutable files or folders (chattr +i) are what it cannot write.
  const chattr = (flag: string, ...paths: string[]) => spawnSync('chattr', [flag, ...paths]);
  const all = [dir, join(dir, 'ledger.db'), join(dir, 'read-models.db')];
  t.after(() => {
    chattr('-i', ...all);
    rmSync(root, { recursive: true, force: true });
  });
  const probe = chattr('+i', join(dir, 'ledger.db'));
  if (probe.status !== 0) return t.skip(`chattr +i is not available here: ${probe.stderr ?? probe.error}`);
  chattr('-i', join(dir, 'ledger.db'));
  // (The folder with the ledger immutable and no -shm file yet gives SQLite's "unable to open
  // database file", named the same way; not repeated here, as an earlier run leaves its -shm.)
  for (const [what, paths] of [['the databases', all.slice(1)]] as const) {
    chattr('+i', ...paths);
    for (const argv of [['keys', 'list'], ['audit', 'verify']]) {
      const res = await runAdmin(dir, ...argv);
      assert.equal(res.code, 1, `${what}: ${argv.join(' ')}`);
      assert.equal(res.stdout, '');
      assert.match(res.stderr, new RegExp(`^error: a database in DATA_DIR ${dir} cannot be opened for writing \\(SQLite: (attempt to write a readonly database|unable to open database file)\\); .*copy it somewhere writable`), `${what}: ${argv.join(' ')}: ${res.stderr}`);
    }
    chattr('-i', ...paths);
  }
});
