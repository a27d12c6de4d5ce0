// The whole engine (ffmpeg, MoveNet, pipeline) on real clips. The shared clips live outside the
// repository; without them those tests are reported as skipped by name, never silently dropped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Value } from '@sinclair/typebox/value';
import { createPoseEngine } from '../../src/analysis/index.js';
import { VideoProcessingError } from '../../src/analysis/engine.js';
import { AnalysisResultSchema } from '../../src/analysis/result.js';
import { loadLabels, videosDir } from '../../bench/eval.js';

const engine = createPoseEngine();
const labels = loadLabels();
const noVideos = `shared clips not found at ${videosDir}`;
const ffmpeg = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
const tmp = mkdtempSync(join(tmpdir(), 'engine-e2e-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

if (!labels) {
  test('labeled shared clips: valid repetitions equal the labeled count', { skip: noVideos }, () => {});
  test('the same file gives the same result (determinism)', { skip: noVideos }, () => {});
} else {
  // Every clip is counted exactly today; a regression shows up here as a named failure.
  for (const l of labels) {
    test(`${l.file} (${l.exercise}, ${l.camera_angle ?? '?'} view): exactly ${l.reps} valid repetitions`, async () => {
      const result = await engine.analyze({ videoPath: join(videosDir, l.file), exerciseId: l.exercise });
      assert.ok(Value.Check(AnalysisResultSchema, result), 'result matches the SPEC schema');
      assert.equal(result.repetitions.filter((r) => r.is_valid_rep).length, l.reps);
      const n = result.overall_feedback.key_improvement_areas.length;
      assert.ok(n >= 2 && n <= 3);
      if (l.camera_angle) assert.equal(result.overall_feedback.visibility_context.camera_angle, l.camera_angle);
    });
  }
  test('the same file gives the same result (determinism)', async () => {
    // The smallest clip keeps the double run cheap.
    const l = [...labels].sort((a, b) => statSync(join(videosDir, a.file)).size - statSync(join(videosDir, b.file)).size)[0]!;
    const input = { videoPath: join(videosDir, l.file), exerciseId: l.exercise };
    assert.deepEqual(await engine.analyze(input), await engine.analyze(input));
  });
}

test('a file that is not a video fails with VideoProcessingError (video_processing_failed)', async () => {
  const bad = join(tmp, 'not-a-video.mp4');
  writeFileSync(bad, 'this is text, not an mp4');
  await assert.rejects(engine.analyze({ videoPath: bad, exerciseId: 'squat' }), VideoProcessingError);
});

test('a video with no person gives no repetitions and filming advice in 2-3 key areas', async () => {
  const empty = join(tmp, 'empty.mp4');
  execFileSync(ffmpeg, ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=gray:s=320x240:d=3:r=10', '-pix_fmt', 'yuv420p', empty]);
  const result = await engine.analyze({ videoPath: empty, exerciseId: 'push-up' });
  assert.ok(Value.Check(AnalysisResultSchema, result));
  assert.deepEqual(result.repetitions, []);
  const areas = result.overall_feedback.key_improvement_areas;
  assert.ok(areas.length >= 2 && areas.length <= 3);
  assert.equal(areas[0]!.category, 'setup');
});
