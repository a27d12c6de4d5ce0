// `npm run bench:decode`: the sandboxed decoder (FFmpeg 8 in @napi-rs/webcodecs, one process per
// video under the sandbox) against a native ffmpeg binary doing the same job (same rate, same
// output size, RGB24 to a pipe), clip by clip in the same run. The baseline is the binary named by
// FFMPEG_BASELINE (e.g. the 2018 build this project used to ship) or `ffmpeg` on PATH; without
// one only the new decoder's figures are printed.
//
// First, the colour conversion alone (issue 22n): the decoder's 4:2:0 -> RGB kernel in WebAssembly
// (convert.mjs, wasm/i420.ts) against the JavaScript kernel it replaced (test/support/
// convert-reference.mjs), on the first decoded frames of each clip, upright and turned a quarter,
// in turn in the same minutes: CPU ms a frame and the ratio, and whether the bytes are the same.
// `-- --convert-only` stops after it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeFrames, defaultDecodeOptions, outputSize, probe } from '../src/analysis/decode.js';
import { decoderVersion, networkIsolation } from '../src/analysis/decoder/sandbox.js';
import { VideoDecoder, type VideoFrame } from '@napi-rs/webcodecs';
import { cachedPlan, coefficients, convertFrame, type FrameLike, type PlaneLayout } from '../src/analysis/decoder/convert.mjs';
import { referenceI420 } from '../test/support/convert-reference.mjs';
import { demuxAll, makeVideo } from '../test/support/videos.js';
import { loadLabels, videosDir } from './eval.js';

function baselineBinary(): string | undefined {
  const candidate = process.env.FFMPEG_BASELINE || 'ffmpeg';
  const r = spawnSync(candidate, ['-version'], { encoding: 'utf8' });
  return r.status === 0 ? candidate : undefined;
}

