// The decoder's memory on a 4K video (issue 22za): most phones film 3840x2160, and FFmpeg hands
// over frames at that size (12.4 MB each in 4:2:0) whatever size the engine asks for. FFmpeg's
// frame pool keeps as many pictures as were ever alive at once, and a frame's native memory is
// freed only when V8 collects its handle (decoder/child.mjs, `collector`): collected every 32
// packets, as at full HD, a 4K decoder held ~20 pictures more than it needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFrames, lastDecoderPeakRssMb, openVideo, probe } from '../../src/analysis/decode.js';
import { videoFiles } from '../support/video-files.js';
import { makeVideo, withFiller } from '../support/videos.js';

const { file } = videoFiles('decode-4k-test-');
let made: string | undefined;

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
  made = path;
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

test('a 4K video of large packets: the packets read to find its frame rate are not held while it decodes', async () => {
  // The clip above with 2 MB of filler data (NAL units the decoder skips) in each of its 90
  // packets: packets far larger than a camera's (40-60 Mbit/s at 4K: 150-250 KB), so that what a
  // decoder holds of them stands out of the noise. The first 120 packets are read before any is
  // decoded, to find the frame rate: all 90 here. Kept for decoding (as at full HD and below),
  // most were still waiting when FFmpeg's frame pool reached its size, which it keeps for the
  // video: 418 MB (load 8-9). Above full HD they are now dropped as they are read (a collection
  // every 8) and the file opened again for decoding (decoder/child.mjs, `stream`): the test passes
  // at load 10-13; a 60-frame 4K clip with the same filler peaked at 257-287 MB against 350-355.
  assert.ok(made, 'the test above made the clip');
  const path = file(await withFiller(made, 2 << 20));
  // openVideo: the engine's path (`stream`), where the packets are read ahead for the description.
  const { info, frames } = await openVideo(path, { fps: 12, maxSide: 960 });
  assert.deepEqual([info.width, info.height], [3840, 2160]);
  let n = 0;
  for await (const f of frames) {
    assert.deepEqual([f.width, f.height], [960, 540]);
    n++;
  }
  assert.ok(n >= 25, `${n} frames`);
  assert.ok(lastDecoderPeakRssMb > 0 && lastDecoderPeakRssMb < 360, `decoder peak ${lastDecoderPeakRssMb.toFixed(0)} MB`);
});
