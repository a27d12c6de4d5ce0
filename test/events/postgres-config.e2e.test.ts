// EVENT_STORE=postgres is validated at boot like every knob: a missing or malformed POSTGRES_URL or
// POSTGRES_SCHEMA stops `npm start` with a message naming it, and an unreachable server stops it
// with one line saying which store could not be opened (no server needed for these).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.js';
import { repoRoot } from '../support/processes.js';

test('POSTGRES_URL is required with EVENT_STORE=postgres and must be a postgres:// URL; POSTGRES_SCHEMA a plain identifier', () => {
  const bad: [Record<string, string>, RegExp][] = [
    [{ EVENT_STORE: 'postgres' }, /POSTGRES_URL is required when EVENT_STORE=postgres/],
    [{ EVENT_STORE: 'postgres', POSTGRES_URL: 'db.internal:5432' }, /POSTGRES_URL must start with postgres:\/\/ or postgresql:\/\//],
    [{ EVENT_STORE: 'postgres', POSTGRES_URL: 'not a url' }, /POSTGRES_URL must be a libpq URL/],
    [{ EVENT_STORE: 'postgres', POSTGRES_URL: 'postgres://h/db', POSTGRES_SCHEMA: 'Robert"); DROP' }, /POSTGRES_SCHEMA must be a lower-case identifier/],
    [{ EVENT_STORE: 'postgres', POSTGRES_URL: 'postgres://h/db', POSTGRES_POOL_SIZE: '0' }, /POSTGRES_POOL_SIZE must be between 1 and 1000/],
    [{ EVENT_STORE: 'postgresql' }, /EVENT_STORE must be one of sqlite, kurrentdb, postgres/],
  ];
  for (const [env, message] of bad) assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && message.test(err.message), JSON.stringify(env));
  const ok = loadConfig({ EVENT_STORE: 'postgres', POSTGRES_URL: 'postgresql://u:p@db:5432/rc?sslmode=require' });
  assert.deepEqual(ok.postgres, { url: 'postgresql://u:p@db:5432/rc?sslmode=require', schema: 'rep_coach', poolSize: 10 });
});

test('npm start stops with a message naming the knob, or the store it could not open', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'rc-pgboot-'));
  try {
    const boot = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/http/server.ts')], {
        cwd: repoRoot, env: { ...process.env, DATA_DIR: dataDir, PORT: '0', STORAGE_PORT: '0', METRICS_PORT: '0', ...env }, encoding: 'utf8', timeout: 60_000,
      });
    const missing = boot({ EVENT_STORE: 'postgres', POSTGRES_URL: '' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /configuration error: POSTGRES_URL is required/);
    const unreachable = boot({ EVENT_STORE: 'postgres', POSTGRES_URL: 'postgres://postgres@127.0.0.1:1/postgres', STORE_BUSY_TIMEOUT_MS: '2000' });
    assert.equal(unreachable.status, 1);
    assert.match(unreachable.stderr, /cannot open the service's stores \(EVENT_STORE=postgres.*PostgreSQL unavailable/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
