// The sandboxed decoder process (plain JavaScript: it runs under Node's permission model, which
// lets it read only this file, the decoder package and the one input, so it cannot load tsx).
// FFmpeg 8 (statically linked inside @napi-rs/webcodecs) demuxes and decodes; this file picks the
// frames at the requested rate, turns them upright and scales them, and writes packed RGB24 to
// stdout. The parent (src/analysis/decode.ts) spawns it, caps its time and memory, and reads.
//
//   child.mjs probe  <path>                                  -> one JSON line (VideoInfo)
//   child.mjs decode <path> <fps> <width> <height> <maxMs>   -> width*height*3 bytes per frame
//   child.mjs stream <path>     -> the probe's JSON line; then reads one line from stdin,
//                                  [fps, width, height, maxMs] (chosen by the parent from that
//                                  description), and writes the frames as framed records (below)
//   child.mjs serve             -> started ahead of its first video (decoder/sandbox.ts, a warm
//                                  decoder): loads FFmpeg, then for each ["stream", path] line on
//                                  stdin does `stream`, and waits for the next; stdin closed ends
//                                  it quietly. The parent hands it only one partner's videos.
//
// Framed records (`stream` and `serve`; decoder/framing.ts reads them): a 4-byte big-endian length,
// then that many bytes of one frame; a length of 0 ends the video without ending the process, so
// one process can decode video after video. A video that fails ends the process (exit codes below).
//
// Exit codes: 0 done; 65 the input is not a decodable video (message on stderr); 70 the decoder
// itself could not be loaded.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { containerOf, videoTrackMatrix, rotationOf } from './container.mjs';
import { convertFrame } from './convert.mjs';

const BAD_INPUT = 65;
const UNAVAILABLE = 70;
/** Largest picture decoded, declared or actual (8K UHD with some margin): a pixel flood stops here. */
const MAX_PIXELS = 8192 * 4608;
const MAX_SIDE = 8192;
/** After flush, how long to wait for frames still owed (see decode): ticks of this many ms ... */
const SETTLE_TICK_MS = 10;
/** ... and how many ticks with no new frame before a chunk is taken to give none. */
const SETTLE_IDLE_TICKS = 300;
/**
 * While FFmpeg holds MAX_QUEUED packets, the loop sleeps until it takes one or hands a frame back
 * (its dequeue and output events wake it); this is only the longest sleep, in case an event is missed.
 */
const QUEUE_WAIT_MS = 5;
/**
 * Packets handed to FFmpeg ahead of the frame being written: enough to keep its frame threads busy,
 * few enough that the frames they decode into while the consumer holds the pipe stay few (16 held
 * 20-30 MB more at 720p). FFmpeg starts one frame thread per core the process may use (plus one
 * when there are several), as availableParallelism counts them (both read the CPU affinity). On one
 * core, as decoder/one-core.ts starts us, its one thread is kept busy by one packet waiting: 4 there
 * held 15-20 MB more at 1080p (issue 22z: the frames decoded ahead reach this loop in bursts, and
 * their handles live through more young collections, so more of them wait for a full one; FFmpeg's
 * frame pool grows to the most frames alive at once and keeps them for the video). Which frames
 * come out does not depend on it.
 */
const MAX_QUEUED = availableParallelism() > 1 ? 4 : 1;

class BadInput extends Error {}

function fail(code, message) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

// If the engine that reads us dies, stop too rather than decode into a closed pipe.
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(1); }, 1000).unref();
process.stdout.on('error', () => process.exit(1));

/**
 * FFmpeg's frames and packets live in native memory that is freed only when V8 collects their
 * JavaScript handles (close() alone does not give it back), and V8 does not see that memory: with
 * a heap of a few MB it seldom collects, and a 17 s 720p clip grew the process to 300 MB. A young
 * generation collection every 4 packets and a full one every 32 (handles that lived through two
 * young collections have moved to the old generation) hold it near 125 MB, at a few ms per second
 * of video (--expose-gc, given by sandbox.ts). Without the flag (a test running this file by
 * hand) nothing changes.
 *
 * Pictures larger than full HD get a full collection every 2 packets (issue 22za). A frame's
 * handle lives through young collections (V8 keeps an object with a native finalizer through a
 * scavenge, and it moves to the old generation), so only a full collection frees its picture, and
 * FFmpeg's frame pool grows to the most pictures alive at once and keeps them for the video. A
 * 3840x2160 picture is 12.4 MB: a `stream` decoder of a 10 s 4K clip (H.264, 30 fps) peaked at
 * 283-303 MB with a full collection every 32 packets, 268 every 4, 242 every 2, 232-233 every
 * packet; a full collection costs ~4-6 ms of CPU here (every packet added ~25% to the decoder's
 * CPU at 4K, every 2 about half that). Full HD and below keep issue 22z's cadence.
 */
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : undefined;
const FULL_HD_PIXELS = 1920 * 1088;
/** The collection to make after the n-th packet of a video whose pictures are `pixels` large. */
const collector = (pixels) => {
  const fullEvery = pixels > FULL_HD_PIXELS ? 2 : 32;
  return (n) => {
    if (gc && n % fullEvery === 0) gc();
    else if (gc && n % 4 === 0) gc({ type: 'minor' });
  };
};

