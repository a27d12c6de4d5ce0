// The decoder's sandbox, tried from the inside: a script run exactly as the decoder is (same
// flags, same namespace, same limits) attempts what a compromised decoder would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { budgetFor, decoderVersion, networkIsolation, spawnDecoder } from '../../src/analysis/decoder/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-test-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function run(script: string, input: string, args: string[], limits = { budgetMs: 20_000, maxRssMb: 512 }) {
  const path = join(dir, `${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(path, script);
  const d = spawnDecoder(args, input, limits, path);
  let out = '';
  let err = '';
  d.child.stdout!.on('data', (b: Buffer) => { out += b; });
  d.child.stderr!.on('data', (b: Buffer) => { err += b; });
  return new Promise<{ out: string; err: string; code: number | null; killed?: string }>((resolve) =>
    d.child.once('close', (code) => resolve({ out, err, code, killed: d.killedFor() })));
}

const ESCAPE = `
import fs from 'node:fs';
import net from 'node:net';
import cp from 'node:child_process';
const [input, secret, port] = process.argv.slice(2);
const r = {};
const attempt = (name, fn) => { try { fn(); r[name] = 'allowed'; } catch (e) { r[name] = e.code ?? String(e); } };
attempt('input', () => fs.readFileSync(input));
attempt('secret', () => fs.readFileSync(secret));
attempt('passwd', () => fs.readFileSync('/etc/passwd'));
attempt('write', () => fs.writeFileSync(secret + '.out', 'x'));
attempt('spawn', () => cp.execFileSync('/bin/true'));
r.env = Object.keys(process.env).length;
const s = net.connect(Number(port), '127.0.0.1');
s.on('connect', () => { r.socket = 'connected'; done(); });
s.on('error', (e) => { r.socket = e.code; done(); });
function done() { process.stdout.write(JSON.stringify(r)); process.exit(0); }
`;

test('the decoder process reads only its input: no other file, no write, no process, no socket, no environment', async () => {
  const input = join(dir, 'input.mp4');
  const secret = join(dir, 'ledger.db');
  writeFileSync(input, 'video bytes');
  writeFileSync(secret, 'SECRET-LEDGER-CONTENT');
  const listener = createServer((sock) => { connections++; sock.destroy(); });
  let connections = 0;
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  try {
    const port = (listener.address() as AddressInfo).port;
    const r = await run(ESCAPE, input, [input, secret, String(port)]);
    const res = JSON.parse(r.out) as Record<string, string | number>;
    assert.equal(res.input, 'allowed', 'the one input is readable');
    assert.equal(res.secret, 'ERR_ACCESS_DENIED');
    assert.equal(res.passwd, 'ERR_ACCESS_DENIED');
    assert.equal(res.write, 'ERR_ACCESS_DENIED');
    assert.equal(res.spawn, 'ERR_ACCESS_DENIED');
    assert.equal(res.env, 0, 'no inherited environment (no credentials)');
    assert.notEqual(res.socket, 'connected');
    if (networkIsolation().kind === 'netns') assert.equal(res.socket, 'ENETUNREACH', 'no network at all in its namespace');
    assert.equal(connections, 0, 'the listener saw no connection');
    assert.ok(!existsSync(secret + '.out'));
    assert.equal(readFileSync(secret, 'utf8'), 'SECRET-LEDGER-CONTENT');
  } finally {
    listener.close();
  }
});

test('the decoder process is killed at its wall-clock budget', async () => {
  const input = join(dir, 'slow.mp4');
  writeFileSync(input, 'x');
  const started = Date.now();
  const r = await run('setInterval(() => {}, 1000);', input, [], { budgetMs: 1500, maxRssMb: 512 });
  assert.match(r.killed ?? '', /time budget/);
  assert.ok(Date.now() - started < 10_000);
});

test('the decoder process is killed past its memory cap', async () => {
  const input = join(dir, 'big.mp4');
  writeFileSync(input, 'x');
  // Off-heap memory (as FFmpeg's frame buffers would be), touched so it is resident.
  const r = await run('const a = []; setInterval(() => { const b = Buffer.alloc(32 << 20, 1); a.push(b); }, 20);', input, [], { budgetMs: 20_000, maxRssMb: 300 });
  assert.match(r.killed ?? '', /memory cap of 300 MB/);
});

test('budgets scale with the declared duration; the FFmpeg inside is 6.0 or newer and no older build is installed', () => {
  assert.ok(budgetFor(7_200_000) > budgetFor(10_000));
  assert.ok(budgetFor(7_200_000) >= 2 * 7_200_000, 'a 2-hour video gets at least twice its length');
  const v = decoderVersion();
  const major = Number(/^n?(\d+)/.exec(v.ffmpeg)?.[1]);
  assert.ok(major >= 6, `FFmpeg ${v.ffmpeg}`);
  const modules = join(import.meta.dirname ?? process.cwd(), '../../node_modules');
  for (const old of ['@ffmpeg-installer', '@ffprobe-installer', 'ffmpeg-static', 'ffprobe-static']) {
    const p = join(modules, old);
    assert.ok(!existsSync(p) || readdirSync(p).length === 0, `${old} is not installed`);
  }
});
