// Starts the decoder process (child.mjs) in a sandbox and keeps it inside its limits:
// - the kernel (confine.ts): its own network namespace (not even loopback is reachable) and its own
//   mount namespace whose read-only root holds only Node, the decoder's code, the decoder package,
//   their libraries and the one input (as /input/video), with no capabilities and no new
//   privileges, in a user namespace where it can have one. This binds FFmpeg's native code, where
//   an exploit would run: DATA_DIR, the ledger and other videos are not there to be opened;
// - files, within that root: Node's permission model (--permission, --experimental-permission
//   before Node 22.13) lets the JavaScript read only the decoder's own code, the decoder package and
//   the one input; no writes, no child processes, no workers; an empty environment;
// - memory: V8's heap capped by --max-old-space-size, and the whole process (FFmpeg's buffers
//   included) killed by a watchdog when its resident set passes the cap;
// - time: killed when its CPU time passes a budget the caller derives from the video's declared
//   length (a function of the video, not of how busy the machine is), with a wall-clock backstop
//   at several times that budget for a decoder that hangs without using CPU.
import { spawn, type ChildProcess } from 'node:child_process';
import { confinedArgv, confinement, detectConfinement, INSIDE_INPUT, type Confinement } from './confine.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { copyFile, link, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DECODER_MALLOC_ENV } from '../malloc-env.js';
import { onOneCore } from './one-core.js';
import type { DecoderChannel, DecoderOutput } from './framing.js';

const here = dirname(fileURLToPath(import.meta.url));
export const childScript = join(here, 'child.mjs');
const require = createRequire(import.meta.url);

/**
 * The decoder package and its platform binary package (code the decoder process may read) and their
 * native addons (whose libraries must be inside the sandbox too). Found
 * once a process: resolving the package's optional dependencies (one per platform, all but one not
 * installed, each a failed lookup through every node_modules up the tree) took 13-17 ms of the
 * engine's CPU, paid on every decoder start, i.e. on a job for a partner whose decoder was not
 * already running (issue 22: ~16 ms a start in all, now ~3).
 */
let found: { dirs: readonly string[]; addons: readonly string[] } | undefined;
function decoderPackage(): { dirs: readonly string[]; addons: readonly string[] } {
  if (!found) {
    const dirs = findPackageDirs();
    found = { dirs, addons: addonFiles(dirs) };
  }
  return found;
}

