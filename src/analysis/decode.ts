// Video decoding for the engine: a sandboxed decoder process (src/analysis/decoder/) probes the
// file, then streams raw RGB frames at a reduced rate and bounded size, turned upright. Frames are
// yielded one at a time so memory does not grow with the video. The decoder is FFmpeg 8 as built
// into @napi-rs/webcodecs; it never runs in this process (see decoder/sandbox.ts for its limits).
import { VideoProcessingError, ProviderUnavailableError } from './engine.js';
import { open } from 'node:fs/promises';
import { budgetFor, decoderSettings, detectNetworkIsolation, spawnDecoder, type SandboxedDecoder } from './decoder/sandbox.js';
import type { DecoderOutput } from './decoder/framing.js';
import { decoderFor, refill } from './decoder/lifecycle.js';

export { keepDecoderWarm, warmDecoderRssMb } from './decoder/lifecycle.js';
import { containerOf } from './decoder/container.mjs';

export interface VideoInfo {
  /** Display size after rotation metadata is applied. */
  width: number;
  height: number;
  fps: number;
  durationMs: number;
  /** Clockwise degrees the stored picture is turned to be shown upright (0, 90, 180, 270). */
  rotation?: number;
}

export interface Frame {
  index: number;
  timeMs: number;
  width: number;
  height: number;
  /** Packed RGB24, row-major. */
  rgb: Uint8Array;
}

export interface DecodeOptions {
  fps: number;
  /** Longest side of the decoded frame, in pixels. */
  maxSide: number;
}

export const defaultDecodeOptions: DecodeOptions = { fps: 10, maxSide: 960 };

/** Exit codes of decoder/child.mjs. */
const BAD_INPUT = 65;
const UNAVAILABLE = 70;
/** Probing reads headers and a few packets: a fixed budget. */
const PROBE_BUDGET_MS = 30_000;

/** Peak resident memory of the last decoder process this module ran, MB (for tests and benches). */
export let lastDecoderPeakRssMb = 0;
/**
 * How long the last openVideo waited for its decoder's description of the video, ms: a decoder's
 * start (when none was warm) plus reading the headers. For the benches' account of a job's time.
 */
export let lastDecoderWaitMs = 0;
/** The process id of the decoder the last openVideo used (tests and benches: was it reused?). */
export let lastDecoderPid: number | undefined;

function failure(d: SandboxedDecoder, code: number | null, stderr: string, what: string): Error {
  const killed = d.killedFor();
  if (killed) return new VideoProcessingError(killed);
  const message = stderr.trim().split('\n').pop()?.slice(0, 300) || `${what} exited with ${code}`;
  if (code === UNAVAILABLE) return new ProviderUnavailableError(message);
  if (code === BAD_INPUT) return new VideoProcessingError(message);
  return new VideoProcessingError(`${what} failed: ${message}`);
}

function collectStderr(d: SandboxedDecoder): () => string {
  let stderr = '';
  d.child.stderr!.on('data', (b: Buffer) => { if (stderr.length < 4000) stderr += b.toString(); });
  return () => stderr;
}

function exited(d: SandboxedDecoder): Promise<number | null> {
  return new Promise((resolve, reject) => {
    d.child.once('error', (e) => reject(new ProviderUnavailableError(`the decoder could not start: ${e.message}`)));
    d.child.once('close', (code) => {
      lastDecoderPeakRssMb = d.peakRssMb();
      resolve(code);
    });
  });
}