/** Lines from stdin, one at a time; null once stdin has ended. */
function stdinLines() {
  let buf = '';
  let ended = false;
  const waiting = [];
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => {
    buf += d;
    if (buf.length > 65536) fail(2, 'command line too long');
    let i;
    while (waiting.length && (i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      waiting.shift()(line);
    }
  });
  process.stdin.on('end', () => { ended = true; while (waiting.length) waiting.shift()(null); });
  return () => new Promise((resolve) => {
    const i = buf.indexOf('\n');
    if (i >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); resolve(line); }
    else if (ended) resolve(null);
    else waiting.push(resolve);
  });
}

// FFmpeg (a 66 MB addon) loads only once the file has passed the container check: a file that is
// no video is refused without it. A warm decoder (`serve`) loads it while it waits, before it has
// any input at all.
let codecs;
async function loadCodecs() {
  if (codecs) return;
  try {
    codecs = await import('@napi-rs/webcodecs');
  } catch (e) {
    fail(UNAVAILABLE, `decoder unavailable: ${e?.message ?? e}`);
  }
}

/** Reads `length` bytes at `position` (fewer at the end of the file). */
function reader(path) {
  const fd = openSync(path, 'r');
  const size = fstatSync(fd).size;
  return {
    size,
    read(position, length) {
      const buf = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
      if (buf.length) readSync(fd, buf, 0, buf.length, position);
      return buf;
    },
    close: () => closeSync(fd),
  };
}

async function open(path) {
  const file = reader(path);
  let kind, matrix;
  try {
    kind = containerOf(file.read(0, 64));
    if (!kind) throw new BadInput('not a video container we decode (MP4/MOV, WebM or Matroska)');
    matrix = kind === 'mp4' ? videoTrackMatrix(file) : undefined;
  } finally {
    file.close();
  }
  await loadCodecs();
  let demuxError;
  // Packets are read through the async iterator (see decode); the callback is required but unused.
  const init = { videoOutput: (c) => c.close?.(), error: (e) => { demuxError = e; } };
  const demuxer = kind === 'mp4' ? new codecs.Mp4Demuxer(init) : kind === 'webm' ? new codecs.WebMDemuxer(init) : new codecs.MkvDemuxer(init);
  try {
    await demuxer.load(path);
  } catch (e) {
    throw new BadInput(`the container could not be read: ${e?.message ?? e}`);
  }
  const track = demuxer.tracks.find((t) => t.trackType === 'video');
  const config = demuxer.videoDecoderConfig;
  if (!track || !config) throw new BadInput('the file has no video stream');
  const w = config.codedWidth, h = config.codedHeight;
  if (!(w > 0 && h > 0)) throw new BadInput('the video stream declares no picture size');
  if (w > MAX_SIDE || h > MAX_SIDE || w * h > MAX_PIXELS) throw new BadInput(`the picture size ${w}x${h} is larger than the ${MAX_SIDE}px / ${MAX_PIXELS} pixel limit`);
  const durationUs = Number(demuxer.duration ?? track.duration ?? 0);
  return { demuxer, track, config, rotation: rotationOf(matrix), durationUs: Number.isFinite(durationUs) && durationUs > 0 ? durationUs : 0, error: () => demuxError };
}

/** How many of the first video packets the frame rate is estimated from. */
const FPS_PACKETS = 120;

/**
 * The first FPS_PACKETS video packets, read from the demuxer without closing its iterator: `read`
 * holds them, `packets()` gives every video packet of the file, those first, then the rest. With
 * `keep` false, `read` holds only their timestamps (all `describe` reads) and `packets()` must not
 * be used: the caller opens the file again for the packets (see `stream`).
 */
