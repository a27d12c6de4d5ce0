// The sandboxed decoder on videos made at test time: geometry, frame rate, rotation flags, variable
// frame rate, and the limits that stop hostile files (declared size, declared length, budget).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFrames, keepDecoderWarm, openVideo, probe, type Frame } from '../../src/analysis/decode.js';
import { VideoProcessingError } from '../../src/analysis/engine.js';
import { videoFiles } from '../support/video-files.js';
import { makeVideo, withDeclaredDuration, withDeclaredSize, withRotation } from '../support/videos.js';

const { file } = videoFiles('decode-test-');

async function all(path: string, fps = 10): Promise<{ frames: Frame[]; copies: Uint8Array[] }> {
  const info = await probe(path);
  const frames: Frame[] = [];
  const copies: Uint8Array[] = [];
  for await (const f of decodeFrames(path, info, { fps, maxSide: 960 })) {
    frames.push({ ...f, rgb: new Uint8Array(0) });
    copies.push(f.rgb.slice());
  }
  return { frames, copies };
}

/** Upright picture: top half red, bottom half blue, a green stripe on the left edge. */
function paintUpright(px: Uint8Array, w: number, h: number) {
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const i = (y * w + x) * 4;
    const left = x < w / 8;
    px[i] = !left && y < h / 2 ? 220 : 20;
    px[i + 1] = left ? 220 : 20;
    px[i + 2] = !left && y >= h / 2 ? 220 : 20;
    px[i + 3] = 255;
  }
}

/** The same picture stored turned a quarter counter-clockwise (shown upright once turned clockwise). */
function paintSideways(px: Uint8Array, sw: number, sh: number) {
  const w = sh, h = sw;
  const up = new Uint8Array(w * h * 4);
  paintUpright(up, w, h);
  for (let y = 0; y < sh; y++) for (let x = 0; x < sw; x++) {
    const s = (x * w + (w - 1 - y)) * 4, d = (y * sw + x) * 4;
    px.set(up.subarray(s, s + 4), d);
  }
}

function colourAt(rgb: Uint8Array, w: number, x: number, y: number): string {
  const i = (y * w + x) * 3;
  const [r, g, b] = [rgb[i]!, rgb[i + 1]!, rgb[i + 2]!];
  return r > 150 && g < 90 && b < 90 ? 'red' : b > 150 && r < 90 && g < 90 ? 'blue' : g > 150 && r < 90 && b < 90 ? 'green' : `rgb(${r},${g},${b})`;
}

test('a 3 s, 10 fps clip decodes to 30 frames at its own size, evenly timed', async () => {
  const path = file(await makeVideo({ width: 160, height: 120, frames: 30, fps: 10 }));
  const info = await probe(path);
  assert.equal(info.width, 160);
  assert.equal(info.height, 120);
  assert.ok(Math.abs(info.fps - 10) < 0.1, `fps ${info.fps}`);
  assert.ok(Math.abs(info.durationMs - 3000) <= 150, `duration ${info.durationMs}`);
  const { frames } = await all(path);
  assert.equal(frames.length, 30);
  assert.deepEqual(frames.slice(0, 3).map((f) => f.timeMs), [0, 100, 200]);
});

test('a 30 fps source is thinned to 10 fps; a 2 fps source keeps its own rate', async () => {
  const fast = await all(file(await makeVideo({ width: 64, height: 48, frames: 60, fps: 30 })));
  assert.equal(fast.frames.length, 20);
  const slow = file(await makeVideo({ width: 64, height: 48, frames: 6, fps: 2 }));
  assert.ok(Math.abs((await probe(slow)).fps - 2) < 0.1);
  assert.equal((await all(slow)).frames.length, 6);
});

test('a portrait video stored sideways with a 90 degree rotation flag comes out upright', async () => {
  const stored = await makeVideo({ width: 96, height: 64, frames: 5, fps: 10, paint: (_, px, w, h) => paintSideways(px, w, h) });
  const path = file(withRotation(stored, 90));
  const info = await probe(path);
  assert.equal(info.rotation, 90);
  assert.deepEqual([info.width, info.height], [64, 96], 'display size is portrait');
  const { frames, copies } = await all(path);
  const { width: w, height: h } = frames[0]!;
  assert.deepEqual([w, h], [64, 96]);
  const rgb = copies[2]!;
  assert.equal(colourAt(rgb, w, w / 2, h / 4), 'red', 'top half red');
  assert.equal(colourAt(rgb, w, w / 2, (3 * h) / 4), 'blue', 'bottom half blue');
  assert.equal(colourAt(rgb, w, 2, h / 4), 'green', 'stripe on the left');
});