/** The first bytes of the file (fewer if it is shorter). */
async function headOf(path: string, length: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await file.read(buf, 0, length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** Refuses, without starting a process, a file that cannot be read or is no video container. */
async function assertContainer(path: string): Promise<void> {
  let head: Buffer;
  try {
    head = await headOf(path, 64);
  } catch (err) {
    throw new VideoProcessingError(`the video could not be read: ${(err as Error).message}`);
  }
  if (!containerOf(head)) throw new VideoProcessingError('not a video container we decode (MP4/MOV, WebM or Matroska)');
}

export async function probe(path: string): Promise<VideoInfo> {
  // The decoder process checks the container too, but a file that is no video at all (random or
  // empty bytes, a playlist, an image) is refused here by its magic number, without starting a
  // process: such a job then costs what its ledger entries cost (README "Reliability").
  // Comparing a few fixed bytes parses nothing, so this stays outside the sandbox.
  await assertContainer(path);
  await detectNetworkIsolation();
  const d = spawnDecoder(['probe', path], path, { budgetMs: PROBE_BUDGET_MS, maxRssMb: decoderSettings().maxRssMb });
  const stderr = collectStderr(d);
  let stdout = '';
  d.child.stdout!.on('data', (b: Buffer) => { if (stdout.length < 64_000) stdout += b.toString(); });
  const code = await exited(d);
  if (code !== 0) throw failure(d, code, stderr(), 'probing');
  try {
    const info = JSON.parse(stdout) as VideoInfo;
    if (!(info.width > 0 && info.height > 0)) throw new Error('no size');
    return info;
  } catch {
    throw new VideoProcessingError('the decoder gave no usable description of the video');
  }
}

/** Output size: aspect kept, longest side bounded, even numbers as the scaler prefers. */
export function outputSize(info: VideoInfo, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(info.width, info.height));
  const even = (x: number) => Math.max(2, 2 * Math.round((x * scale) / 2));
  return { width: even(info.width), height: even(info.height) };
}

/**
 * Streams frames at `opts.fps` (or the video's own rate if lower). The consumer's pace drives the
 * pipe (backpressure), so at most one frame plus the pipe buffer is held. A yielded frame's pixels
 * are overwritten by the next frame: copy them to keep them. Aborting kills the decoder; so do its
 * budget (proportional to the declared duration) and its memory cap, failing the video.
 */
export async function* decodeFrames(
  path: string,
  info: VideoInfo,
  opts: DecodeOptions = defaultDecodeOptions,
  signal?: AbortSignal,
): AsyncGenerator<Frame> {
  void refill(); // the engine process's spare decoder, when keepDecoderWarm is on
  const { width, height } = outputSize(info, opts.maxSide);
  const fps = Math.min(opts.fps, info.fps || opts.fps);
  const settings = decoderSettings();
  await detectNetworkIsolation();
  // A stream may run a little past its declared length (audio/video skew); far past it, it is lying.
  const maxMediaMs = info.durationMs > 0 ? Math.round(info.durationMs * 1.1 + 5000) : settings.undeclaredMs;
  const d = spawnDecoder(['decode', path, String(fps), String(width), String(height), String(maxMediaMs)], path,
    { budgetMs: budgetFor(info.durationMs), maxRssMb: settings.maxRssMb });
  const stderr = collectStderr(d);
  const done = exited(d);
  done.catch(() => undefined);
  const onAbort = () => d.child.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });

  const frameBytes = width * height * 3;
  // Pipe chunks are copied straight into one frame buffer: one copy per byte, no concat and no
  // per-frame allocation. The buffer is reused, so a frame is valid until the next is requested.
  const rgb = new Uint8Array(frameBytes);
  let filled = 0;
  let index = 0;
  try {
    for await (const chunk of d.child.stdout as AsyncIterable<Buffer>) {
      let offset = 0;
      while (offset < chunk.length) {
        const n = Math.min(frameBytes - filled, chunk.length - offset);
        rgb.set(chunk.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled === frameBytes) {
          // The budget is the decoder's: the time the consumer holds the frame does not count.
          d.pause();
          yield { index, timeMs: Math.round((index * 1000) / fps), width, height, rgb };
          d.resume();
          index++;
          filled = 0;
        }
      }
    }
    const code = await done;
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    // Unlike a lenient CLI run, a decoder that stopped on an error fails the video even after some
    // frames: a stream cut short, stopped by its budget or caught lying about its length.
    if (code !== 0) throw failure(d, code, stderr(), 'decoding');
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
  }
  if (index === 0) throw new VideoProcessingError('the video has no decodable frames');
}

export interface OpenedVideo {
  info: VideoInfo;
  /** The frames at the rate and size asked for; the same contract as decodeFrames. */
  frames: AsyncGenerator<Frame>;
}

/**
 * Probe and decode in one decoder process (the engine's path): the process describes the video,
 * this side chooses the rate, size and limits from that description exactly as probe() then
 * decodeFrames() would, and the frames follow on the same pipe. One sandbox per video instead of
 * two, and with keepDecoderWarm on, a decoder started ahead or the one that decoded the last video
 * of the same `scope` (the partner's API key: decoder/lifecycle.ts). The caller must consume or
 * return `frames`.
 */