function baselineDecode(bin: string, path: string, fps: number, w: number, h: number): Promise<{ ms: number; frames: number }> {
  const t0 = performance.now();
  const c = spawn(bin, ['-v', 'error', '-nostdin', '-i', path, '-an', '-sn', '-vf', `fps=${fps}:eof_action=pass,scale=${w}:${h}:flags=bilinear`, '-pix_fmt', 'rgb24', '-f', 'rawvideo', 'pipe:1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let bytes = 0;
  c.stdout.on('data', (d: Buffer) => { bytes += d.length; });
  return new Promise((resolve) => c.on('close', () => resolve({ ms: performance.now() - t0, frames: bytes / (w * h * 3) })));
}

async function newDecode(path: string): Promise<{ ms: number; frames: number; videoMs: number; w: number; h: number; fps: number }> {
  const t0 = performance.now();
  const info = await probe(path);
  let frames = 0;
  for await (const _f of decodeFrames(path, info)) frames++;
  const { width: w, height: h } = outputSize(info, defaultDecodeOptions.maxSide);
  return { ms: performance.now() - t0, frames, videoMs: info.durationMs, w, h, fps: Math.min(defaultDecodeOptions.fps, info.fps || defaultDecodeOptions.fps) };
}

async function clips(tmp: string): Promise<string[]> {
  const labels = loadLabels();
  if (labels) return labels.map((l) => join(videosDir, l.file));
  console.log(`(no shared clips at ${videosDir}: using generated 720p and 1080p clips)`);
  const out: string[] = [];
  for (const [w, h] of [[1280, 720], [1920, 1080]] as const) {
    const p = join(tmp, `gen-${h}p.mp4`);
    writeFileSync(p, await makeVideo({ width: w, height: h, frames: 300, fps: 30, paint: (i, px) => { for (let k = 0; k < px.length; k += 4) px[k] = (k / 4 + i * 7) & 255; } }));
    out.push(p);
  }
  return out;
}

/** The first `n` frames of an MP4 as 4:2:0 planes (other layouts and undecodable clips give none). */
async function firstFrames(path: string, n: number): Promise<{ frame: FrameLike; bytes: Uint8Array; layout: PlaneLayout[] }[]> {
  const { chunks, config } = await demuxAll(path);
  const decoded: VideoFrame[] = [];
  const decoder = new VideoDecoder({ output: (f) => decoded.push(f), error: () => undefined });
  try {
    decoder.configure({ ...config, hardwareAcceleration: 'prefer-software' });
    for (const c of chunks.slice(0, 3 * n)) decoder.decode(c);
    await decoder.flush();
  } catch {
    return [];
  } finally {
    if (decoder.state !== 'closed') decoder.close();
  }
  const out = [];
  for (const f of decoded.slice(0, n)) {
    if (f.format === 'I420') {
      const bytes = new Uint8Array(f.allocationSize());
      const layout = await f.copyTo(bytes);
      const w = f.visibleRect?.width || f.codedWidth, h = f.visibleRect?.height || f.codedHeight;
      const colorSpace = { matrix: f.colorSpace?.matrix ?? null, fullRange: f.colorSpace?.fullRange ?? null };
      out.push({
        bytes, layout,
        frame: { format: 'I420', codedWidth: w, codedHeight: h, visibleRect: { width: w, height: h }, colorSpace,
          allocationSize: () => bytes.length, copyTo: async (d: Uint8Array) => { d.set(bytes); return layout; } },
      });
    }
    f.close();
  }
  return out;
}

const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

/** Conversion CPU ms a frame, JavaScript kernel against wasm, per clip, upright and turned a quarter. */
async function kernels(paths: string[], framesPerClip = 6, rounds = 3): Promise<void> {
  const rows = [['clip', 'turn', 'output', 'JS ms/frame', 'wasm ms/frame', 'wasm/JS', 'same bytes']];
  const total = { js: 0, wasm: 0, frames: 0 };
  for (const path of paths) {
    const frames = await firstFrames(path, framesPerClip);
    if (!frames.length) continue;
    const { codedWidth: w, codedHeight: h } = frames[0]!.frame;
    for (const rotation of [0, 90]) {
      const dw = rotation ? h : w, dh = rotation ? w : h;
      const { width: ow, height: oh } = outputSize({ width: dw, height: dh, fps: 0, durationMs: 0 }, defaultDecodeOptions.maxSide);
      const plan = cachedPlan(w, h, rotation, ow, oh);
      const js = new Uint8ClampedArray(ow * oh * 3);
      let wasm: Buffer = Buffer.alloc(0);
      // The old path copied the planes into a scratch buffer, then converted: so does the baseline here.
      const scratch = new Uint8Array(frames[0]!.bytes.length);
      let same = true, jsMs = 0, wasmMs = 0;
      for (let r = 0; r < rounds; r++) {
        let t = cpuMs();
        for (const f of frames) { scratch.set(f.bytes); referenceI420(scratch, f.layout, coefficients(f.frame.colorSpace), plan, ow, oh, js); }
        jsMs += cpuMs() - t;
        t = cpuMs();
        for (const f of frames) wasm = await convertFrame(f.frame, rotation, ow, oh);
        wasmMs += cpuMs() - t;
        same &&= Buffer.from(js.buffer).equals(wasm);
      }
      const n = rounds * frames.length;
      total.js += jsMs; total.wasm += wasmMs; total.frames += n;
      rows.push([path.split('/').pop()!, String(rotation), `${ow}x${oh}`, (jsMs / n).toFixed(2), (wasmMs / n).toFixed(2), (wasmMs / jsMs).toFixed(2), same ? 'yes' : 'NO']);
    }
  }
  printTable(rows);
  console.log(`\nconversion, all clips: JS ${(total.js / total.frames).toFixed(2)} ms of CPU a frame, wasm ${(total.wasm / total.frames).toFixed(2)}: ratio wasm/JS ${(total.wasm / total.js).toFixed(2)}\n`);
}

/** The whole decoder on each clip, against the baseline binary if there is one. */
async function decoders(paths: string[]): Promise<void> {
  const rows = [['clip', 'video s', 'frames', 'new s', 'new RTF', 'baseline s', 'new/baseline']];
  let vid = 0, tNew = 0, tBase = 0;
  for (const path of paths) {
    const n = await newDecode(path);
    const b = bin ? await baselineDecode(bin, path, n.fps, n.w, n.h) : undefined;
    vid += n.videoMs; tNew += n.ms; tBase += b?.ms ?? 0;
    rows.push([path.split('/').pop()!, (n.videoMs / 1000).toFixed(1), `${n.frames}${b && b.frames !== n.frames ? `/${b.frames}` : ''}`, (n.ms / 1000).toFixed(2), (n.videoMs / n.ms).toFixed(1),
      b ? (b.ms / 1000).toFixed(2) : '-', b ? (n.ms / b.ms).toFixed(2) : '-']);
  }
  printTable(rows);
  console.log(`\nall clips: ${(vid / 1000).toFixed(1)} s of video; new decoder ${(tNew / 1000).toFixed(1)} s (RTF ${(vid / tNew).toFixed(1)})` +
    (bin ? `; baseline ${(tBase / 1000).toFixed(1)} s (RTF ${(vid / tBase).toFixed(1)}); time ratio new/baseline ${(tNew / tBase).toFixed(2)}` : ''));
}

function printTable(rows: string[][]): void {
  const w = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((x, c) => (c === 0 ? x.padEnd(w[c]!) : x.padStart(w[c]!))).join('  '));
}

const v = decoderVersion();
const bin = baselineBinary();
const baseVersion = bin ? spawnSync(bin, ['-version'], { encoding: 'utf8' }).stdout.split('\n')[0] : undefined;
console.log(`new decoder: FFmpeg ${v.ffmpeg} (${v.package}), sandboxed (network: ${networkIsolation().kind}); output ${defaultDecodeOptions.fps} fps, longest side ${defaultDecodeOptions.maxSide}px`);
console.log(`baseline: ${baseVersion ?? 'none (set FFMPEG_BASELINE to a native ffmpeg binary)'}\n`);
const tmp = mkdtempSync(join(tmpdir(), 'bench-decode-'));
try {
  const paths = await clips(tmp);
  await kernels(paths);
  if (!process.argv.includes('--convert-only')) await decoders(paths);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
