// Full-HD clips for bench:engine's memory per job (issue 22: a job's memory grows with the picture
// decoded, and partners' phones film 1080p, landscape and portrait, which no shared clip is): a
// shared clip's first seconds decoded, scaled to cover the new size (nearest pixel, centred crop)
// and encoded again as H.264 High by the same FFmpeg build the decoder uses. Frame by frame, so
// the bench holds one picture at a time, not the video.
import { Mp4Muxer, VideoDecoder, VideoEncoder, VideoFrame } from '@napi-rs/webcodecs';
import { demuxAll } from '../../test/support/videos.js';

const tick = () => new Promise((r) => setImmediate(r));

/** Paints `src` (RGBA, w x h) into `dst` (RGBA, W x H) scaled to cover it, centred. */
function cover(src: Uint8Array, w: number, h: number, dst: Uint8Array, W: number, H: number): void {
  const scale = Math.max(W / w, H / h);
  const ox = (w * scale - W) / 2, oy = (h * scale - H) / 2;
  const col = Int32Array.from({ length: W }, (_, x) => Math.min(w - 1, Math.floor((x + ox) / scale)) * 4);
  for (let y = 0; y < H; y++) {
    const row = Math.min(h - 1, Math.floor((y + oy) / scale)) * w * 4;
    for (let x = 0, d = y * W * 4; x < W; x++, d += 4) {
      const s = row + col[x]!;
      dst[d] = src[s]!; dst[d + 1] = src[s + 1]!; dst[d + 2] = src[s + 2]!; dst[d + 3] = 255;
    }
  }
}

/** The first `seconds` of the MP4 at `path` as a W x H H.264 High MP4 (30 fps, 8 Mbit/s, a key frame every 2 s). */
export async function rescaled(path: string, W: number, H: number, seconds: number): Promise<Buffer> {
  const { chunks, config } = await demuxAll(path);
  const codec = 'avc1.640028';
  const muxer = new Mp4Muxer({});
  muxer.addVideoTrack({ codec, width: W, height: H, framerate: 30 });
  let failure: unknown;
  const enc = new VideoEncoder({ output: (c, m) => muxer.addVideoChunk(c, m), error: (e) => { failure = e; } });
  enc.configure({ codec, width: W, height: H, bitrate: 8_000_000, framerate: 30 });
  const decoded: VideoFrame[] = [];
  const dec = new VideoDecoder({ output: (f) => decoded.push(f), error: (e) => { failure = e; } });
  dec.configure({ ...config });
  const out = new Uint8Array(W * H * 4);
  let n = 0, t0: number | undefined;
  const encodeDecoded = async () => {
    for (const f of decoded.splice(0)) {
      t0 ??= f.timestamp;
      const t = f.timestamp - t0;
      if (t < seconds * 1e6) {
        const rgba = new Uint8Array(f.allocationSize({ format: 'RGBA' }));
        await f.copyTo(rgba, { format: 'RGBA' });
        cover(rgba, f.displayWidth, f.displayHeight, out, W, H);
        const frame = new VideoFrame(out, { format: 'RGBA', codedWidth: W, codedHeight: H, timestamp: t, duration: f.duration ?? 33_333 });
        enc.encode(frame, { keyFrame: n++ % 60 === 0 });
        frame.close();
        while (enc.encodeQueueSize > 4) await tick();
      }
      f.close();
    }
  };
  for (const c of chunks) {
    dec.decode(c);
    while (dec.decodeQueueSize > 4) { await tick(); await encodeDecoded(); }
    await encodeDecoded();
    if (failure) throw failure;
  }
  await dec.flush();
  await tick();
  await encodeDecoded();
  await enc.flush();
  enc.close();
  if (failure) throw failure;
  return Buffer.from(muxer.finalize());
}