export async function openVideo(path: string, opts: DecodeOptions = defaultDecodeOptions, signal?: AbortSignal, scope?: string): Promise<OpenedVideo> {
  // As in probe(): a file that is no video container starts no process.
  await assertContainer(path);
  const settings = decoderSettings();
  const asked = performance.now();
  // Until the description arrives the budget is the probe's; then the video's own (budgetFor).
  const v = await decoderFor(path, { budgetMs: PROBE_BUDGET_MS, maxRssMb: settings.maxRssMb }, scope);
  const { d } = v;
  lastDecoderPid = d.child.pid;
  const onAbort = () => d.child.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });
  const end = (clean: boolean) => {
    signal?.removeEventListener('abort', onAbort);
    lastDecoderPeakRssMb = d.peakRssMb();
    v.done(clean && !signal?.aborted);
  };
  const failed = async (what: string): Promise<never> => {
    end(false);
    const code = await v.exit.catch(() => null);
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    throw failure(d, code, v.stderr(), what);
  };
  const header = await v.output.line().catch(() => undefined);
  lastDecoderWaitMs = performance.now() - asked;
  if (header === undefined) return failed('probing');
  let info: VideoInfo;
  try {
    info = JSON.parse(header) as VideoInfo;
    if (!(info.width > 0 && info.height > 0)) throw new Error('no size');
  } catch {
    end(false);
    throw new VideoProcessingError('the decoder gave no usable description of the video');
  }
  // The spare decoder for another partner's next video is started once this one has described its
  // video (if it is not there yet), so it is set up while this video is analysed.
  void refill();
  const { width, height } = outputSize(info, opts.maxSide);
  const fps = Math.min(opts.fps, info.fps || opts.fps);
  const maxMediaMs = info.durationMs > 0 ? Math.round(info.durationMs * 1.1 + 5000) : settings.undeclaredMs;
  d.setBudget(budgetFor(info.durationMs));
  // Not the end of its stdin: a warm decoder reads its next video's command there.
  d.child.stdin!.write(JSON.stringify([fps, width, height, maxMediaMs]) + '\n');
  const video: VideoOnDecoder = {
    output: v.output,
    async outcome() {
      if (v.output.ended && !signal?.aborted) return;
      const code = await v.exit.catch(() => null);
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      // Unlike a lenient CLI run, a decoder that stopped on an error fails the video even after
      // some frames: a stream cut short, stopped by its budget or caught lying about its length.
      throw failure(d, code, v.stderr(), 'decoding');
    },
    close: () => end(v.output.ended),
  };
  return { info, frames: readFrames(d, video, { width, height, fps }) };
}

/** One video's frames on a decoder's stdout (decoder/framing.ts), and how it ended. */
interface VideoOnDecoder {
  /** Its frame records, up to its end record. */
  output: DecoderOutput;
  /** Returns if the video ended within its limits (its end record came), else throws why not. */
  outcome(): Promise<void>;
  /** Done with it: a decoder that reached the end is kept for its partner's next video (decoder/lifecycle.ts), any other killed. */
  close(): void;
}

async function* readFrames(d: SandboxedDecoder, video: VideoOnDecoder, size: { width: number; height: number; fps: number }): AsyncGenerator<Frame> {
  const { width, height, fps } = size;
  const frameBytes = width * height * 3;
  // Two frame buffers, both handed to the reader at once: the decoder's bytes land in them straight
  // from the socket (framing.ts), the next frame's while the consumer works on this one, and the
  // decoder runs a frame further ahead. A yielded frame stays valid until the next one is asked
  // for, as in decodeFrames: its buffer is handed back to the reader only then.
  const buffers = [new Uint8Array(frameBytes), new Uint8Array(frameBytes)];
  const filled = buffers.map((b) => video.output.frame(b));
  let index = 0;
  try {
    for (;; index++) {
      const slot = index % 2;
      if (!(await filled[slot]!)) break;
      // The budget is the decoder's: the time the consumer holds the frame does not count.
      d.pause();
      yield { index, timeMs: Math.round((index * 1000) / fps), width, height, rgb: buffers[slot]! };
      d.resume();
      // The consumer asked for the next frame: the one it had is free to be refilled.
      filled[slot] = video.output.frame(buffers[slot]!);
    }
    await video.outcome();
  } finally {
    video.close();
  }
  if (index === 0) throw new VideoProcessingError('the video has no decodable frames');
}
