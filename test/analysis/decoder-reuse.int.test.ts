// One decoder process for a partner's successive videos (decoder/lifecycle.ts, child.mjs serve):
// the frames are those of a process per video; a video that fails, is killed or is abandoned ends
// its process and the next video gets a fresh one; another partner's video never reaches it; and
// between videos its sandbox holds no input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { keepDecoderWarm, lastDecoderPid, openVideo } from '../../src/analysis/decode.js';
import { VideoProcessingError } from '../../src/analysis/engine.js';
import { confinement, INSIDE_INPUT } from '../../src/analysis/decoder/confine.js';
import { decoderChannel } from '../../src/analysis/decoder/framing.js';
import { spawnWarmDecoder } from '../../src/analysis/decoder/sandbox.js';
import { videoFiles } from '../support/video-files.js';
import { makeVideo, withDeclaredDuration } from '../support/videos.js';

const { dir, file } = videoFiles('decoder-reuse-test-');

/** Every frame of `path` (deep copies: a yielded frame's buffer is reused), and the decoder's pid. */
async function decodeAll(path: string, scope?: string, onFrame?: (i: number) => void) {
  const { info, frames } = await openVideo(path, { fps: 12, maxSide: 960 }, undefined, scope);
  const pid = lastDecoderPid;
  const out: unknown[] = [];
  for await (const f of frames) {
    onFrame?.(out.length);
    out.push(structuredClone(f));
  }
  return { info, frames: out, pid };
}

const alive = (pid: number | undefined) => pid !== undefined && existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');

/** Waits for a process to be gone (killed processes are reaped asynchronously). */
async function gone(pid: number | undefined) {
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 25));
  return !alive(pid);
}

const clips = async () => ({
  a: file(await makeVideo({ width: 96, height: 64, frames: 20, fps: 24 })),
  b: file(await makeVideo({ width: 128, height: 72, frames: 30, fps: 30, paint: (i, px) => px.fill(i * 8) })),
  c: file(await makeVideo({ width: 64, height: 48, frames: 12, fps: 10 })),
});

test('two videos of one partner through one process give exactly the frames of a process each', async (t) => {
  const { a, b, c } = await clips();
  // A process per video: no keeping.
  const separate = [await decodeAll(a, 'key_1'), await decodeAll(b, 'key_1'), await decodeAll(c, 'key_1')];
  assert.equal(new Set(separate.map((s) => s.pid)).size, 3);
  keepDecoderWarm(true);
  t.after(() => keepDecoderWarm(false));
  const reused = [await decodeAll(a, 'key_1'), await decodeAll(b, 'key_1'), await decodeAll(c, 'key_1'), await decodeAll(a, 'key_1')];
  assert.equal(new Set(reused.map((r) => r.pid)).size, 1, 'one decoder process for the partner\'s four videos');
  assert.ok(alive(reused[0]!.pid), 'kept for the next video');
  for (const [i, s] of [...separate, separate[0]!].entries()) {
    assert.deepEqual(reused[i]!.info, s.info, `video ${i}: the same description`);
    assert.ok(s.frames.length > 0);
    assert.deepEqual(reused[i]!.frames, s.frames, `video ${i}: the same frames, byte for byte`);
  }
});

test('a video that fails, a decoder killed mid-video, or a video abandoned: that process ends, and the next video gets a fresh one with the right frames', async (t) => {
  const { a, b } = await clips();
  const expected = await decodeAll(b);
  keepDecoderWarm(true);
  t.after(() => keepDecoderWarm(false));
  const first = await decodeAll(a, 'key_1');

  // Killed from outside while it decodes (a crash).
  await assert.rejects(decodeAll(b, 'key_1', (i) => { if (i === 3) process.kill(lastDecoderPid!, 'SIGKILL'); }), (e) => e instanceof VideoProcessingError);
  assert.ok(await gone(first.pid), 'the crashed process is gone');
  const afterCrash = await decodeAll(b, 'key_1');
  assert.notEqual(afterCrash.pid, first.pid);
  assert.deepEqual(afterCrash.frames, expected.frames, 'the next video is whole');

  // A hostile video (declares 2 s, decodes on far past it) fails in the reused process.
  const bomb = file(withDeclaredDuration(await makeVideo({ width: 32, height: 32, frames: 3600, fps: 1, gop: 600 }), 2));
  await assert.rejects(decodeAll(bomb, 'key_1'), (e) => e instanceof VideoProcessingError && /declared length/.test(e.message));
  assert.equal(lastDecoderPid, afterCrash.pid, 'the bomb went to the partner\'s kept process');
  assert.ok(await gone(afterCrash.pid), 'which is not kept after failing');
  const afterBomb = await decodeAll(b, 'key_1');
  assert.notEqual(afterBomb.pid, afterCrash.pid);
  assert.deepEqual(afterBomb.frames, expected.frames);

  // Abandoned after two frames (the engine stopped reading): killed, not kept half-way.
  const { frames } = await openVideo(b, { fps: 12, maxSide: 960 }, undefined, 'key_1');
  const abandoned = lastDecoderPid;
  assert.equal(abandoned, afterBomb.pid);
  let seen = 0;
  for await (const _ of frames) if (++seen === 2) break;
  assert.ok(await gone(abandoned), 'an abandoned video\'s process is ended');
  const afterAbandon = await decodeAll(b, 'key_1');
  assert.notEqual(afterAbandon.pid, abandoned);
  assert.deepEqual(afterAbandon.frames, expected.frames);
});

