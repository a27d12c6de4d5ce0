// 4K clips for bench:engine's memory per job (issue 22za): most phones film 3840x2160, often at
// 60 fps, iPhones often in HEVC, and the decoder holds FFmpeg's frames at the picture's own size
// (a 4K I420 frame is 12.4 MB, 4 times a 1080p one) whatever size the engine asks for. Made from a
// shared clip's first seconds, scaled to cover the new size (nearest pixel, centred crop) and
// encoded by the machine's own FFmpeg (Debian's /usr/bin/ffmpeg, or $FFMPEG): at 4K the bench's
// in-process encoder (full-hd.ts) took minutes a clip, and it makes no HEVC for the MP4 muxer to
// tag hvc1. Test files only: the service never runs this FFmpeg. Without one, the 4K rows are
// skipped with a line saying so.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const ffmpegPath = process.env.FFMPEG ?? '/usr/bin/ffmpeg';

export interface FourK { w: number; h: number; fps: number; codec: 'h264' | 'hevc' }

/** Writes the first `seconds` of `src` to `out` at w x h, `fps`, H.264 High or HEVC Main (tagged hvc1, as iPhones write it). */
export function made4k(src: string, out: string, k: FourK, seconds: number): void {
  if (!existsSync(ffmpegPath)) throw new Error(`no FFmpeg at ${ffmpegPath} to make the 4K clips (set FFMPEG)`);
  const codec = k.codec === 'hevc' ? ['-c:v', 'libx265', '-tag:v', 'hvc1', '-b:v', '30M', '-x265-params', 'log-level=error']
    : ['-c:v', 'libx264', '-b:v', k.fps > 30 ? '60M' : '40M'];
  const r = spawnSync(ffmpegPath, ['-v', 'error', '-y', '-t', String(seconds), '-i', src,
    '-vf', `scale=${k.w}:${k.h}:force_original_aspect_ratio=increase:flags=neighbor,crop=${k.w}:${k.h},fps=${k.fps}`,
    '-an', ...codec, '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-g', String(k.fps * 2), out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ffmpeg failed: ${r.stderr.slice(-2000)}`);
}
