// The frames a report shows, taken from the partner's local copy of the video: one decode pass at
// the engine's frame rate, keeping for each wanted timestamp the nearest frame, as a JPEG.
import jpeg from 'jpeg-js';
import { decodeFrames, probe } from '../analysis/decode.js';

export interface StillFrame {
  timeMs: number;
  width: number;
  height: number;
  /** data:image/jpeg;base64,... */
  dataUri: string;
}

export interface VideoStills {
  durationMs: number;
  width: number;
  height: number;
  /** Keyed by the wanted timestamp. */
  frames: Map<number, StillFrame>;
}

/** RGB24 to a baseline JPEG data URI (jpeg-js wants RGBA). */
export function jpegDataUri(rgb: Uint8Array, width: number, height: number, quality = 80): string {
  const rgba = Buffer.alloc(width * height * 4);
  for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) {
    rgba[j] = rgb[i]!;
    rgba[j + 1] = rgb[i + 1]!;
    rgba[j + 2] = rgb[i + 2]!;
    rgba[j + 3] = 255;
  }
  const { data } = jpeg.encode({ data: rgba, width, height }, quality);
  return `data:image/jpeg;base64,${Buffer.from(data).toString('base64')}`;
}

/**
 * Decodes the video once (10 fps, longest side `maxSide`) and keeps, for every wanted timestamp,
 * the frame nearest to it. Frames past the end map to the last frame.
 */
export async function extractStills(videoPath: string, timestampsMs: readonly number[], maxSide = 640, signal?: AbortSignal): Promise<VideoStills> {
  const info = await probe(videoPath);
  const wanted = [...new Set(timestampsMs)].sort((a, b) => a - b);
  const best = new Map<number, { distance: number; timeMs: number; width: number; height: number; rgb: Uint8Array }>();
  let width = 0;
  let height = 0;
  for await (const frame of decodeFrames(videoPath, info, { fps: 10, maxSide }, signal)) {
    width = frame.width;
    height = frame.height;
    for (const t of wanted) {
      const distance = Math.abs(frame.timeMs - t);
      const kept = best.get(t);
      // The decoder reuses its frame buffer: copy the pixels we keep.
      if (!kept || distance < kept.distance) best.set(t, { distance, timeMs: frame.timeMs, width: frame.width, height: frame.height, rgb: frame.rgb.slice() });
    }
  }
  const frames = new Map<number, StillFrame>();
  for (const [t, f] of best) frames.set(t, { timeMs: f.timeMs, width: f.width, height: f.height, dataUri: jpegDataUri(f.rgb, f.width, f.height) });
  return { durationMs: info.durationMs, width, height, frames };
}
