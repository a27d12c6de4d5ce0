// npm start's log destination (src/http/log-destination.ts): lines gathered into chunks, every
// line written once and in order, none later than the interval, all of them by flushSync at exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logInChunks } from '../../src/http/log-destination.js';

function file(t: { after(fn: () => void): void }) {
  const path = join(mkdtempSync(join(tmpdir(), 'rc-log-')), 'out.log');
  const fd = openSync(path, 'w');
  t.after(() => closeSync(fd));
  return { fd, read: () => readFileSync(path, 'utf8') };
}

test('lines below the chunk size are held, then written within the interval, in order', async (t) => {
  const out = file(t);
  const log = logInChunks(out.fd, { bytes: 1 << 20, ms: 50 });
  log.write('{"n":1}\n');
  log.write('{"n":2,"é":"ü"}\n');
  assert.equal(out.read(), '', 'held, not written per line');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(out.read(), '{"n":1}\n{"n":2,"é":"ü"}\n');
});

test('full chunks go out without waiting for the interval, every line once and in order', async (t) => {
  const out = file(t);
  const log = logInChunks(out.fd, { bytes: 100, ms: 60_000 });
  const lines = Array.from({ length: 500 }, (_, i) => `{"line":${i},"pad":"${'x'.repeat(i % 37)}"}\n`);
  for (const line of lines) log.write(line);
  await new Promise((r) => setTimeout(r, 300));
  const written = out.read();
  assert.ok(written.length > 0 && lines.join('').startsWith(written), 'chunks written in order, without the interval');
  log.flushSync();
  assert.equal(out.read(), lines.join(''));
});

test('flushSync writes the lines still held before it returns (at exit)', (t) => {
  const out = file(t);
  const log = logInChunks(out.fd, { bytes: 1 << 20, ms: 60_000 });
  log.write('{"a":1}\n');
  log.write('{"b":2}\n');
  log.flushSync();
  assert.equal(out.read(), '{"a":1}\n{"b":2}\n');
});
