// `npm start` on a port it cannot take (issue rw): one line naming the listener and the variable,
// exit 1, not Node's EADDRINUSE stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admin, freePort, repoRoot, startArgs } from '../support/processes.js';

function start(env: Record<string, string>): Promise<{ code: number; stderr: string; hung: boolean }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      startArgs,
      { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'silent', METRICS_PORT: '0', WORKER_CONCURRENCY: '0', ...env }, timeout: 90_000, killSignal: 'SIGKILL' },
      (err, _stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stderr, hung: err?.killed === true }),
    );
  });
}

test('a port already taken stops npm start with one line naming the listener and its variable, exit 1', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rw-listen-'));
  const taken = createServer();
  taken.listen(0, '127.0.0.1');
  await once(taken, 'listening');
  t.after(() => {
    taken.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const port = (taken.address() as { port: number }).port;
  const cases = [
    [{ PORT: String(port), STORAGE_PORT: String(await freePort()) }, `cannot listen for the API on 127.0.0.1:${port} (EADDRINUSE: the port is already in use (another npm start?); set PORT)\n`],
    [{ PORT: String(await freePort()), STORAGE_PORT: String(port) }, `cannot listen for the storage host on 127.0.0.1:${port} (EADDRINUSE: the port is already in use (another npm start?); set STORAGE_PORT)\n`],
  ] as const;
  for (const [env, message] of cases) {
    const res = await start({ DATA_DIR: dataDir, ...env });
    assert.equal(res.hung, false);
    assert.equal(res.code, 1);
    assert.equal(res.stderr, message);
  }
});

test('a HOST that does not resolve, and a knob past its timer\'s limit, stop npm start with one line naming the variable, exit 1 (issue rx)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rx-listen-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const storagePort = await freePort();
  const host = await start({ DATA_DIR: dataDir, HOST: 'nope.invalid', PORT: String(await freePort()), STORAGE_PORT: String(storagePort) });
  assert.equal(host.hung, false);
  assert.equal(host.code, 1);
  // It was the DNS lookup's stack trace (getaddrinfo ENOTFOUND).
  assert.equal(host.stderr, `cannot listen for the storage host on nope.invalid:${storagePort} (ENOTFOUND: HOST does not resolve to an address; set HOST)\n`);
  const sweep = await start({ DATA_DIR: dataDir, SWEEP_INTERVAL_SECONDS: '3000000', PORT: String(await freePort()), STORAGE_PORT: String(await freePort()) });
  assert.equal(sweep.hung, false);
  assert.equal(sweep.code, 1);
  // It started and swept every millisecond (Node's TimeoutOverflowWarning, then a 1 ms interval).
  assert.equal(sweep.stderr, 'configuration error: SWEEP_INTERVAL_SECONDS must be between 1 and 2147483, got 3000000\n');
});

test('STORAGE_PORT=0 (any free port): the signed upload URLs name the port the storage host got, and a PUT to one lands (issue rx: they named port 0)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rx-port0-'));
  const env = { DATA_DIR: dataDir };
  const { api_key: apiKey } = admin(env, 'keys', 'create', '--partner-name', 'Port Zero').json() as { api_key: string };
  const port = await freePort();
  const child = spawn(process.execPath, startArgs, { cwd: repoRoot, env: { ...process.env, LOG_LEVEL: 'silent', METRICS_PORT: '0', WORKER_CONCURRENCY: '0', ...env, PORT: String(port), STORAGE_PORT: '0' }, stdio: 'ignore' });
  t.after(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    assert.equal(child.exitCode, null, 'the server exited');
    if (await fetch(`${base}/livez`).then((r) => r.ok, () => false)) break;
    assert.ok(Date.now() < deadline, 'the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const spot = await (await fetch(`${base}/v1/uploads`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } })).json() as { handle: string; upload_url: string };
  const url = new URL(spot.upload_url);
  assert.notEqual(url.port, '0', spot.upload_url);
  assert.ok(Number(url.port) > 0);
  const put = await fetch(spot.upload_url, { method: 'PUT', body: 'bytes', headers: { 'content-type': 'video/mp4' } });
  assert.equal(put.status, 200);
  const state = await (await fetch(`${base}/v1/uploads/${spot.handle}`, { headers: { authorization: `Bearer ${apiKey}` } })).json() as { state: string };
  assert.equal(state.state, 'uploaded');
});
