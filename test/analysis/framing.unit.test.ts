// The engine's reader of a decoder's output (decoder/framing.ts), fed here through the decoder's
// end of a real channel (a Unix socket pair) in any chunking: a description line, frame records
// read into the caller's buffers, the end record, then the next video's line; a record of the wrong
// size, an output that ends mid-frame and a line too long all end the reader.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import type { TestContext } from 'node:test';
import { decoderChannel } from '../../src/analysis/decoder/framing.js';

const record = (payload: Uint8Array) => {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(payload.length);
  return Buffer.concat([head, payload]);
};
/** A channel whose decoder end is closed when the test ends, passed or not. */
async function channel(t: TestContext) {
  const c = await decoderChannel();
  t.after(() => c.stdout.destroy());
  return c;
}
const frameOf = (size: number, seed: number) => Uint8Array.from({ length: size }, (_, i) => (i * 31 + seed * 7) & 255);

/** Writes `bytes` in pieces of the sizes `cuts` gives, each after the last has been handed on. */
async function writeIn(s: Socket, bytes: Buffer, cuts: (i: number) => number) {
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const n = Math.max(1, Math.min(bytes.length - at, cuts(i)));
    await new Promise<void>((r) => s.write(bytes.subarray(at, at + n), () => r()));
    at += n;
  }
}

for (const [name, cuts] of [
  ['whole', () => 1 << 30],
  ['in 1-byte pieces around the records', (i: number) => (i % 3 === 0 ? 1 : 5000)],
  ['in odd pieces', (i: number) => [3, 70_001, 2, 9, 65_536][i % 5]!],
] as const) {
  test(`two videos' lines and frames arrive intact, written ${name}`, { timeout: 30_000 }, async (t) => {
    const { stdout, output } = await channel(t);
    const size = 150_000;
    const videos = [[1, 2, 3], [4, 5]].map((seeds) => seeds.map((s) => frameOf(size, s)));
    const bytes = Buffer.concat(videos.flatMap((frames, v) => [
      Buffer.from(`{"video":${v}}\n`), ...frames.map(record), Buffer.alloc(4),
    ]));
    const writing = writeIn(stdout, bytes, cuts);
    for (const [v, frames] of videos.entries()) {
      assert.equal(await output.line(), `{"video":${v}}`);
      assert.equal(output.ended, false);
      // Two buffers handed over at once, the next only once one is read: as decode.ts does.
      const buffers = [new Uint8Array(size), new Uint8Array(size)];
      const filled = buffers.map((b) => output.frame(b));
      for (let i = 0; ; i++) {
        const ok = await filled[i % 2]!;
        if (!ok) {
          assert.equal(i, frames.length, `video ${v}: every frame, then the end`);
          break;
        }
        assert.deepEqual(buffers[i % 2], frames[i], `video ${v}, frame ${i}`);
        filled[i % 2] = output.frame(buffers[i % 2]!);
      }
      assert.equal(output.ended, true);
      assert.equal(await output.frame(new Uint8Array(size)), false, 'no frame after the end record');
    }
    await writing;
  });
}

test('a consumer slower than the decoder gets every frame (reading pauses and resumes)', { timeout: 30_000 }, async (t) => {
  const { stdout, output } = await channel(t);
  const size = 300_000;
  const frames = [1, 2, 3, 4, 5, 6].map((s) => frameOf(size, s));
  const writing = writeIn(stdout, Buffer.concat([Buffer.from('{}\n'), ...frames.map(record), Buffer.alloc(4)]), () => 1 << 30);
  assert.equal(await output.line(), '{}');
  const buf = new Uint8Array(size);
  for (const [i, f] of frames.entries()) {
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await output.frame(buf), true);
    assert.deepEqual(buf, f, `frame ${i}`);
  }
  assert.equal(await output.frame(buf), false);
  assert.equal(output.ended, true);
  await writing;
});

test('a record of another size, an output ended mid-frame and a line too long end the reader', { timeout: 30_000 }, async (t) => {
  {
    const { stdout, output } = await channel(t);
    stdout.write(Buffer.concat([Buffer.from('{}\n'), record(frameOf(10, 1))]));
    assert.equal(await output.line(), '{}');
    assert.equal(await output.frame(new Uint8Array(12)), false);
    assert.equal(output.ended, false, 'not the video\'s end: a broken output');
    assert.equal(await output.line(), undefined);
  }
  {
    const { stdout, output } = await channel(t);
    stdout.end(Buffer.concat([Buffer.from('{}\n'), record(frameOf(1000, 1)).subarray(0, 600)]));
    assert.equal(await output.line(), '{}');
    assert.equal(await output.frame(new Uint8Array(1000)), false);
    assert.equal(output.ended, false);
  }
  {
    const { stdout, output } = await channel(t);
    stdout.write(Buffer.alloc(70_000, 65));
    assert.equal(await output.line(), undefined);
  }
});