function findPackageDirs(): string[] {
  const dirs = [dirname(require.resolve('@napi-rs/webcodecs'))];
  try {
    const pkg = JSON.parse(readFileSync(join(dirs[0]!, 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string> };
    for (const name of Object.keys(pkg.optionalDependencies ?? {})) {
      try {
        dirs.push(dirname(require.resolve(name, { paths: [dirs[0]!] })));
      } catch {
        // not installed for this platform
      }
    }
  } catch {
    // the child reports the missing package itself (exit 70)
  }
  return dirs;
}

/** The native addons of those packages: the libraries they load must be inside the sandbox too. */
function addonFiles(dirs: readonly string[]): string[] {
  const files: string[] = [];
  for (const dir of dirs) {
    try {
      for (const f of readdirSync(dir)) if (f.endsWith('.node')) files.push(join(dir, f));
    } catch {
      // not there: the decoder reports it (exit 70)
    }
  }
  return files;
}

export interface DecoderLimits {
  /**
   * CPU-time budget of the decoder process, ms. The same video always needs about the same CPU
   * time, so the budget fails the same videos on a quiet machine and a loaded one; a wall-clock
   * budget failed good videos when the machine was busy (the same clip completed or failed
   * depending on what else ran). Where CPU time cannot be read (no /proc) it is a wall-clock
   * budget, not counting time the decoder waits on its consumer (see `pause`).
   */
  budgetMs: number;
  /** Resident memory cap of the decoder process, MB. */
  maxRssMb: number;
}

function envNumber(name: string, fallback: number): number {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

/** Operator knobs (README "Untrusted video"); read per call so tests and operators can set them. */
export const decoderSettings = () => ({
  maxRssMb: envNumber('DECODE_MAX_MEMORY_MB', 1024),
  budgetBaseMs: envNumber('DECODE_BUDGET_BASE_SECONDS', 60) * 1000,
  budgetFactor: envNumber('DECODE_BUDGET_FACTOR', 2),
  /** How much media a file that declares no duration may decode to. */
  undeclaredMs: envNumber('DECODE_UNDECLARED_MAX_SECONDS', 3600) * 1000,
});

/** Wall-clock budget for a video of `durationMs` (a file declaring none gets the undeclared ceiling). */
export function budgetFor(durationMs: number): number {
  const s = decoderSettings();
  return Math.round(s.budgetBaseMs + s.budgetFactor * (durationMs > 0 ? durationMs : s.undeclaredMs));
}

/** What the decoder gets (confine.ts), with `kind` saying whether it has its own network namespace. */
export type Isolation = Confinement & { kind: 'netns' | 'none' };
const withKind = (c: Confinement): Isolation => ({ ...c, kind: c.net ? 'netns' : 'none' });

/**
 * How the decoder is confined on this machine, found once (confine.ts), without blocking: decode.ts
 * awaits this before its first spawn, so the API process that probes a video never stalls on it.
 */
export const detectNetworkIsolation = (): Promise<Isolation> => detectConfinement().then(withKind);

/** The same, blocking: for benches and tests, or when nothing awaited the detection. */
export const networkIsolation = (): Isolation => withKind(confinement());

export interface SandboxedDecoder {
  child: ChildProcess;
  /** Its stdout's reader, when it was started with a channel (else `child.stdout` is a pipe). */
  output?: DecoderOutput;
  /** Why the sandbox killed the process (budget or memory), if it did. */
  killedFor(): string | undefined;
  /** Highest resident set seen, MB (Linux; 0 elsewhere). */
  peakRssMb(): number;
  /**
   * Stop and restart the budget clock while the consumer works on a frame. The consumer (the pose
   * model) drives the pipe, so on a loaded machine the decoder spends most of its wall time blocked
   * on a full pipe; that time is the consumer's, and counting it failed good videos (CI, 2 cores).
   * While paused the decoder can at most fill the pipe buffer, less than one frame.
   */
  pause(): void;
  resume(): void;
  /** Sets the CPU budget, ms (once the video's declared length is known). */
  setBudget(ms: number): void;
  /**
   * The video ended within its limits (the decoder wrote its end record): the limits stop, and a
   * warm decoder's input leaves its stage; the process lives on for the same partner's next video.
   */
  finish(): void;
}

/** Wall-clock backstop, in CPU budgets: a decoder blocked without using CPU still ends. */
const WALL_BACKSTOP = 4;
/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** User + system CPU time of a process, ms (Linux); undefined where it cannot be read. */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state: utime and stime are
    // the 14th and 15th fields overall, the 12th and 13th after it.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : undefined;
  } catch {
    return undefined;
  }
}

const cpuReadable = cpuMs(process.pid) !== undefined;

function rssMb(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/**
 * The permission model's switch: `--experimental-permission` until it became stable as
 * `--permission` (Node 22.13 / 23.5); Node 24 rejects the old spelling.
 */
const permissionFlag = (() => {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  return major > 23 || (major === 23 && minor >= 5) || (major === 22 && minor >= 13) ? '--permission' : '--experimental-permission';
})();

/** Where the decoder process is told its input is, and what it may read: set up before it starts. */
interface Placement {
  /** The input as the decoder names it (inside its root, or the real path without a mount). */
  inside: string;
  /** Read-only mounts for confine.ts: `--as SOURCE TARGET` puts the input (or its stage) in place. */
  mounts: string[];
}

/**
 * The sandboxed process: kernel confinement, permission model, empty environment. Its stdout is a
 * pipe, or the decoder's end of `channel` (framing.ts), whose copy here is closed once it is spawned.
 */
function startConfined(args: string[], place: Placement, script: string, maxRssMb: number, stdin: 'ignore' | 'pipe', channel?: DecoderChannel): ChildProcess {
  const c = confinement();
  const heapMb = Math.max(64, Math.min(512, Math.floor(maxRssMb / 2)));
  const { dirs: packages, addons } = decoderPackage();
  const nodeArgs = [
    permissionFlag, '--no-warnings', '--allow-addons',
    `--allow-fs-read=${here}/`, `--allow-fs-read=${script}`, ...packages.map((d) => `--allow-fs-read=${d}/`), `--allow-fs-read=${place.inside}`,
    // child.mjs collects FFmpeg's frames' handles itself (see `collect` there).
    `--max-old-space-size=${heapMb}`, '--expose-gc',
    script, ...args,
  ];
  const readOnly = [here, script, ...packages, ...place.mounts];
  const [cmd, ...rest] = onOneCore(confinedArgv(c, readOnly, [process.execPath, ...nodeArgs], addons));
  // No inherited environment (no credentials): only its glibc allocator setting (malloc-env.ts).
  try {
    return spawn(cmd!, rest, { stdio: [stdin, channel?.stdout ?? 'pipe', 'pipe'], env: { ...DECODER_MALLOC_ENV } });
  } finally {
    channel?.stdout.destroy();
  }
}

/**
 * The limits around a running decoder for one video, from now on. `cpuFrom` is its CPU time when
 * the budget starts (a warm decoder has used some to start, and to decode the partner's earlier
 * videos, before it had this one). `finished` runs when the video ends within them.
 */
function guard(child: ChildProcess, limits: DecoderLimits, cpuFrom = 0, finished?: () => void, output?: DecoderOutput): SandboxedDecoder {
  let reason: string | undefined;
  let peak = 0;
  let budgetMs = limits.budgetMs;
  let over = false;
  const kill = (why: string) => {
    if (over || reason || child.exitCode !== null || child.signalCode !== null) return;
    reason = why;
    child.kill('SIGKILL');
  };
  const overBudget = () => kill(`decoding exceeded its time budget of ${Math.round(budgetMs / 1000)} s`);
  const backstop = (ms: number) => (cpuReadable ? ms * WALL_BACKSTOP : ms);
  let left = backstop(budgetMs);
  let since = performance.now();
  let timer: NodeJS.Timeout | undefined = setTimeout(overBudget, left).unref();
  const pause = () => {
    if (!timer) return;
    clearTimeout(timer);
    timer = undefined;
    left -= performance.now() - since;
  };
  const resume = () => {
    if (over || timer || reason || child.exitCode !== null || child.signalCode !== null) return;
    since = performance.now();
    timer = setTimeout(overBudget, Math.max(0, left)).unref();
  };
  const watch = setInterval(() => {
    if (!child.pid) return;
    const m = rssMb(child.pid);
    if (!m) return;
    peak = Math.max(peak, m.hwm, m.rss);
    if (m.rss > limits.maxRssMb) kill(`decoding exceeded its memory cap of ${limits.maxRssMb} MB`);
    if (cpuReadable && (cpuMs(child.pid) ?? 0) - cpuFrom > budgetMs) overBudget();
  }, 100);
  watch.unref();
  const stop = () => {
    over = true;
    clearTimeout(timer);
    timer = undefined;
    clearInterval(watch);
    child.off('close', stop);
  };
  child.once('close', stop);
  const setBudget = (ms: number) => {
    // The wall-clock backstop follows: what is left of it grows or shrinks by the difference.
    left += backstop(ms) - backstop(budgetMs);
    budgetMs = ms;
    if (timer) {
      pause();
      resume();
    }
  };
  const finish = () => {
    if (over) return;
    stop();
    finished?.();
  };
  return { child, output, killedFor: () => reason, peakRssMb: () => peak, pause, resume, setBudget, finish };
}

/**
 * `script` is the decoder (child.mjs); tests pass an escape attempt to run in the same sandbox.
 * With a `channel` (framing.ts) its stdout is that channel's, read through `output`.
 */
export function spawnDecoder(args: string[], inputPath: string, limits: DecoderLimits, script = childScript, stdin: 'ignore' | 'pipe' = 'ignore', channel?: DecoderChannel): SandboxedDecoder {
  // With its own root the input shows under a fixed name, and the decoder is told that path.
  const inside = confinement().mount ? INSIDE_INPUT : inputPath;
  const child = startConfined(args.map((a) => (a === inputPath ? inside : a)), { inside, mounts: ['--as', inputPath, INSIDE_INPUT] }, script, limits.maxRssMb, stdin, channel);
  return guard(child, limits, 0, undefined, channel?.output);
}

/** Inputs up to this size are copied to a warm decoder's stage when a hard link is not possible. */
const STAGE_COPY_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A decoder process started before its first video (child.mjs `serve`), so the sandbox's set-up (a
 * dozen mounts, Node's start, loading FFmpeg: about 0.3 s of CPU, most of a short job's cost
 * besides the pose model) is paid while another job runs, and then once for many videos. Its root
 * holds an empty private directory (its stage) where the input it is decoding appears as `video`:
 * before its first video it sees no input at all, and afterwards only the one it is on. It decodes
 * video after video of one scope (a partner's API key), each linked into the stage when it starts
 * and unlinked when it ends; it never gets another scope's video, and a video given without a
 * scope is its last. The caller ends it (`dispose`) when a video fails or is abandoned.
 */
export interface WarmDecoder {
  /**
   * Hands it `inputPath` (hard-linked into its stage, or copied when small and on another file
   * system) and starts the video's limits. Undefined when it cannot take the video: busy with
   * another, already used for another scope (or without one), dead, or the input cannot be staged
   * (a large file on another file system). The caller then starts a decoder for the input.
   */
  assign(inputPath: string, limits: DecoderLimits, scope?: string): Promise<SandboxedDecoder | undefined>;
  /** Whose videos it has decoded (undefined before the first, or when given none). */
  readonly scope: string | undefined;
  /** Ends it. */
  dispose(): void;
  /** Resident memory now, MB (what an idle one costs). */
  rssMb(): number;
  /** Its process id (one through unshare, the set-up shell, setpriv and Node). */
  readonly pid: number | undefined;
}

/**
 * Where stages are made: DECODER_STAGE_DIR when the engine host gave one (a directory per engine
 * process that the host removes when that process ends, however it ends: a stage holds a link to
 * a partner's video, which must not outlive its job), else the system's temp directory.
 */
export const stageParent = (): string => process.env.DECODER_STAGE_DIR || tmpdir();

/** With a `channel` (framing.ts), the decoders `assign` gives read their output through it. */
export function spawnWarmDecoder(maxRssMb: number, channel?: DecoderChannel): WarmDecoder {
  const stage = mkdtempSync(join(stageParent(), 'rc-decoder-stage-'));
  const staged = join(stage, 'video');
  const c = confinement();
  const inside = c.mount ? INSIDE_INPUT : staged;
  const child = startConfined(['serve'], { inside, mounts: ['--as', stage, dirname(INSIDE_INPUT)] }, childScript, maxRssMb, 'pipe', channel);
  /** Scope of its videos; `last` once a video came without one (it takes no more). */
  let scope: string | undefined;
  let used = false;
  let last = false;
  let busy = false;
  const clean = () => {
    rmSync(stage, { recursive: true, force: true });
    process.off('exit', clean);
  };
  process.once('exit', clean);
  child.once('close', clean);
  child.once('error', () => undefined); // reported by assign (a dead process is not used)
  child.stdin!.on('error', () => undefined);
  const alive = () => child.exitCode === null && child.signalCode === null && !child.killed;
  return {
    async assign(inputPath, limits, forScope) {
      if (busy || last || !alive() || (used && forScope !== scope)) return undefined;
      used = true;
      busy = true;
      scope = forScope;
      last = forScope === undefined;
      try {
        await link(inputPath, staged);
      } catch {
        try {
          if ((await stat(inputPath)).size > STAGE_COPY_MAX_BYTES) throw new Error('too large to copy');
          await copyFile(inputPath, staged);
        } catch {
          child.kill('SIGKILL');
          return undefined;
        }
      }
      if (!alive()) return undefined;
      // The video ended within its limits: its link leaves the stage, and the next may come.
      const finished = () => {
        rmSync(staged, { force: true });
        busy = false;
      };
      const d = guard(child, limits, child.pid ? cpuMs(child.pid) ?? 0 : 0, finished, channel?.output);
      child.stdin!.write(JSON.stringify(['stream', inside]) + '\n');
      return d;
    },
    get scope() {
      return scope;
    },
    dispose() {
      last = true;
      child.kill('SIGKILL');
    },
    rssMb: () => (child.pid ? rssMb(child.pid)?.rss ?? 0 : 0),
    pid: child.pid,
  };
}

/**
 * The FFmpeg release inside the decoder package, read from its binary ("FFmpeg version n8.0.1"),
 * with the package's own version: what the README and the benches report, and what a test checks.
 */
export function decoderVersion(): { ffmpeg: string; package: string } {
  const [root, ...platform] = decoderPackage().dirs;
  const pkg = JSON.parse(readFileSync(join(root!, 'package.json'), 'utf8')) as { version: string };
  let ffmpeg = 'unknown';
  for (const dir of platform) {
    try {
      const name = readdirSync(dir).find((f) => f.endsWith('.node'));
      if (!name) continue;
      const m = /FFmpeg version (n?[0-9][0-9.]*)/.exec(readFileSync(join(dir, name)).toString('latin1'));
      if (m) ffmpeg = m[1]!;
    } catch {
      // not readable: reported as unknown
    }
  }
  return { ffmpeg, package: `@napi-rs/webcodecs ${pkg.version}` };
}
