// Test videos made at test time with the same FFmpeg 8 build the decoder uses (@napi-rs/webcodecs:
// x264 encoder, MP4 muxer), so no binary video is committed and no other FFmpeg is needed. Also
// the edits hostile inputs need: a rotation flag, lies about size and duration, truncation.
import { AudioData, AudioEncoder, EncodedVideoChunk, Mp4Demuxer, Mp4Muxer, VideoDecoder, VideoEncoder, VideoFrame } from '@napi-rs/webcodecs';
import { deflateSync } from 'node:zlib';

export interface VideoSpec {
  width: number;
  height: number;
  /** Presentation times, µs; or `frames` at `fps`. */
  timestampsUs?: number[];
  frames?: number;
  fps?: number;
  /** Paints frame i (RGBA, width*height*4). Default: a slowly changing grey. */
  paint?: (i: number, rgba: Uint8Array, width: number, height: number) => void;
  /** Keyframe every n frames (default 250). */
  gop?: number;
  fastStart?: boolean;
}

const tick = () => new Promise((r) => setImmediate(r));

/** An H.264 MP4 of the spec. */
export async function makeVideo(spec: VideoSpec): Promise<Buffer> {
  const { width: W, height: H } = spec;
  const fps = spec.fps ?? 10;
  const times = spec.timestampsUs ?? Array.from({ length: spec.frames ?? 30 }, (_, i) => Math.round((i * 1e6) / fps));
  const muxer = new Mp4Muxer({ fastStart: spec.fastStart ?? false });
  // The encoder takes whole rates only; the timestamps carry the real timing.
  const rate = Math.max(1, Math.round(fps));
  muxer.addVideoTrack({ codec: 'avc1.42001E', width: W, height: H, framerate: rate });
  let failure: unknown;
  const enc = new VideoEncoder({ output: (c, m) => muxer.addVideoChunk(c, m), error: (e) => { failure = e; } });
  enc.configure({ codec: 'avc1.42001E', width: W, height: H, bitrate: Math.max(20_000, W * H * 2), framerate: rate, latencyMode: 'realtime' });
  const rgba = new Uint8Array(W * H * 4);
  const paint = spec.paint ?? ((i, px) => px.fill(64 + (i % 64)));
  for (let i = 0; i < times.length; i++) {
    paint(i, rgba, W, H);
    const next = times[i + 1] ?? times[i]! + Math.round(1e6 / fps);
    const f = new VideoFrame(rgba, { format: 'RGBA', codedWidth: W, codedHeight: H, timestamp: times[i]!, duration: Math.max(1, next - times[i]!) });
    if (failure) throw failure;
    enc.encode(f, { keyFrame: i % (spec.gop ?? 250) === 0 });
    f.close();
    while (enc.encodeQueueSize > 8) await tick();
    if (failure) throw failure;
  }
  await enc.flush();
  enc.close();
  return Buffer.from(muxer.finalize());
}

/** An MP4 with one AAC track and no video. */
export async function makeAudioOnly(seconds = 2): Promise<Buffer> {
  const rate = 48000;
  const muxer = new Mp4Muxer({});
  muxer.addAudioTrack({ codec: 'mp4a.40.2', sampleRate: rate, numberOfChannels: 1 });
  const enc = new AudioEncoder({ output: (c, m) => muxer.addAudioChunk(c, m), error: () => undefined });
  enc.configure({ codec: 'mp4a.40.2', sampleRate: rate, numberOfChannels: 1, bitrate: 64_000 });
  const n = 1024;
  for (let t = 0; t < seconds * rate; t += n) {
    const data = new Float32Array(n).map((_, i) => 0.2 * Math.sin(((t + i) * 2 * Math.PI * 440) / rate));
    const a = new AudioData({ format: 'f32', sampleRate: rate, numberOfFrames: n, numberOfChannels: 1, timestamp: Math.round((t * 1e6) / rate), data });
    enc.encode(a);
    a.close();
  }
  await enc.flush();
  enc.close();
  return Buffer.from(muxer.finalize());
}

/** A real PNG image (solid colour). */
export function makePng(width = 64, height = 48): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const c = Buffer.alloc(4); c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0); ihdr.writeUInt32BE(height, 4); ihdr[8] = 8; ihdr[9] = 2;
  const raw = Buffer.alloc((width * 3 + 1) * height, 0x80);
  for (let y = 0; y < height; y++) raw[y * (width * 3 + 1)] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

// ---- MP4 box edits --------------------------------------------------------------------------

interface Box { type: string; at: number; header: number; size: number }