test('180 and 270 degree flags are honoured too', async () => {
  // Stored upright; flagged 180: shown upside down, so the top of the output is blue.
  const upright = await makeVideo({ width: 96, height: 64, frames: 3, fps: 10, paint: (_, px, w, h) => paintUpright(px, w, h) });
  const r180 = await all(file(withRotation(upright, 180)));
  const w = r180.frames[0]!.width, h = r180.frames[0]!.height;
  assert.equal(colourAt(r180.copies[1]!, w, w / 2, h / 4), 'blue');
  assert.equal(colourAt(r180.copies[1]!, w, w - 3, h / 4), 'green', 'stripe moved to the right');
  // Flagged 270: turned a quarter counter-clockwise; the left stripe ends at the bottom.
  const r270 = await all(file(withRotation(upright, 270)));
  const w2 = r270.frames[0]!.width, h2 = r270.frames[0]!.height;
  assert.deepEqual([w2, h2], [64, 96]);
  assert.equal(colourAt(r270.copies[1]!, w2, w2 / 2, h2 - 3), 'green');
});

test('variable frame rate: frames come out evenly spaced at the target rate, gaps filled', async () => {
  // 20 frames at irregular spacing (20-120 ms, then a 1 s gap) over about 2.9 s.
  const ts: number[] = [];
  let t = 0;
  for (let i = 0; i < 20; i++) { ts.push(t); t += i === 10 ? 1_000_000 : 20_000 + ((i * 37_000) % 100_000); }
  const { frames } = await all(file(await makeVideo({ width: 64, height: 48, timestampsUs: ts, fps: 10 })));
  const last = ts[ts.length - 1]! / 1000;
  assert.ok(Math.abs(frames.length - (Math.floor(last / 100) + 1)) <= 1, `${frames.length} frames for ${last} ms`);
  frames.forEach((f, i) => assert.equal(f.timeMs, i * 100));
});

test('a container declaring 30000x30000: the picture the bitstream carries is decoded, never the declared one', async () => {
  // FFmpeg takes the size from the stream's parameter sets (and refuses pictures past its own
  // limit); the decoder process refuses anything over 8192 px a side and is killed past its memory cap.
  const path = file(withDeclaredSize(await makeVideo({ width: 64, height: 48, frames: 3 }), 30000, 30000));
  try {
    const { frames } = await all(path);
    assert.deepEqual([frames[0]!.width, frames[0]!.height], [64, 48]);
  } catch (e) {
    assert.ok(e instanceof VideoProcessingError, String(e));
  }
});

test('a file declaring 2 s that decodes to an hour of frames is stopped at its declared length', async () => {
  const bomb = withDeclaredDuration(await makeVideo({ width: 32, height: 32, frames: 3600, fps: 1, gop: 600 }), 2);
  const path = file(bomb);
  assert.ok(bomb.length < 200_000, `tiny file: ${bomb.length} bytes`);
  const started = Date.now();
  await assert.rejects(async () => { await all(path); }, (e) => e instanceof VideoProcessingError && /declared length|time budget/.test(e.message));
  assert.ok(Date.now() - started < 60_000, 'stopped quickly, not after an hour of frames');
});

test('not a video: zero bytes, random bytes, a playlist, a truncated file all fail as video_processing_failed', async () => {
  const valid = await makeVideo({ width: 64, height: 48, frames: 20, fastStart: true });
  const cases = {
    empty: Buffer.alloc(0),
    random: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) & 255)),
    hls: Buffer.from('#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nhttp://127.0.0.1:9/x.ts\n#EXT-X-ENDLIST\n'),
    cut: valid.subarray(0, Math.floor(valid.length * 0.3)),
  };
  for (const [name, bytes] of Object.entries(cases)) {
    const path = file(bytes);
    await assert.rejects(async () => { await all(path); }, (e) => e instanceof VideoProcessingError, name);
  }
});

