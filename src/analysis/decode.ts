// Video decoding: ffprobe for the stream's geometry, then ffmpeg piping raw RGB frames at a reduced
// rate and bounded size. Frames are yielded one at a time so memory does not grow with the video.
import { spawn, execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { VideoProcessingError, ProviderUnavailableError } from './engine.js';

const require = createRequire(import.meta.url);
// Static binaries shipped inside npm packages, so `npm ci` alone sets the project up.
const ffmpegPath: string = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
const ffprobePath: string = (require('@ffprobe-installer/ffprobe') as { path: string }).path;

export interface VideoInfo {
  /** Display size after rotation metadata is applied. */
  width: number;
  height: number;
  fps: number;
  durationMs: number;
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

interface ProbeStream {
  codec_type?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
}

function parseRate(r: string | undefined): number {
  if (!r) return 0;
  const [n, d] = r.split('/').map(Number);
  if (!n || !d) return 0;
  return n / d;
}

export function probe(path: string): Promise<VideoInfo> {
  const args = ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', path];
  return new Promise((resolve, reject) => {
    execFile(ffprobePath, args, { maxBuffer: 8 << 20 }, (err, stdout) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') {
        reject(new ProviderUnavailableError(`ffprobe not found at ${ffprobePath}`));
        return;
      }
      if (err) {
        reject(new VideoProcessingError('ffprobe could not read the file'));
        return;
      }
      try {
        const info = JSON.parse(stdout) as { streams?: ProbeStream[]; format?: { duration?: string } };
        const v = info.streams?.find((s) => s.codec_type === 'video');
        if (!v || !v.width || !v.height) throw new Error('no video stream');
        const rot = Number(v.tags?.rotate ?? v.side_data_list?.find((s) => s.rotation !== undefined)?.rotation ?? 0);
        const quarter = Math.abs(Math.round(rot / 90)) % 2 === 1;
        const fps = parseRate(v.avg_frame_rate) || parseRate(v.r_frame_rate) || 25;
        const dur = Number(v.duration ?? info.format?.duration ?? 0);
        resolve({
          width: quarter ? v.height : v.width,
          height: quarter ? v.width : v.height,
          fps,
          durationMs: Number.isFinite(dur) ? Math.round(dur * 1000) : 0,
        });
      } catch {
        reject(new VideoProcessingError('the file has no decodable video stream'));
      }
    });
  });
}

/** Output size: aspect kept, longest side bounded, even numbers as the scaler prefers. */
export function outputSize(info: VideoInfo, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(info.width, info.height));
  const even = (x: number) => Math.max(2, 2 * Math.round((x * scale) / 2));
  return { width: even(info.width), height: even(info.height) };
}

/**
 * Streams frames at `opts.fps`. The consumer's pace drives the pipe (backpressure), so at most one
 * frame plus the pipe buffer is held. A yielded frame's pixels are overwritten by the next frame:
 * copy them to keep them. Aborting kills ffmpeg.
 */
export async function* decodeFrames(
  path: string,
  info: VideoInfo,
  opts: DecodeOptions = defaultDecodeOptions,
  signal?: AbortSignal,
): AsyncGenerator<Frame> {
  const { width, height } = outputSize(info, opts.maxSide);
  const fps = Math.min(opts.fps, info.fps || opts.fps);
  const args = ['-v', 'error', '-nostdin', '-i', path, '-an', '-sn',
    '-vf', `fps=${fps}:eof_action=pass,scale=${width}:${height}:flags=bilinear`,
    '-pix_fmt', 'rgb24', '-f', 'rawvideo', 'pipe:1'];
  const child = spawn(ffmpegPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => { if (stderr.length < 4000) stderr += d.toString(); });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', (e) => reject(new ProviderUnavailableError(`ffmpeg failed to start: ${e.message}`)));
    child.on('close', (code) => resolve(code));
  });
  const onAbort = () => child.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });

  const frameBytes = width * height * 3;
  // Pipe chunks are copied straight into one frame buffer: one copy per byte, no concat and no
  // per-frame allocation. The buffer is reused, so a frame is valid until the next is requested.
  const rgb = new Uint8Array(frameBytes);
  let filled = 0;
  let index = 0;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      let offset = 0;
      while (offset < chunk.length) {
        const n = Math.min(frameBytes - filled, chunk.length - offset);
        rgb.set(chunk.subarray(offset, offset + n), filled);
        filled += n;
        offset += n;
        if (filled === frameBytes) {
          yield { index, timeMs: Math.round((index * 1000) / fps), width, height, rgb };
          index++;
          filled = 0;
        }
      }
    }
    const code = await exited;
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    if (code !== 0 && index === 0) {
      throw new VideoProcessingError(`ffmpeg could not decode the video: ${stderr.trim().slice(0, 300)}`);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  if (index === 0) throw new VideoProcessingError('the video has no decodable frames');
}