async function readAhead(src, keep = true) {
  const it = src.demuxer[Symbol.asyncIterator]();
  const read = [];
  let ended = false;
  let count = 0;
  while (count < FPS_PACKETS) {
    const next = await it.next();
    if (next.done) { ended = true; break; }
    if (next.value.chunkType === 'video' && next.value.videoChunk) {
      count++;
      read.push(keep ? next.value.videoChunk : { timestamp: next.value.videoChunk.timestamp });
      // A dropped packet's memory is freed only when its handle is collected: without this, all
      // 120 were alive at once at the end of the read (a 4K test clip of 2 MB packets: the
      // decoder's peak 279-362 MB against 257-287 with a collection every 8; ~4-6 ms each).
      if (!keep && count % 8 === 0) gc?.();
    }
  }
  return {
    read,
    async *packets() {
      // A turn of the event loop after each, as the demuxer's own iterator gives (its reads are
      // async): the frames FFmpeg decodes reach `decode` through the event loop, and a loop that
      // never yields gets none of them. Handed out back to back, these 120 packets were all
      // decoded whenever FFmpeg kept up with them (one packet ahead, a collection between two
      // packets), their frames waiting undelivered: at 4K, 62 frames and 1.2 GB (issue 22za).
      while (read.length) {
        yield read.shift();
        await new Promise((r) => setImmediate(r));
      }
      if (ended) return;
      for (let next = await it.next(); !next.done; next = await it.next()) {
        if (next.value.chunkType === 'video' && next.value.videoChunk) yield next.value.videoChunk;
      }
    },
  };
}

/** Frame rate from the first packets' timestamps (median spacing), without decoding. */
function estimateFps(packets) {
  const ts = packets.map((c) => c.timestamp);
  ts.sort((a, b) => a - b);
  const gaps = [];
  for (let i = 1; i < ts.length; i++) if (ts[i] > ts[i - 1]) gaps.push(ts[i] - ts[i - 1]);
  if (!gaps.length) return 0;
  gaps.sort((a, b) => a - b);
  return 1e6 / gaps[gaps.length >> 1];
}

/** The description of an opened video (VideoInfo), its frame rate from its first packets. */
function describe(src, firstPackets) {
  const fps = estimateFps(firstPackets);
  const quarter = src.rotation === 90 || src.rotation === 270;
  const { codedWidth: w, codedHeight: h } = src.config;
  return {
    width: quarter ? h : w, height: quarter ? w : h, fps: Math.round(fps * 1000) / 1000,
    durationMs: Math.round(src.durationUs / 1000), rotation: src.rotation, codec: src.config.codec,
  };
}

async function probe(path) {
  const src = await open(path);
  const { read } = await readAhead(src);
  src.demuxer.close();
  process.stdout.write(JSON.stringify(describe(src, read)) + '\n');
}

/**
 * Probe and decode in one process (the engine's path): the description goes out first, the parent
 * answers with the rate, size and media limit it wants, and the frames follow. One open of the
 * file: the packets read for the description are kept and decoded first, then the rest, so the
 * decoder gets every packet in the order `decode` gives it them (it used to open the file again:
 * ~11 ms of CPU and 15-70 ms before the first frame, per video).
 */
async function stream(path, nextLine) {
  let src = await open(path);
  // Above full HD the packets read for the description are not kept: the file is opened again
  // for decoding and read from its start (issue 22zb). 120 packets of a phone's 4K video are
  // 15-20 MB (40-60 Mbit/s), in native memory until their handles are collected, and most of them
  // were still waiting when FFmpeg's frame pool reached its size, which it keeps for the video: a
  // 4K decoder alone peaked 8-17 MB lower without them (the same frames). The second open costs
  // ~11 ms against ~30 ms of CPU to decode one 4K packet; at full HD and below the packets are a
  // few MB, the peak did not move, and the one open stays.
  const keep = src.config.codedWidth * src.config.codedHeight <= FULL_HD_PIXELS;
  const ahead = await readAhead(src, keep);
  process.stdout.write(JSON.stringify(describe(src, ahead.read)) + '\n');
  if (!keep) { src.demuxer.close(); gc?.(); }
  const line = await nextLine();
  if (line === null) process.exit(0); // the parent wants no frames after all
  const params = JSON.parse(line);
  if (!Array.isArray(params) || params.length !== 4 || !params.every((n) => Number.isFinite(n) && n > 0)) fail(2, 'bad decode parameters');
  const [fps, width, height, maxMs] = params;
  let packets = ahead.packets();
  if (!keep) { src = await open(path); packets = allPackets(src); }
  await decode(src, packets, fps, width, height, maxMs, framedFrames);
}

/** Every video packet of an opened file, in the demuxer's order. */
async function* allPackets(src) {
  for await (const item of src.demuxer) if (item.chunkType === 'video' && item.videoChunk) yield item.videoChunk;
}