test('the time budget is the decoder\'s own: a consumer slower than the budget does not fail a good video', async () => {
  // The pose model drives the pipe. On a loaded machine it holds each frame far longer than the
  // decoder needs, and that wait once failed a good 25 s clip at its 111 s budget.
  // Frames large enough (230 KB) that the pipe and the stream's buffer hold about one of them.
  const path = file(await makeVideo({ width: 320, height: 240, frames: 24, fps: 10 }));
  const info = await probe(path);
  const saved = { base: process.env.DECODE_BUDGET_BASE_SECONDS, factor: process.env.DECODE_BUDGET_FACTOR };
  process.env.DECODE_BUDGET_BASE_SECONDS = '1.5';
  process.env.DECODE_BUDGET_FACTOR = '0.01';
  try {
    let frames = 0;
    const started = Date.now();
    for await (const _ of decodeFrames(path, info, { fps: 10, maxSide: 960 })) {
      frames++;
      await new Promise((r) => setTimeout(r, 150));
    }
    assert.equal(frames, 24);
    assert.ok(Date.now() - started > 3_000, 'the consumer alone took longer than the whole budget');
  } finally {
    for (const [k, v] of [['DECODE_BUDGET_BASE_SECONDS', saved.base], ['DECODE_BUDGET_FACTOR', saved.factor]] as const) {
      if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  }
});

/** The frames of openVideo (one process, probe and decode), copied. */
async function opened(path: string, fps = 10, holdMs = 0) {
  const { info, frames } = await openVideo(path, { fps, maxSide: 960 });
  const out: { frame: Frame; rgb: Uint8Array }[] = [];
  for await (const f of frames) {
    const copy = f.rgb.slice();
    if (holdMs) {
      // A consumer that holds each frame a while (the pose model): the next frame is read from the
      // pipe meanwhile, and must not land in the buffer it holds.
      await new Promise((r) => setTimeout(r, holdMs));
      assert.ok(Buffer.from(f.rgb).equals(Buffer.from(copy)), `frame ${f.index} unchanged while held`);
    }
    out.push({ frame: { ...f, rgb: new Uint8Array(0) }, rgb: copy });
  }
  return { info, out };
}

test('openVideo (one decoder process describes, then streams) gives exactly what probe + decodeFrames give, started for the video or warm', async (t) => {
  const path = file(withRotation(await makeVideo({ width: 96, height: 64, frames: 25, fps: 30, paint: (_, px, w, h) => paintSideways(px, w, h) }), 90));
  const info = await probe(path);
  const two = await all(path, 12);
  const check = async (label: string, holdMs = 0) => {
    const one = await opened(path, 12, holdMs);
    assert.deepEqual(one.info, info, `${label}: the same description`);
    assert.deepEqual(one.out.map((o) => o.frame), two.frames, `${label}: the same frames`);
    one.out.forEach((o, i) => assert.ok(Buffer.from(o.rgb).equals(Buffer.from(two.copies[i]!)), `${label}: frame ${i} byte for byte`));
  };
  await check('started for it');
  keepDecoderWarm(true);
  t.after(() => keepDecoderWarm(false));
  for (let i = 0; i < 3; i++) await check(`warm, video ${i + 1}`);
  await check('warm, a slow consumer', 40);
});

test('openVideo, warm: hostile files fail as they do otherwise, and the next video is still served', async (t) => {
  keepDecoderWarm(true);
  t.after(() => keepDecoderWarm(false));
  const valid = await makeVideo({ width: 64, height: 48, frames: 20, fastStart: true });
  const bomb = withDeclaredDuration(await makeVideo({ width: 32, height: 32, frames: 3600, fps: 1, gop: 600 }), 2);
  for (const [name, bytes] of Object.entries({ random: Buffer.from('not a video at all'), cut: valid.subarray(0, Math.floor(valid.length * 0.3)), bomb })) {
    await assert.rejects(async () => { await opened(file(bytes)); }, (e) => e instanceof VideoProcessingError, name);
  }
  const path = file(valid);
  const good = await opened(path);
  assert.equal(good.out.length, (await all(path)).frames.length);
  assert.ok(good.out.length > 0);
});