test('another partner\'s video never reaches a process that decoded this partner\'s: it gets another, and the first is killed', async (t) => {
  const { a, b } = await clips();
  keepDecoderWarm(true);
  t.after(() => keepDecoderWarm(false));
  const one = await decodeAll(a, 'key_1');
  const two = await decodeAll(b, 'key_2');
  assert.notEqual(two.pid, one.pid);
  assert.ok(await gone(one.pid), 'key_1\'s process is ended once key_2\'s video comes');
  const back = await decodeAll(a, 'key_1');
  assert.notEqual(back.pid, one.pid);
  assert.notEqual(back.pid, two.pid);
  // A video without a scope is its process's last.
  const loose = await decodeAll(a);
  const next = await decodeAll(a);
  assert.notEqual(next.pid, loose.pid);
  assert.ok(await gone(loose.pid));
});

test('between videos a reused decoder\'s root holds no input; during one, only that video; another scope is refused', async (t) => {
  const c = confinement();
  if (!c.mount) return t.skip(`no mount confinement on this machine (${c.describe})`);
  const { a, b } = await clips();
  const stages = join(dir, 'stages');
  mkdirSync(stages);
  process.env.DECODER_STAGE_DIR = stages;
  t.after(() => { delete process.env.DECODER_STAGE_DIR; });
  const channel = await decoderChannel();
  const w = spawnWarmDecoder(1024, channel);
  t.after(() => w.dispose());
  await started(w.pid!);
  const out = channel.output; // one reader for the process's whole output
  const root = `/proc/${w.pid}/root`;
  const limits = { budgetMs: 60_000, maxRssMb: 1024 };
  for (const [i, path] of [a, b].entries()) {
    assert.deepEqual(readdirSync(join(root, 'input')), [], `before video ${i}: no input`);
    const d = await w.assign(path, limits, 'key_1');
    assert.ok(d, `video ${i} assigned`);
    assert.deepEqual(readdirSync(join(root, 'input')), ['video']);
    assert.ok(readFileSync(join(root, INSIDE_INPUT)).equals(readFileSync(path)), `video ${i} is the one shown`);
    assert.equal(await w.assign(a, limits, 'key_1'), undefined, 'busy: no second video at once');
    const info = JSON.parse((await out.line())!) as { width: number; height: number };
    d!.child.stdin!.write(JSON.stringify([12, info.width, info.height, 60_000]) + '\n');
    let frames = 0;
    while (await out.frame(new Uint8Array(info.width * info.height * 3))) frames++;
    assert.ok(out.ended && frames > 0, `video ${i}: frames, then its end record`);
    d!.finish();
    assert.deepEqual(readdirSync(join(root, 'input')), [], `after video ${i}: its link has left the stage`);
  }
  assert.equal(await w.assign(a, limits, 'key_2'), undefined, 'another scope is refused');
  assert.equal(await w.assign(a, limits, undefined), undefined, 'so is none');
  assert.equal(w.scope, 'key_1');
});

/** The warm decoder's Node, once unshare, the set-up shell and setpriv have exec'd into it. */
async function started(pid: number) {
  for (let i = 0; ; i++) {
    try {
      if (readlinkSync(`/proc/${pid}/exe`).endsWith('/node') && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('serve')) return;
    } catch {
      // between two execs
    }
    assert.ok(i < 400, 'the warm decoder did not start');
    await new Promise((r) => setTimeout(r, 25));
  }
}
