// Real processes for e2e tests: the server as `npm start` runs it, and the admin CLI.
import { after } from 'node:test';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { videosDir } from '../../bench/shared-videos.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export { videosDir };
export const haveVideos = existsSync(join(videosDir, 'labels.json'));
export const NO_VIDEOS = `${videosDir} is absent (a fresh clone): the real-video tests need the shared clips`;

/**
 * What `npm start` runs after `node` (package.json's start script, `node ARGS...`), here or in
 * another checkout (bench:start's baseline): the tests and
 * benches start the server with the same loader as an operator does, so a file it cannot load
 * fails them too. Relative paths are the repository's (the children run there).
 */
export function startArgsIn(checkout: string): string[] {
  const start = (JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const [node, ...args] = start.trim().split(/\s+/);
  if (node !== 'node') throw new Error(`package.json's start script is expected to run node: ${start}`);
  return args;
}
export const startArgs: string[] = startArgsIn(repoRoot);

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
    srv.on('error', fail);
  });
}

/** `npm run -s admin -- ...` as the script runs it (Node's type stripping), without npm's own start. */
export function admin(env: Record<string, string>, ...args: string[]) {
  const res = spawnSync(process.execPath, ['--import', join(repoRoot, 'src/runtime/ts-loader.mjs'), join(repoRoot, 'src/cli/admin.ts'), ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr, json: () => JSON.parse(res.stdout.trim().split('\n').pop()!) };
}

/**
 * Servers still running when the test file's tests are done. A test stops its server in an
 * `after` hook, but node:test skips a test's later hooks once one throws, and a server left
 * running keeps the file from ever exiting (CI hung on that until its time limit). This file-level
 * hook runs regardless and kills whatever is left. Registered only under `node --test` (which sets
 * NODE_TEST_CONTEXT in each file's process): the benches import this module too, and a hook
 * would make them print a test summary.
 */
const running = new Set<ChildProcess>();
if (process.env.NODE_TEST_CONTEXT) {
  after(() => {
    for (const child of running) child.kill('SIGKILL');
  });
}

export interface ServerProcess {
  base: string;
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const storagePort = await freePort();
  const child = spawn(process.execPath, startArgs, {
    cwd: repoRoot,
    // No metrics listener unless a test asks for one: several servers run at once in some tests.
    env: { ...process.env, LOG_LEVEL: 'warn', METRICS_PORT: '0', ...env, PORT: String(port), STORAGE_PORT: String(storagePort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const base = `http://127.0.0.1:${port}`;
  // Generous: a cold start on a loaded 2-core machine has taken over 30 s. A server that misses
  // it is killed, so a failed test never leaves it running (holding its DATA_DIR, hanging the file).
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${out}`);
    try {
      if ((await fetch(`${base}/livez`)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    child,
    output: () => out,
    stop: (signal = 'SIGTERM') =>
      new Promise((ok) => {
        if (child.exitCode !== null) return ok(child.exitCode);
        child.once('exit', (code) => ok(code));
        child.kill(signal);
      }),
  };
}
