// The decoder's memory on a 4K video (issue 22za): most phones film 3840x2160, and FFmpeg hands
// over frames at that size (12.4 MB each in 4:2:0) whatever size the engine asks for. FFmpeg's
// frame pool keeps as many pictures as were ever alive at once, and a frame's native memory is
// freed only when V8 collects its handle (decoder/child.mjs, `collector`): collected every 32
// packets, as at full HD, a 4K decoder held ~20 pictures more than it needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFrames, lastDecoderPeakRssMb, probe } from '../../src/analysis/decode.js';
import { videoFiles } from '../support/video-files.js';
import { makeVideo } from '../support/videos.js';

const { file } = videoFiles('decode-4k-test-');

test('a 4K video: the decoder holds a few pictures, not one per packet between collections', async () => {
  // 90 frames at 30 fps, 3840x2160, a bar moving across a grey ramp (every frame differs).
  const path = file(await makeVideo({
    width: 3840, height: 2160, frames: 90, fps: 30, gop: 90,
    paint: (i, px, w, h) => {
      for (let y = 0; y < h; y += 1) {
        const row = y * w * 4;
        for (let x = 0; x < w; x++) {
          const v = (x >> 4) + (y >> 4) + 4 * i;
          const bar = Math.abs(x - i * 60) < 40;
          px[row + 4 * x] = bar ? 250 : v & 255; px[row + 4 * x + 1] = (v * 3) & 255; px[row + 4 * x + 2] = bar ? 10 : 128; px[row + 4 * x + 3] = 255;
        }
      }
    },
  }));
  const info = await probe(path);
  assert.deepEqual([info.width, info.height], [3840, 2160]);
  let n = 0;
  for await (const f of decodeFrames(path, info, { fps: 12, maxSide: 960 })) {
    assert.deepEqual([f.width, f.height], [960, 540]);
    n++;
  }
  assert.ok(n >= 25, `${n} frames`);
  // Node and FFmpeg loaded: ~65 MB; the colour kernel's copy of a picture 13 MB; FFmpeg's
  // references and the frames on their way out a few pictures of 12.4 MB more: 209-211 MB (load
  // 6-8). Collected every 32 packets as at full HD, and with the read-ahead packets handed over
  // without a turn of the event loop, the same clip peaked at 257-277 MB.
  assert.ok(lastDecoderPeakRssMb > 0 && lastDecoderPeakRssMb < 245, `decoder peak ${lastDecoderPeakRssMb.toFixed(0)} MB`);
});
