// The test support's own cleanup, tried the way it failed in CI: a test whose first `after` hook
// throws before the hook that stops its server. node:test then skips the stop; the file must still
// end (processes.ts kills leftover servers in a file-level hook) and leave no server running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { removeDir } from './remove-dir.js';
import { repoRoot } from './processes.js';

test('a server left running by a failed cleanup is killed when its test file ends, so the file exits', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-cleanup-'));
  const pidFile = join(dir, 'server.pid');
  const fixture = join(dir, 'leaves-a-server.test.ts');
  writeFileSync(fixture, `
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { startServer } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'test/support/processes.ts')).href)};
test('a cleanup that throws first', async (t) => {
  const server = await startServer({ DATA_DIR: ${JSON.stringify(join(dir, 'data'))}, WORKER_CONCURRENCY: '0' });
  writeFileSync(${JSON.stringify(pidFile)}, String(server.child.pid));
  t.after(() => { throw new Error('a cleanup that fails'); });
  t.after(() => server.stop()); // skipped by node:test after the throw above
});
`);
  // A runner of its own: without NODE_TEST_CONTEXT, which this file's runner set for us.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawn(process.execPath, ['--import', 'tsx', '--test', fixture], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    run.kill('SIGKILL');
    // Should the fix fail, the orphaned server must not outlive this test either.
    try { process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL'); } catch { /* gone, as it should be */ }
    removeDir(dir);
  });
  let out = '';
  run.stdout.on('data', (d) => (out += d));
  run.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((ok) => {
    const timer = setTimeout(() => ok(-1), 60_000);
    run.once('exit', (c) => { clearTimeout(timer); ok(c); });
  });
  assert.notEqual(code, -1, `the test file did not end within 60 s:\n${out}`);
  assert.notEqual(code, 0, 'the fixture fails (its cleanup threw)');
  assert.match(out, /a cleanup that fails/);
  const pid = Number(readFileSync(pidFile, 'utf8'));
  let alive = true;
  for (let i = 0; i < 50 && alive; i++) {
    try { process.kill(pid, 0); await new Promise((r) => setTimeout(r, 100)); } catch { alive = false; }
  }
  assert.equal(alive, false, `the server (pid ${pid}) is still running`);
});
