// The decoder's sandbox, tried from the inside: a script run exactly as the decoder is (same
// flags, same namespace, same limits) attempts what a compromised decoder would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { confinedArgv, confinement, INSIDE_INPUT } from '../../src/analysis/decoder/confine.js';
import { budgetFor, decoderVersion, networkIsolation, spawnDecoder, spawnWarmDecoder } from '../../src/analysis/decoder/sandbox.js';
import { allowedCores } from '../../src/analysis/decoder/one-core.js';
import { DECODER_MALLOC_ENV } from '../../src/analysis/malloc-env.js';
import { makeVideo } from '../support/videos.js';
import { removeDir } from '../support/remove-dir.js';

const dir = mkdtempSync(join(tmpdir(), 'sandbox-test-'));
test.after(() => removeDir(dir));

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
r.env = Object.keys(process.env).sort().join(',');
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
    assert.equal(res.env, Object.keys(DECODER_MALLOC_ENV).sort().join(','), 'no inherited environment (no credentials): its glibc allocator setting only');
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

// Native code, as an exploit in FFmpeg would run: a static C program (no Node, no permission
// model) started inside exactly the confinement the decoder gets. Only the kernel stops it.
const ESCAPE_C = `
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>
static void try_open(const char *name, const char *path) {
  int fd = open(path, O_RDONLY);
  char buf[64] = {0};
  if (fd >= 0) { ssize_t n = read(fd, buf, sizeof buf - 1); printf("%s=read:%zd\\n", name, n); close(fd); }
  else printf("%s=%s\\n", name, strerror(errno));
}
int main(int argc, char **argv) {
  try_open("input", argv[1]);
  try_open("ledger", argv[2]);
  try_open("other_video", argv[3]);
  try_open("passwd", "/etc/passwd");
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a; memset(&a, 0, sizeof a);
  a.sin_family = AF_INET; a.sin_port = htons(atoi(argv[4])); a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  printf("connect=%s\\n", s < 0 ? strerror(errno) : connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? "connected" : strerror(errno));
  printf("write=%s\\n", open("/escape", O_WRONLY | O_CREAT, 0644) >= 0 ? "created" : strerror(errno));
  printf("mount=%s\\n", mount("none", "/", "tmpfs", 0, 0) == 0 ? "mounted" : strerror(errno));
  printf("chroot=%s\\n", chroot("/") == 0 ? "chrooted" : strerror(errno));
  return 0;
}
`;

test('native code in the decoder confinement cannot open the ledger or another video, reach loopback, write, mount or chroot', async (t) => {
  const c = confinement();
  if (!c.mount) return t.skip(`no mount confinement on this machine (${c.describe})`);
  const cc = spawnSync('cc', ['--version']);
  if (cc.status !== 0) return t.skip('no C compiler (cc) to build the native escape attempt');
  const src = join(dir, 'escape.c');
  const bin = join(dir, 'escape');
  writeFileSync(src, ESCAPE_C);
  const built = spawnSync('cc', ['-static', '-O1', '-o', bin, src], { encoding: 'utf8' });
  if (built.status !== 0) return t.skip(`cannot link a static binary here: ${built.stderr.slice(0, 200)}`);
  // A DATA_DIR as the service lays it out: the ledger, and two videos, one of them this job's.
  const dataDir = join(dir, 'data');
  mkdirSync(join(dataDir, 'storage', 'frozen'), { recursive: true });
  const ledger = join(dataDir, 'ledger.db');
  const mine = join(dataDir, 'storage', 'frozen', 'job_mine');
  const other = join(dataDir, 'storage', 'frozen', 'job_other');
  writeFileSync(ledger, 'SQLite format 3\0 the ledger');
  writeFileSync(mine, 'this job\'s video');
  writeFileSync(other, 'another partner\'s video');
  let connections = 0;
  const listener = createServer((sock) => { connections++; sock.destroy(); });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  try {
    const port = (listener.address() as AddressInfo).port;
    const argv = confinedArgv(c, [bin, '--as', mine, INSIDE_INPUT], [bin, INSIDE_INPUT, ledger, other, String(port)]);
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', env: {}, timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    const res = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split('=') as [string, string]));
    assert.equal(res.input, `read:${'this job\'s video'.length}`, 'its one input is readable');
    assert.equal(res.ledger, 'No such file or directory', 'the ledger does not exist in its root');
    assert.equal(res.other_video, 'No such file or directory', 'nor does another video');
    assert.equal(res.passwd, 'No such file or directory');
    assert.equal(res.connect, 'Network is unreachable', 'no network, not even loopback');
    assert.equal(res.write, 'Read-only file system');
    assert.equal(res.mount, 'Operation not permitted', 'no capabilities');
    assert.equal(res.chroot, 'Operation not permitted');
    assert.equal(connections, 0, 'the listener saw no connection');
  } finally {
    listener.close();
  }
});

