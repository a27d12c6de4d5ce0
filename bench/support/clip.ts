// A short real clip for the queue benches: the first `seconds` of a shared clip, stream-copied (no
// re-encoding: the same encoder's bytes a partner's phone made); a generated clip on a fresh clone.
import { EncodedVideoChunk, Mp4Muxer } from '@napi-rs/webcodecs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { demuxAll, makeVideo } from '../../test/support/videos.js';
import { videosDir } from '../shared-videos.js';

export async function firstSeconds(mp4Path: string, seconds: number): Promise<Buffer> {
  const { chunks, config } = await demuxAll(mp4Path);
  const t0 = Math.min(...chunks.map((c) => c.timestamp));
  const muxer = new Mp4Muxer({});
  muxer.addVideoTrack({ codec: config.codec, width: config.codedWidth, height: config.codedHeight, description: config.description });
  for (const c of chunks) {
    if (c.timestamp - t0 >= seconds * 1e6) continue;
    const data = new Uint8Array(c.byteLength);
    c.copyTo(data);
    muxer.addVideoChunk(new EncodedVideoChunk({ type: c.type as 'key' | 'delta', timestamp: c.timestamp - t0, duration: c.duration ?? undefined, data }));
  }
  return Buffer.from(muxer.finalize());
}

/** Two seconds of a person squatting (shared clip), or a generated 2 s clip without one. */
export async function shortClip(seconds = 2): Promise<{ name: string; bytes: Buffer; exercise: string }> {
  const shared = join(videosDir, 'aithletique_squat_front.mp4');
  if (existsSync(shared)) return { name: `aithletique_squat_front.mp4, first ${seconds} s`, bytes: await firstSeconds(shared, seconds), exercise: 'squat' };
  return { name: `generated 320x240, ${seconds} s`, bytes: await makeVideo({ width: 320, height: 240, frames: 30 * seconds, fps: 30 }), exercise: 'squat' };
}

/**
 * The same clip as a distinct file: a top-level MP4 `free` box with `tag` appended (players and
 * demuxers skip it), so that no content-addressed cache (runner/pose-cache.ts) can answer for it
 * and every job decodes and poses its video. The frames are those of `mp4`.
 */
export function distinctFile(mp4: Buffer, tag: string): Buffer {
  const payload = Buffer.from(tag, 'utf8');
  const box = Buffer.alloc(8 + payload.length);
  box.writeUInt32BE(box.length, 0);
  box.write('free', 4, 'latin1');
  payload.copy(box, 8);
  return Buffer.concat([mp4, box]);
}