/**
 * A warm decoder: FFmpeg loaded while it waits, then a `stream` for each path it is given, one
 * after the other (Node's start, FFmpeg's load and the sandbox's set-up paid once, not per video).
 * Nothing of a video outlives it here: its demuxer and decoder are closed, and a full collection
 * frees FFmpeg's buffers before the next video is read.
 */
async function serve() {
  const nextLine = stdinLines();
  await loadCodecs();
  for (;;) {
    const line = await nextLine();
    if (line === null) process.exit(0);
    const cmd = JSON.parse(line);
    if (!Array.isArray(cmd) || cmd[0] !== 'stream' || typeof cmd[1] !== 'string') fail(2, 'bad command');
    await stream(cmd[1], nextLine);
    gc?.();
  }
}

/**
 * Resolves once `bytes` have all been handed to the pipe (backpressure: the consumer's pace drives
 * the decoding), so the caller may then fill the same buffer with the next frame.
 */
const written = (bytes) => new Promise((r) => process.stdout.write(bytes, r));

/** `decode`: frames back to back, the end of the video is the end of the pipe. */
const rawFrames = {
  frame: written,
  end: () => new Promise((r) => process.stdout.end(r)),
};

/** `stream` and `serve`: each frame behind its length, a zero length at the end of the video. */
const framedFrames = {
  frame(bytes) {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(bytes.length);
    process.stdout.write(head);
    return written(bytes);
  },
  // Resolves once the record is handed to the pipe: `stream` exits right after it.
  end: () => new Promise((r) => process.stdout.write(Buffer.alloc(4), r)),
};

/**
 * H.264 in MP4 prefixes each NAL unit with its length in 1, 2 or 4 bytes (avcC says which); the
 * decoder package only handles 4, so shorter prefixes are widened here. Returns a chunk mapper.
 */
function nalLengthFix(config) {
  const d = config.description;
  if (!/^avc[13]/.test(config.codec) || !d || d.length < 7 || (d[4] & 3) === 3) return (c) => c;
  const size = (d[4] & 3) + 1;
  const desc = new Uint8Array(d);
  desc[4] |= 3;
  config.description = desc;
  return (c) => {
    const src = new Uint8Array(c.byteLength);
    c.copyTo(src);
    const parts = [];
    for (let pos = 0; pos + size <= src.length;) {
      let n = 0;
      for (let i = 0; i < size; i++) n = n * 256 + src[pos + i];
      const nal = src.subarray(pos + size, Math.min(src.length, pos + size + n));
      const len = Buffer.alloc(4);
      len.writeUInt32BE(nal.length);
      parts.push(len, nal);
      pos += size + n;
    }
    return new codecs.EncodedVideoChunk({ type: c.type, timestamp: c.timestamp, duration: c.duration ?? undefined, data: Buffer.concat(parts) });
  };
}

