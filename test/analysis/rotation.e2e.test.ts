// A phone's portrait video: the shared 4-rep push-up clip stored sideways with a 90 degree rotation
// flag (as phones store it) must be analysed upright and count the same as the original.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPoseEngine } from '../../src/analysis/index.js';
import { probe } from '../../src/analysis/decode.js';
import { videosDir } from '../../bench/eval.js';
import { storedSideways } from '../support/videos.js';

const clip = join(videosDir, 'pushup_side_homegym.mp4');

test('the push-up clip with a 90 degree rotation flag is analysed upright: the same valid reps as the original', { skip: existsSync(clip) ? false : `shared clip not found at ${clip}` }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rotation-e2e-'));
  try {
    const rotated = join(dir, 'portrait.mp4');
    writeFileSync(rotated, await storedSideways(clip));
    const info = await probe(rotated);
    assert.equal(info.rotation, 90);
    const engine = createPoseEngine();
    const valid = async (path: string) => (await engine.analyze({ videoPath: path, exerciseId: 'push-up' })).repetitions.filter((r) => r.is_valid_rep).length;
    const original = await valid(clip);
    assert.equal(original, 4);
    assert.equal(await valid(rotated), original);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
