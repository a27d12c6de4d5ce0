// The decoder's 4:2:0 -> RGB kernel (src/analysis/decoder/wasm/i420.ts, compiled to i420.wasm):
// the committed binary is what its source builds to, and its output is byte for byte that of the
// JavaScript kernel it replaced (test/support/convert-reference.mjs), for every rotation, colour matrix
// and range, odd sizes, padded strides, down- and upscaling, and frames of changing size. Poses
// and the pose caches depend on these bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachedPlan, coefficients, convertFrame, type FrameLike, type PlaneLayout } from '../../src/analysis/decoder/convert.mjs';
import { referenceI420 } from '../support/convert-reference.mjs';

const root = join(import.meta.dirname, '..', '..');

test('i420.wasm is what wasm/i420.ts builds to (npm run build:wasm)', () => {
  const script: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts['build:wasm'];
  const [, ...args] = script.split(/\s+/);
  const committed = args[args.indexOf('-o') + 1]!;
  const tmp = mkdtempSync(join(tmpdir(), 'i420-'));
  try {
    const built = join(tmp, 'i420.wasm');
    args[args.indexOf('-o') + 1] = built;
    const asc = createRequire(join(root, 'package.json')).resolve('assemblyscript/bin/asc.js');
    const r = spawnSync(process.execPath, [asc, ...args], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(readFileSync(built), readFileSync(join(root, committed)), 'rebuild i420.wasm: npm run build:wasm');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

/** A 4:2:0 frame of random planes (every byte value, so clamping at both ends is exercised), strides padded. */
function randomFrame(w: number, h: number, colorSpace: FrameLike['colorSpace'], seed: number): { frame: FrameLike; bytes: Uint8Array; layout: PlaneLayout[] } {
  const cw = (w + 1) >> 1, ch = (h + 1) >> 1;
  const ys = w + 7, cs = cw + 5;
  const layout = [{ offset: 0, stride: ys }, { offset: ys * h, stride: cs }, { offset: ys * h + cs * ch, stride: cs }];
  const bytes = new Uint8Array(ys * h + 2 * cs * ch);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    bytes[i] = x & 255;
  }
  const frame: FrameLike = {
    format: 'I420', codedWidth: w, codedHeight: h, visibleRect: { width: w, height: h }, colorSpace,
    allocationSize: () => bytes.length,
    async copyTo(dst) { dst.set(bytes); return layout.map((l) => ({ ...l })); },
  };
  return { frame, bytes, layout };
}

test('the wasm kernel gives the JavaScript kernel\'s bytes: rotations, matrices, ranges, sizes', async () => {
  const spaces: FrameLike['colorSpace'][] = [{ matrix: 'bt709', fullRange: false }, { matrix: 'bt470bg', fullRange: true }, null];
  // [source w, h, longest output side]: downscaled 16:9, odd sizes, upscaled, a big frame then small ones again.
  const sizes: [number, number, number][] = [[1280, 720, 960], [323, 421, 200], [64, 36, 150], [1920, 1080, 960], [90, 160, 90], [1280, 720, 960]];
  let seed = 1;
  for (const [w, h, side] of sizes) {
    for (const rotation of [0, 90, 180, 270]) {
      const colorSpace = spaces[seed % spaces.length];
      const { frame, bytes, layout } = randomFrame(w, h, colorSpace, seed++);
      const quarter = rotation === 90 || rotation === 270;
      const dw = quarter ? h : w, dh = quarter ? w : h;
      const s = side / Math.max(dw, dh);
      const ow = Math.max(2, 2 * Math.round((dw * s) / 2)), oh = Math.max(2, 2 * Math.round((dh * s) / 2));
      const got = await convertFrame(frame, rotation, ow, oh);
      const want = referenceI420(bytes, layout, coefficients(colorSpace), cachedPlan(w, h, rotation, ow, oh), ow, oh);
      assert.ok(got.equals(Buffer.from(want.buffer)), `${w}x${h} turned ${rotation} to ${ow}x${oh}, ${JSON.stringify(colorSpace)}`);
    }
  }
});