function* children(buf: Buffer, start: number, end: number): Generator<Box> {
  let pos = start;
  while (pos + 8 <= end) {
    let size = buf.readUInt32BE(pos);
    let header = 8;
    if (size === 1) { size = Number(buf.readBigUInt64BE(pos + 8)); header = 16; }
    if (size === 0) size = end - pos;
    if (size < header) return;
    yield { type: buf.toString('latin1', pos + 4, pos + 8), at: pos, header, size };
    pos += size;
  }
}

const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts']);

/** Every box of `type` anywhere under the container boxes, in file order. */
function findAll(buf: Buffer, type: string, start = 0, end = buf.length, out: Box[] = []): Box[] {
  for (const b of children(buf, start, end)) {
    if (b.type === type) out.push(b);
    if (CONTAINERS.has(b.type)) findAll(buf, type, b.at + b.header, b.at + b.size, out);
    if (b.type === 'stsd') findAll(buf, type, b.at + b.header + 8, b.at + b.size, out);
  }
  return out;
}

/** Sets the video track's display matrix to turn the picture `degrees` clockwise (phones' portrait flag). */
export function withRotation(mp4: Buffer, degrees: 0 | 90 | 180 | 270): Buffer {
  const out = Buffer.from(mp4);
  const one = 0x10000;
  const [c, s] = [Math.round(Math.cos((degrees * Math.PI) / 180)), Math.round(Math.sin((degrees * Math.PI) / 180))];
  const tkhd = findAll(out, 'tkhd')[0]!;
  const body = tkhd.at + tkhd.header;
  const matrixAt = body + (out[body] === 1 ? 52 : 40);
  const widthAt = matrixAt + 36;
  const w = out.readUInt32BE(widthAt) / one, h = out.readUInt32BE(widthAt + 4) / one;
  // a b u / c d v / x y w: display = (a x + c y + tx, b x + d y + ty).
  const tx = degrees === 90 ? h : degrees === 180 ? w : 0;
  const ty = degrees === 270 ? w : degrees === 180 ? h : 0;
  const m = [c * one, s * one, 0, -s * one, c * one, 0, tx * one, ty * one, 0x40000000];
  m.forEach((v, i) => out.writeInt32BE(v, matrixAt + 4 * i));
  if (degrees === 90 || degrees === 270) { out.writeUInt32BE(h * one, widthAt); out.writeUInt32BE(w * one, widthAt + 4); }
  return out;
}

/** Declares `width` x `height` in the track header and the sample entry (the bitstream is unchanged). */
export function withDeclaredSize(mp4: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(mp4);
  for (const tkhd of findAll(out, 'tkhd')) {
    const body = tkhd.at + tkhd.header;
    const at = body + (out[body] === 1 ? 88 : 76);
    out.writeUInt32BE(width * 0x10000, at);
    out.writeUInt32BE(height * 0x10000, at + 4);
  }
  for (const avc1 of findAll(out, 'avc1')) {
    out.writeUInt16BE(width, avc1.at + 8 + 24);
    out.writeUInt16BE(height, avc1.at + 8 + 26);
  }
  return out;
}

/** Declares a duration of `seconds` in the movie, track and media headers (the samples are unchanged). */
export function withDeclaredDuration(mp4: Buffer, seconds: number): Buffer {
  const out = Buffer.from(mp4);
  const mvhd = findAll(out, 'mvhd')[0]!;
  const mb = mvhd.at + mvhd.header;
  const v1 = out[mb] === 1;
  const movieScale = out.readUInt32BE(mb + (v1 ? 20 : 12));
  const put = (at: number, wide: boolean, v: number) => (wide ? out.writeBigUInt64BE(BigInt(v), at) : out.writeUInt32BE(v, at));
  put(mb + (v1 ? 24 : 16), v1, Math.round(seconds * movieScale));
  for (const tkhd of findAll(out, 'tkhd')) {
    const b = tkhd.at + tkhd.header, w = out[b] === 1;
    put(b + (w ? 28 : 20), w, Math.round(seconds * movieScale));
  }
  for (const mdhd of findAll(out, 'mdhd')) {
    const b = mdhd.at + mdhd.header, w = out[b] === 1;
    const scale = out.readUInt32BE(b + (w ? 20 : 12));
    put(b + (w ? 24 : 16), w, Math.round(seconds * scale));
  }
  return out;
}

/**
 * Re-encodes an MP4's video (decoded, turned a quarter counter-clockwise, encoded again) and flags it
 * to be shown turned a quarter clockwise: the same picture as the original once a player (or our
 * decoder) honours the flag, as a phone filming portrait would store it.
 */