/**
 * Waits until `pid` is Node running child.mjs: the same process id goes through taskset, unshare,
 * the set-up shell and setpriv before it is the decoder.
 */
async function untilDecoderRuns(pid: number): Promise<void> {
  for (let i = 0; ; i++) {
    let exe = '';
    try {
      exe = readlinkSync(`/proc/${pid}/exe`);
    } catch {
      // between two execs
    }
    if (exe.endsWith('/node') && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('child.mjs')) return;
    assert.ok(i < 400, `the decoder did not start: ${exe}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('seen from outside while it decodes: the decoder has its own mount and network namespaces, no privileges, and DATA_DIR is not in its root', async (t) => {
  const c = confinement();
  if (!c.mount) return t.skip(`no mount confinement on this machine (${c.describe})`);
  const dataDir = join(dir, 'data-outside');
  mkdirSync(join(dataDir, 'storage', 'frozen'), { recursive: true });
  writeFileSync(join(dataDir, 'ledger.db'), 'ledger');
  const input = join(dataDir, 'storage', 'frozen', 'job_long');
  writeFileSync(input, await makeVideo({ width: 320, height: 240, frames: 300, fps: 10 }));
  // Its output is not read: the decoder blocks on a full pipe and stays alive to be looked at.
  const d = spawnDecoder(['decode', input, '10', '320', '240', '40000'], input, { budgetMs: 60_000, maxRssMb: 1024 });
  t.after(() => d.child.kill('SIGKILL'));
  const pid = d.child.pid!;
  await untilDecoderRuns(pid);
  const ns = (p: number | 'self', kind: string) => readlinkSync(`/proc/${p}/ns/${kind}`);
  assert.notEqual(ns(pid, 'mnt'), ns('self', 'mnt'), 'its own mount namespace');
  assert.notEqual(ns(pid, 'net'), ns('self', 'net'), 'its own network namespace');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  assert.match(status, /^NoNewPrivs:\s+1$/m);
  assert.match(status, /^CapEff:\s+0+$/m);
  assert.match(status, /^CapBnd:\s+0+$/m);
  const root = `/proc/${pid}/root`;
  assert.ok(!existsSync(join(root, dataDir)), 'DATA_DIR is not visible from its root');
  assert.ok(!existsSync(join(root, dataDir, 'ledger.db')));
  assert.ok(!existsSync(join(root, 'etc')) && !existsSync(join(root, 'home')) && !existsSync(join(root, 'tmp', 'data')));
  assert.equal(readFileSync(join(root, INSIDE_INPUT)).length, readFileSync(input).length, 'the one input is there, as /input/video');
  // Its root holds the library and code paths, /input and two empty mount points, nothing else.
  const expected = new Set(['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'usr', 'proc', '.old', 'input', process.execPath.split('/')[1]!, import.meta.dirname.split('/')[1]!]);
  assert.deepEqual(readdirSync(root).filter((n) => !expected.has(n)), []);
});

test('the decoder runs on one core, so FFmpeg starts one decoding thread however many cores the machine has; successive decoders take the cores in turn', async (t) => {
  const cores = allowedCores(readFileSync('/proc/self/status', 'utf8'));
  if (cores.length < 2) return t.skip(`one core allowed here (${cores.join(',') || 'unknown'}): nothing to pin`);
  const input = join(dir, 'one-core.mp4');
  writeFileSync(input, await makeVideo({ width: 320, height: 240, frames: 300, fps: 10 }));
  const seen: string[] = [];
  for (let k = 0; k < 2; k++) {
    // Its output is not read: the decoder blocks on a full pipe and stays alive to be looked at.
    const d = spawnDecoder(['decode', input, '10', '320', '240', '40000'], input, { budgetMs: 60_000, maxRssMb: 1024 });
    t.after(() => d.child.kill('SIGKILL'));
    await untilDecoderRuns(d.child.pid!);
    const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${d.child.pid}/status`, 'utf8'))?.[1];
    assert.match(list ?? '', /^\d+$/, `one core, not ${list}`);
    assert.ok(cores.includes(Number(list)), `a core this process may use (${cores.join(',')}), not ${list}`);
    seen.push(list!);
  }
  assert.notEqual(seen[0], seen[1], 'two decoders in a row on two different cores');
});

