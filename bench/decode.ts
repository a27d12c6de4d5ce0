// `npm run bench:decode`: the sandboxed decoder (FFmpeg 8 in @napi-rs/webcodecs, one process per
// video under the sandbox) against a native ffmpeg binary doing the same job (same rate, same
// output size, RGB24 to a pipe), clip by clip in the same run. The baseline is the binary named by
// FFMPEG_BASELINE (e.g. the 2018 build this project used to ship) or `ffmpeg` on PATH; without
// one only the new decoder's figures are printed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeFrames, defaultDecodeOptions, outputSize, probe } from '../src/analysis/decode.js';
import { decoderVersion, networkIsolation } from '../src/analysis/decoder/sandbox.js';
import { makeVideo } from '../test/support/videos.js';
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

const v = decoderVersion();
const bin = baselineBinary();
const baseVersion = bin ? spawnSync(bin, ['-version'], { encoding: 'utf8' }).stdout.split('\n')[0] : undefined;
console.log(`new decoder: FFmpeg ${v.ffmpeg} (${v.package}), sandboxed (network: ${networkIsolation().kind}); output ${defaultDecodeOptions.fps} fps, longest side ${defaultDecodeOptions.maxSide}px`);
console.log(`baseline: ${baseVersion ?? 'none (set FFMPEG_BASELINE to a native ffmpeg binary)'}\n`);
const tmp = mkdtempSync(join(tmpdir(), 'bench-decode-'));
try {
  const rows = [['clip', 'video s', 'frames', 'new s', 'new RTF', 'baseline s', 'new/baseline']];
  let vid = 0, tNew = 0, tBase = 0;
  for (const path of await clips(tmp)) {
    const n = await newDecode(path);
    const b = bin ? await baselineDecode(bin, path, n.fps, n.w, n.h) : undefined;
    vid += n.videoMs; tNew += n.ms; tBase += b?.ms ?? 0;
    rows.push([path.split('/').pop()!, (n.videoMs / 1000).toFixed(1), `${n.frames}${b && b.frames !== n.frames ? `/${b.frames}` : ''}`, (n.ms / 1000).toFixed(2), (n.videoMs / n.ms).toFixed(1),
      b ? (b.ms / 1000).toFixed(2) : '-', b ? (n.ms / b.ms).toFixed(2) : '-']);
  }
  const w = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((x, c) => (c === 0 ? x.padEnd(w[c]!) : x.padStart(w[c]!))).join('  '));
  console.log(`\nall clips: ${(vid / 1000).toFixed(1)} s of video; new decoder ${(tNew / 1000).toFixed(1)} s (RTF ${(vid / tNew).toFixed(1)})` +
    (bin ? `; baseline ${(tBase / 1000).toFixed(1)} s (RTF ${(vid / tBase).toFixed(1)}); time ratio new/baseline ${(tNew / tBase).toFixed(2)}` : ''));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
