// Same video, same result: the whole engine (sandboxed decoder, pose model, pipeline) on a real
// clip, alone and then many times at once while worker threads burn every core, must give the
// same result byte for byte. The clip is a single squat whose last frames once arrived after the
// decoder's flush on a busy machine, which turned its one valid rep (score 100) into an unfinished
// one (score 80).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createPoseEngine } from '../../src/analysis/index.js';
import { formVideosDir } from '../../bench/shared-videos.js';

const clip = join(formVideosDir, 'kaiakol_squat_correct_005.mp4');

/** A thread that keeps a core busy until told to stop. */
function burner(): Worker {
  return new Worker('const { parentPort } = require("node:worker_threads"); let stop = false; parentPort.on("message", () => { stop = true; });' +
    'const spin = () => { const end = Date.now() + 50; while (Date.now() < end); if (!stop) setImmediate(spin); else process.exit(0); }; spin();', { eval: true });
}

test('a clip analysed alone and under heavy parallel load gives the same result, byte for byte', { skip: !existsSync(clip) && `clip not found: ${clip}`, timeout: 600_000 }, async () => {
  const input = { videoPath: clip, exerciseId: 'squat' };
  const quiet = JSON.stringify(await createPoseEngine().analyzeWithPose(input));
  const burners = Array.from({ length: availableParallelism() * 2 }, burner);
  try {
    // Two engines (separate model sessions) and several analyses per engine, all at once.
    const engines = [createPoseEngine(), createPoseEngine()];
    const loaded = await Promise.all(Array.from({ length: 6 }, (_, i) => engines[i % 2]!.analyzeWithPose(input)));
    for (const [i, out] of loaded.entries()) assert.equal(JSON.stringify(out), quiet, `run ${i + 1} under load differs from the quiet run`);
  } finally {
    for (const b of burners) b.postMessage('stop');
    await Promise.all(burners.map((b) => new Promise((r) => b.once('exit', r))));
  }
});