test('allowed cores are read from Cpus_allowed_list ranges; anything unreadable gives none (no pinning)', () => {
  assert.deepEqual(allowedCores('Name:\tnode\nCpus_allowed_list:\t0-3,6,8-9\n'), [0, 1, 2, 3, 6, 8, 9]);
  assert.deepEqual(allowedCores('Cpus_allowed_list:\t5\n'), [5]);
  assert.deepEqual(allowedCores('Name:\tnode\n'), []);
  assert.deepEqual(allowedCores('Cpus_allowed_list:\t0-x\n'), []);
});

test('a warm decoder (started before its video) sees no input until it is given one, then only that one, and its stage is removed when it ends', async (t) => {
  const c = confinement();
  if (!c.mount) return t.skip(`no mount confinement on this machine (${c.describe})`);
  const dataDir = join(dir, 'data-warm');
  mkdirSync(join(dataDir, 'storage', 'frozen'), { recursive: true });
  writeFileSync(join(dataDir, 'ledger.db'), 'ledger');
  const input = join(dataDir, 'storage', 'frozen', 'job_warm');
  const other = join(dataDir, 'storage', 'frozen', 'job_other');
  writeFileSync(input, await makeVideo({ width: 320, height: 240, frames: 30, fps: 10 }));
  writeFileSync(other, 'another partner\'s video');
  const stages = mkdtempSync(join(dir, 'stages-'));
  process.env.DECODER_STAGE_DIR = stages;
  t.after(() => { delete process.env.DECODER_STAGE_DIR; });
  const w = spawnWarmDecoder(1024);
  t.after(() => w.dispose());
  // Its one pid is Node running child.mjs serve once unshare, the set-up shell and setpriv are done.
  const pid = w.pid!;
  for (let i = 0; ; i++) {
    let ready = false;
    try {
      ready = readlinkSync(`/proc/${pid}/exe`).endsWith('/node') && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('serve');
    } catch {
      // between two execs
    }
    if (ready) break;
    assert.ok(i < 400, 'the warm decoder did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
  const root = `/proc/${pid}/root`;
  assert.notEqual(readlinkSync(`/proc/${pid}/ns/net`), readlinkSync('/proc/self/ns/net'), 'its own network namespace');
  assert.deepEqual(readdirSync(join(root, 'input')), [], 'no input before it is given one');
  assert.ok(!existsSync(join(root, dataDir)), 'DATA_DIR is not visible from its root');
  const d = await w.assign(input, { budgetMs: 60_000, maxRssMb: 1024 });
  assert.ok(d, 'assigned');
  assert.deepEqual(readdirSync(join(root, 'input')), ['video'], 'its one input, nothing else');
  assert.equal(readFileSync(join(root, INSIDE_INPUT)).length, readFileSync(input).length);
  assert.ok(!existsSync(join(root, other)) && !existsSync(join(root, dataDir)));
  // It describes the video on its stdout, then waits for the rate and size it is to decode at.
  const header = await new Promise<string>((resolve) => d!.child.stdout!.once('data', (b: Buffer) => resolve(b.toString())));
  assert.equal(JSON.parse(header.split('\n')[0]!).width, 320);
  const closed = new Promise((r) => d!.child.once('close', r));
  d!.child.stdin!.end();
  await closed;
  assert.deepEqual(readdirSync(stages), [], 'the stage (a link to the video) is gone with the process');
});
