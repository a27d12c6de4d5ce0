// Processes for the benches: the service as `npm start` runs it and the bare baseline, started
// with a generous boot deadline (a shared machine can take a minute), their logs drained from a
// pipe as a log shipper would.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort, repoRoot, startArgs } from '../../test/support/processes.js';

/**
 * Servers this bench started and that are still running. A bench that fails half-way (a setup job
 * that ends failed, a load run with errors) throws past its own stop() calls; without this its
 * servers would outlive it, holding ports, a core and a DATA_DIR the next run then competes with.
 */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

/** Starts a child and waits until its /livez answers. */
export async function start(args: string[], extraEnv: Record<string, string>, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.stdout!.resume();
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited early`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/livez`)).status < 500) return child;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const stop = (child: ChildProcess) => new Promise<void>((ok) => {
  if (child.exitCode !== null) return ok();
  child.once('exit', () => ok());
  child.kill('SIGTERM');
});

export async function startService(env: Record<string, string>, extra: Record<string, string> = {}) {
  const port = await freePort();
  const storagePort = await freePort();
  const child = await start(startArgs, { METRICS_PORT: '0', ...env, ...extra, PORT: String(port), STORAGE_PORT: String(storagePort) }, port);
  return { child, base: `http://127.0.0.1:${port}` };
}

