// The whole engine (decode, pose model, pipeline) on real clips. The shared clips live outside the
// repository; without them those tests are reported as skipped by name, never silently dropped.
// Exact counts on every clip we can see is the wrong target (it rewards fitting these clips), so
// each clip must give a schema-valid, honest result within a loose bound, and the set as a whole
// must meet the accuracy figures `npm run eval` prints (bench/eval.ts has the same arithmetic).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { createPoseEngine } from '../../src/analysis/index.js';
import { VideoProcessingError } from '../../src/analysis/engine.js';
import { AnalysisResultSchema } from '../../src/analysis/result.js';
import { exerciseDef } from '../../src/analysis/rules/index.js';
import { figures, loadLabels, videosDir, type ClipRow } from '../../bench/eval.js';
import { makeVideo } from '../support/videos.js';

const engine = createPoseEngine();
const labels = loadLabels()?.filter((l) => exerciseDef(l.exercise));
const noVideos = `shared clips not found at ${videosDir}`;
const tmp = mkdtempSync(join(tmpdir(), 'engine-e2e-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

/**
 * Floors for the whole labelled set, a little under what `npm run eval` measured when they were
 * set (exact 30/36, within one 39/41, angle 38/41 at 12 fps): they catch a regression, they are
 * not the target (the target is clips never seen; see bench/holdout.json and the README).
 */
const FLOOR = { exact: 0.75, within1: 0.9, angle: 0.85 };

/**
 * Clips whose own count bound is not asserted (they still count in the floors above), each with
 * why. A miss on a holdout clip is listed, not examined: looking into it would be tuning on it.
 */
const KNOWN_MISSES: Record<string, string> = {
  'formguard_squat_good_bad_side.mp4': 'two people take turns squatting; the engine follows one person per video',
  'darebee_pushup_diagonal.mp4': 'holdout clip counted outside the bound; left unexamined so that it stays unseen',
  // Checked again with issue 20's counting (a top out of sight, the whole-body fallback): neither
  // applies. Issue 20i's tracker fallback finds the body on 90 of 180 frames (49-64 before), but
  // the landmark model reads a headless torso wrong: 1 valid of 3 attempts.
  'bicep-curl_chauhan08.mp4': 'a chest-to-hips close-up: the head is out of frame throughout, and BlazePose\'s person ' +
    'detector finds a person by the face; the tracker\'s fallback (the landmark model on the whole frame and the last ' +
    'ROI) finds the body on half the frames, but the landmark model puts a face on the dumbbells and the shoulders ' +
    'beside them, from every ROI tried. A pose-model limit, not a counting one',
};

if (!labels) {
  test('labeled shared clips: each gives a schema-valid result near the labeled count', { skip: noVideos }, () => {});
  test('labeled shared clips: exact, within-one and camera-angle rates meet their floors', { skip: noVideos }, () => {});
  test('the same file gives the same result (determinism)', { skip: noVideos }, () => {});
} else {
  const rows: ClipRow[] = [];
  for (const l of labels) {
    const slack = Math.max(2, Math.ceil(l.reps * 0.3)) + (l.confidence === '±1' ? 1 : 0);
    // A time limit per clip, so that a stalled analysis fails its test instead of hanging the suite.
    test(`${l.file} (${l.exercise}, ${l.camera_angle ?? '?'} view): schema-valid, ${l.reps} ± ${slack} valid repetitions`, { timeout: 600_000 }, async () => {
      const out = await engine.analyzeDetailed({ videoPath: join(videosDir, l.file), exerciseId: l.exercise });
      const result = out.result;
      assert.ok(Value.Check(AnalysisResultSchema, result), 'result matches the SPEC schema');
      const valid = result.repetitions.filter((r) => r.is_valid_rep);
      const n = result.overall_feedback.key_improvement_areas.length;
      assert.ok(n >= 2 && n <= 3, `${n} key improvement areas`);
      for (const r of result.repetitions) {
        assert.ok(r.start_time_ms <= r.end_time_ms && r.end_time_ms <= out.stats.videoMs + 200, 'rep times inside the video');
        for (const i of r.issues) assert.ok(i.evidence_timestamp_ms >= r.start_time_ms && i.evidence_timestamp_ms <= r.end_time_ms, 'evidence inside its rep');
      }
      rows.push({
        file: l.file, exercise: l.exercise, labeled: l.reps, sure: l.confidence !== '±1', valid: valid.length,
        attempts: result.repetitions.length, view: out.view, labeledView: l.camera_angle ?? '?',
        flagged: valid.filter((r) => r.issues.length > 0).length, rtf: 0, msPerFrame: 0,
      });
      if (!KNOWN_MISSES[l.file]) assert.ok(Math.abs(valid.length - l.reps) <= slack, `${valid.length} valid repetitions, labeled ${l.reps}`);
    });
  }
  test('labeled shared clips: exact, within-one and camera-angle rates meet their floors', () => {
    assert.equal(rows.length, labels.length, 'every clip was analysed');
    const f = figures(rows);
    const line = `exact ${f.exact}/${f.exactOf}, within one ${f.within1}/${f.clips}, angle ${f.viewRight}/${f.viewOf}`;
    assert.ok(f.exact >= FLOOR.exact * f.exactOf, line);
    assert.ok(f.within1 >= FLOOR.within1 * f.clips, line);
    assert.ok(f.viewRight >= FLOOR.angle * f.viewOf, line);
  });
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
  writeFileSync(empty, await makeVideo({ width: 320, height: 240, frames: 30, fps: 10, paint: (_, px) => px.fill(128) }));
  const result = await engine.analyze({ videoPath: empty, exerciseId: 'push-up' });
  assert.ok(Value.Check(AnalysisResultSchema, result));
  assert.deepEqual(result.repetitions, []);
  const areas = result.overall_feedback.key_improvement_areas;
  assert.ok(areas.length >= 2 && areas.length <= 3);
  assert.equal(areas[0]!.category, 'setup');
});
