// Which decoder process decodes the engine's next video (decode.ts openVideo), and what becomes of
// it afterwards. A process that decodes video after video pays the sandbox's set-up, Node's start
// and FFmpeg's load (~250 ms of CPU, a fifth of a 2 s job) once instead of per video, but it has
// seen those videos, so it is reused only within one scope (a partner's API key): the next video
// of the same partner goes to the process that decoded its last one; another partner's goes to a
// fresh process, and the old one is killed. A process whose video failed, was abandoned or ran
// past its limits is killed too: only one that wrote its video's end record is kept.
//
// With keepDecoderWarm on (the engine process), a spare process is kept started ahead for the next
// scope, so a change of partner does not wait for a sandbox either: at most two decoders, the one
// decoding (or kept idle for its partner) and the spare, as before reuse.
import type { ChildProcess } from 'node:child_process';
import { ProviderUnavailableError } from '../engine.js';
import { decoderChannel, type DecoderOutput } from './framing.js';
import { decoderSettings, detectNetworkIsolation, spawnDecoder, spawnWarmDecoder, type DecoderLimits, type SandboxedDecoder, type WarmDecoder } from './sandbox.js';

/** One video on a decoder process. */
export interface DecoderVideo {
  d: SandboxedDecoder;
  /** The process's stdout (the same reader for all its videos). */
  output: DecoderOutput;
  /** The process's exit code, when it ends; rejects if it could not start. */
  exit: Promise<number | null>;
  /** The end of its stderr (why it failed). */
  stderr(): string;
  /**
   * The video is over: `clean` when its end record was read (the process is kept for the scope's
   * next video, or ended if there is no scope or no keeping), else the process is killed.
   */
  done(clean: boolean): void;
}

interface Process {
  output: DecoderOutput;
  exit: Promise<number | null>;
  stderr(): string;
}

const processes = new WeakMap<ChildProcess, Process>();

/** The per-process side of a decoder (listeners added once, however many videos it decodes). */
function processOf(d: SandboxedDecoder): Process {
  const { child } = d;
  const known = processes.get(child);
  if (known) return known;
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => { stderr = (stderr + b.toString()).slice(-4000); });
  const exit = new Promise<number | null>((resolve, reject) => {
    child.once('error', (e) => reject(new ProviderUnavailableError(`the decoder could not start: ${e.message}`)));
    child.once('close', (code) => resolve(code));
  });
  exit.catch(() => undefined);
  // A decoder that ended (done, failed, killed) leaves room for a spare.
  child.once('close', () => { if (keepWarm) void refill(); });
  const p = { output: d.output!, exit, stderr: () => stderr };
  processes.set(child, p);
  return p;
}

let keepWarm = false;
/** The spare: started, no video yet. */
let warm: WarmDecoder | undefined;
/** The last video's decoder, idle, for its scope's next video. */
let kept: WarmDecoder | undefined;

/**
 * Keep decoder processes started ahead of the next video and reuse them within a scope. For
 * processes that decode one video after another (the engine process); off by default, so the API,
 * the CLI and the tests start nothing they do not use.
 */
export function keepDecoderWarm(on: boolean): void {
  keepWarm = on;
  if (on) void refill();
  else {
    warm?.dispose();
    kept?.dispose();
    warm = kept = undefined;
  }
}

/** The spare being started, while its output channel is made (framing.ts: asynchronous). */
let starting: Promise<void> | undefined;

/** Starts the spare when there is none (after the current video's description, or a decoder's end). */
export async function refill(): Promise<void> {
  await detectNetworkIsolation();
  if (!keepWarm || warm) return;
  starting ??= (async () => {
    try {
      const channel = await decoderChannel();
      if (!keepWarm || warm) channel.stdout.destroy();
      else warm = spawnWarmDecoder(decoderSettings().maxRssMb, channel);
    } catch {
      // could not start one now: the next video starts its own, and tries again after it
    } finally {
      starting = undefined;
    }
  })();
  return starting;
}

/** Resident memory of the idle decoders (the spare and the one kept for its partner), MB: for the benches. */
export const warmDecoderRssMb = (): number => (warm?.rssMb() ?? 0) + (kept?.rssMb() ?? 0);

/**
 * A decoder for `path` in `stream` mode: the one kept for `scope` if there is one, else the spare,
 * else one started for it now (a large input on another file system cannot be staged).
 */
export async function decoderFor(path: string, limits: DecoderLimits, scope: string | undefined): Promise<DecoderVideo> {
  await detectNetworkIsolation();
  if (kept && (scope === undefined || kept.scope !== scope)) {
    kept.dispose();
    kept = undefined;
  }
  // A spare about to start is worth the wait: a few ms against a sandbox of our own.
  if (!kept && !warm && starting) await starting;
  for (;;) {
    const ready = kept ?? warm;
    if (!ready) break;
    if (ready === kept) kept = undefined;
    else warm = undefined;
    const d = await ready.assign(path, limits, scope);
    if (d) return video(d, ready, scope);
    ready.dispose();
  }
  const channel = await decoderChannel().catch((e: Error) => {
    throw new ProviderUnavailableError(`the decoder's output could not be set up: ${e.message}`);
  });
  return video(spawnDecoder(['stream', path], path, limits, undefined, 'pipe', channel), undefined, undefined);
}

function video(d: SandboxedDecoder, from: WarmDecoder | undefined, scope: string | undefined): DecoderVideo {
  const p = processOf(d);
  return {
    d,
    ...p,
    done(clean) {
      if (clean) d.finish();
      if (clean && from && scope !== undefined && keepWarm) {
        kept?.dispose();
        kept = from;
        return;
      }
      from?.dispose();
      if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
    },
  };
}