async function decode(src, packets, fps, outW, outH, maxMs, out = rawFrames) {
  const fix = nalLengthFix(src.config);
  const collect = collector(src.config.codedWidth * src.config.codedHeight);
  const interval = 1e6 / fps;
  const limitUs = maxMs * 1000;
  let decodeError;
  const frames = [];
  let sent = 0; // chunks handed to the decoder
  let received = 0; // frames its output callback delivered
  // The decoder's events (a frame out, a packet taken, an error) end a wait (`event`) at once. The
  // loop used to poll with setImmediate while FFmpeg was busy: thousands of turns per video under
  // load, CPU taken from FFmpeg's threads and the engine on the same cores.
  let wake;
  const woken = () => { const w = wake; wake = undefined; w?.(true); };
  /** True when an event came, false when `ms` passed without one. */
  const event = (ms) => new Promise((r) => {
    const timer = setTimeout(() => { wake = undefined; r(false); }, ms);
    wake = (v) => { clearTimeout(timer); r(v); };
  });
  const decoder = new codecs.VideoDecoder({ output: (f) => { received++; frames.push(f); woken(); }, error: (e) => { decodeError = e; woken(); } });
  decoder.ondequeue = woken;
  try {
    decoder.configure({ ...src.config, hardwareAcceleration: 'prefer-software' });
  } catch (e) {
    throw new BadInput(`the video codec is not supported: ${src.config.codec}`);
  }

  // Output ticks every `interval` from the first frame; each tick shows the decoded frame nearest
  // to it (so variable frame rate input comes out evenly spaced, like FFmpeg's fps filter).
  let start;
  let next = 0;
  let prev; // { frame, t }
  let emitted = 0;
  // A frame is converted when first emitted, into convert.mjs's own buffer (for 4:2:0 the kernel's
  // memory, written to the pipe from there), and not again for a tick that shows the same frame
  // (its bytes are still there: ticks move forward in time, so once a later frame is shown an
  // earlier one never is). Each write is complete before the next conversion. A new buffer per
  // frame was 1.5 MB of garbage per frame at 960x540.
  let bytes;
  // The decoded frame whose pixels `bytes` holds, by its number (`seq`), not its object: holding
  // the object kept its frame's handle, and so FFmpeg's picture (12.4 MB at 4K), alive until the
  // next frame was shown (issue 22za: 13 MB of a 4K decoder's peak).
  let shown;
  let seqs = 0;
  const emit = async (p) => {
    if (shown !== p.seq) bytes = await convertFrame(p.frame, src.rotation, outW, outH);
    shown = p.seq;
    await out.frame(bytes);
    emitted++;
  };
  const take = async (frame) => {
    const { codedWidth: w, codedHeight: h } = frame;
    if (w > MAX_SIDE || h > MAX_SIDE || w * h > MAX_PIXELS) throw new BadInput(`a frame of ${w}x${h} is larger than the pixel limit`);
    start ??= frame.timestamp;
    const cur = { frame, t: frame.timestamp - start, seq: ++seqs };
    if (cur.t > limitUs) throw new BadInput(`the video decodes past its declared length (${Math.round(maxMs / 1000)} s)`);
    while (prev && next * interval <= cur.t) {
      const tk = next * interval;
      await emit(tk - prev.t <= cur.t - tk ? prev : cur);
      next++;
    }
    if (!prev && next * interval <= cur.t) { await emit(cur); next = Math.floor(cur.t / interval) + 1; }
    if (prev && prev !== cur) prev.frame.close();
    prev = cur;
  };
  const drain = async () => {
    while (frames.length) await take(frames.shift());
  };

  // The demuxer's async iterator hands over each packet as it is read. Its callback mode
  // (demuxAsync + videoOutput) queues packets from another thread and can report 'ended' before
  // the last ones are delivered: under load a clip lost its last four packets, and its last rep.
  for await (const chunk of packets) {
    if (decodeError) break;
    decoder.decode(fix(chunk));
    collect(++sent);
    while (decoder.decodeQueueSize > MAX_QUEUED) { await event(QUEUE_WAIT_MS); await drain(); }
    await drain();
  }
  if (src.error()) throw new BadInput(`demuxing failed: ${src.error().message ?? src.error()}`);
  if (decodeError) throw new BadInput(`decoding failed: ${decodeError.message ?? decodeError}`);
  await decoder.flush();
  // flush() can resolve before the output callbacks of the last frames have run (they are queued
  // from FFmpeg's threads to this one): on a busy machine the last frame or two were lost, and the
  // same file gave a different last rep. Every chunk of a sound stream gives one frame, so wait
  // for all of them; a chunk that gives none (a damaged stream) is waited for only while frames
  // keep arriving, so a slow machine waits longer but never cuts the tail short. A frame's arrival
  // ends the wait at once (it used to be noticed at the next 10 ms tick, a core idle meanwhile).
  for (let idle = 0; received < sent && idle < SETTLE_IDLE_TICKS && !decodeError;) {
    const before = received;
    const came = await event(SETTLE_TICK_MS);
    if (received !== before) idle = 0;
    else if (!came) idle++;
  }
  await drain();
  if (decodeError) throw new BadInput(`decoding failed: ${decodeError.message ?? decodeError}`);
  // Every tick up to the last frame's time was written as frames arrived; FFmpeg's fps filter
  // (eof_action=pass) likewise adds none after the stream's end.
  prev?.frame.close();
  decoder.close();
  src.demuxer.close();
  if (emitted === 0) throw new BadInput('the video has no decodable frames');
  await out.end();
}

const [mode, path, ...rest] = process.argv.slice(2);
try {
  if (mode === 'probe') await probe(path);
  else if (mode === 'stream') await stream(path, stdinLines());
  else if (mode === 'serve') await serve();
  else if (mode === 'decode') {
    const src = await open(path);
    await decode(src, allPackets(src), Number(rest[0]), Number(rest[1]), Number(rest[2]), Number(rest[3]));
  }
  else fail(2, `usage: child.mjs probe|decode|stream PATH ... | serve`);
} catch (e) {
  fail(BAD_INPUT, e instanceof BadInput ? e.message : `the video could not be decoded: ${e?.message ?? e}`);
}
process.exit(0);