export async function storedSideways(mp4Path: string): Promise<Buffer> {
  const { chunks, config } = await demuxAll(mp4Path);
  const frames: { rgba: Uint8Array; w: number; h: number; ts: number }[] = [];
  const pending: VideoFrame[] = [];
  const dec = new VideoDecoder({ output: (f) => pending.push(f), error: () => undefined });
  dec.configure({ ...config });
  const take = async () => {
    for (const f of pending.splice(0)) {
      const w = f.displayWidth, h = f.displayHeight;
      const rgba = new Uint8Array(f.allocationSize({ format: 'RGBA' }));
      await f.copyTo(rgba, { format: 'RGBA' });
      frames.push({ rgba, w, h, ts: f.timestamp });
      f.close();
    }
  };
  for (const c of chunks) {
    dec.decode(c);
    while (dec.decodeQueueSize > 8) { await tick(); await take(); }
    await take();
  }
  await dec.flush();
  await take();
  const { w, h } = frames[0]!;
  const t0 = frames[0]!.ts;
  const video = await makeVideo({
    width: h, height: w, timestampsUs: frames.map((f) => f.ts - t0), fps: 30,
    // Stored pixel (x, y) of the sideways picture shows upright pixel (w-1-y, x): turning it a
    // quarter clockwise for display brings back the original.
    paint: (i, px) => {
      const src = frames[i]!.rgba;
      for (let y = 0; y < w; y++) for (let x = 0; x < h; x++) {
        const s = (x * w + (w - 1 - y)) * 4, d = (y * h + x) * 4;
        px[d] = src[s]!; px[d + 1] = src[s + 1]!; px[d + 2] = src[s + 2]!; px[d + 3] = 255;
      }
    },
  });
  return withRotation(video, 90);
}

/** Every encoded video chunk of an MP4 and its decoder config, read with no decoding. */
export async function demuxAll(mp4Path: string): Promise<{ chunks: EncodedVideoChunk[]; config: NonNullable<Mp4Demuxer['videoDecoderConfig']> }> {
  const chunks: EncodedVideoChunk[] = [];
  // The async iterator, not demuxAsync + callback: the callback mode can report 'ended' before
  // its last packets arrive (see src/analysis/decoder/child.mjs).
  const demuxer = new Mp4Demuxer({ videoOutput: () => undefined, error: () => undefined });
  await demuxer.load(mp4Path);
  const config = demuxer.videoDecoderConfig!;
  for await (const item of demuxer) if (item.chunkType === 'video' && item.videoChunk) chunks.push(item.videoChunk);
  demuxer.close();
  return { chunks, config };
}

/** The MP4's video stream repeated (stream copy, no re-encoding) until it lasts about `seconds`. */
export async function looped(mp4Path: string, seconds: number): Promise<Buffer> {
  const { chunks, config } = await demuxAll(mp4Path);
  const packets = chunks.map((c) => {
    const data = new Uint8Array(c.byteLength);
    c.copyTo(data);
    return { type: c.type, timestamp: c.timestamp, duration: c.duration ?? 0, data };
  });
  const t0 = Math.min(...packets.map((p) => p.timestamp));
  const span = Math.max(...packets.map((p) => p.timestamp + (p.duration || 33_333))) - t0;
  const muxer = new Mp4Muxer({});
  muxer.addVideoTrack({ codec: config.codec, width: config.codedWidth, height: config.codedHeight, description: config.description });
  for (let loop = 0; loop * span < seconds * 1e6; loop++) {
    for (const p of packets) {
      muxer.addVideoChunk(new EncodedVideoChunk({ type: p.type as 'key' | 'delta', timestamp: p.timestamp - t0 + loop * span, duration: p.duration || undefined, data: p.data }));
    }
  }
  return Buffer.from(muxer.finalize());
}

/**
 * The MP4's video stream (stream copy) with `bytes` of H.264 filler data (NAL unit type 12, which
 * decoders skip) added to each packet: packets the size of a high-bitrate camera's, for what a
 * decoder holds of them, from a clip that was cheap to encode. The frames decode the same.
 */
export async function withFiller(mp4Path: string, bytes: number): Promise<Buffer> {
  const { chunks, config } = await demuxAll(mp4Path);
  const filler = Buffer.alloc(4 + bytes, 0xff);
  filler.writeUInt32BE(bytes, 0);
  filler[4] = 0x0c;
  filler[filler.length - 1] = 0x80;
  const muxer = new Mp4Muxer({});
  muxer.addVideoTrack({ codec: config.codec, width: config.codedWidth, height: config.codedHeight, description: config.description });
  for (const c of chunks) {
    const data = new Uint8Array(c.byteLength);
    c.copyTo(data);
    muxer.addVideoChunk(new EncodedVideoChunk({ type: c.type as 'key' | 'delta', timestamp: c.timestamp, duration: c.duration ?? undefined, data: Buffer.concat([data, filler]) }));
  }
  return Buffer.from(muxer.finalize());
}
