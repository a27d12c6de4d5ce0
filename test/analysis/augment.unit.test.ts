// The pose variants of bench/augment.ts (what `npm run eval -- --augment pose` measures the engine
// on): each changes the poses as it says, and a clean synthetic set keeps its count under each of
// them, so a count that moves on a shared clip points at the engine or at that clip, not at the
// variant. The squat set is filmed side-on at 12 fps: 5 reps of 2 s with 1 s of rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { poseAugmentations } from '../../bench/augment.js';
import type { ExtractedPoses } from '../../src/analysis/index.js';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exerciseDef } from '../../src/analysis/rules/index.js';
import { KP, packPose } from '../../src/analysis/pose.js';
import { cycle, series, sideSquatter } from './synthetic.js';
import { body, project } from './figure3d.js';

const FPS = 12;
const squats = (): ExtractedPoses => {
  const poses = series(FPS, 16, (t) => sideSquatter({ knee: 175 - 95 * cycle(Math.max(0, t - 0.5), 2, 1), lean: 10 + 25 * cycle(Math.max(0, t - 0.5), 2, 1) }))
    .map((f) => packPose({ ...f, keypoints: [...f.keypoints, ...new Array(6).fill({ x: 0, y: 0, score: 0 })] }));
  return { poses, fps: FPS, width: 640, height: 640, videoMs: 16000, wallMs: 1, pose: {} as ExtractedPoses['pose'] };
};
const variant = (name: string) => poseAugmentations.find((a) => a.name === name)!.poses!;
const valid = (x: ExtractedPoses) => analyzePoses(exerciseDef('squat')!, x.poses, x.fps).attempts.filter((a) => a.valid).length;

test('pose:mirror flips x and swaps left and right; twice is the clip as filmed', () => {
  const x = squats(), m = variant('pose:mirror')(x);
  const f = x.poses[20]!.packed, g = m.poses[20]!.packed;
  assert.equal(g[KP.rightKnee * 3], 640 - f[KP.leftKnee * 3]!);
  assert.equal(g[KP.rightKnee * 3 + 2], f[KP.leftKnee * 3 + 2]);
  assert.deepEqual(variant('pose:mirror')(m).poses.map((p) => [...p.packed]), x.poses.map((p) => [...p.packed]));
});

test('pose:half-fps keeps every second frame at half the rate; pose:lose-5 drops about 5%', () => {
  const x = squats();
  const h = variant('pose:half-fps')(x);
  assert.deepEqual([h.fps, h.poses.length, h.poses[1]!.timeMs], [FPS / 2, x.poses.length / 2, x.poses[2]!.timeMs]);
  const lost = x.poses.length - variant('pose:lose-5')(x).poses.length;
  assert.ok(lost >= 3 && lost <= 20, `lost ${lost} of ${x.poses.length}`);
});

test('pose:slow and pose:fast stretch time at the same frame rate', () => {
  const x = squats();
  const slow = variant('pose:slow')(x), fast = variant('pose:fast')(x);
  assert.ok(Math.abs(slow.poses.length - x.poses.length / 0.75) <= 2);
  assert.ok(Math.abs(fast.poses.length - x.poses.length / 1.33) <= 2);
  assert.equal(slow.fps, FPS);
});

test('pose:crop-legs hides knees and feet for one second in five, nothing else', () => {
  const c = variant('pose:crop-legs')(squats());
  const at = (s: number) => c.poses[Math.round(s * FPS)]!.packed;
  assert.ok(at(2.5)[KP.leftKnee * 3 + 2]! < 0.1 && at(2.5)[KP.leftHip * 3 + 2]! > 0.8);
  assert.ok(at(4)[KP.leftKnee * 3 + 2]! > 0.8);
});

test('a clean set counts the same under every pose variant but the crops', () => {
  const x = squats();
  assert.equal(valid(x), 5);
  for (const a of poseAugmentations.filter((v) => !v.name.startsWith('pose:crop'))) assert.equal(valid(a.poses!(x)), 5, a.name);
});

test('with the legs out of the picture for a second in five, the set keeps its count', () => {
  // The third rep's bottom falls in the gap at 7-8 s and only its edges show, under the entry
  // threshold: read across the gap on the whole-body movement (pipeline.ts bridgedByMovement; the
  // set's rhythm, counting.ts unseenReps, counted it before that); 4 of 5 before either.
  const x = variant('pose:crop-legs')(squats());
  assert.equal(valid(x), 5);
  // Its depth went unseen: no rule reads a fault off the legs it did not see.
  const out = analyzePoses(exerciseDef('squat')!, x.poses, x.fps);
  const k = out.attempts.findIndex((a) => a.start * 1000 / FPS < 7500 && a.end * 1000 / FPS > 7500);
  assert.ok(k >= 0 && out.result.repetitions[k]!.is_valid_rep);
  assert.deepEqual(out.result.repetitions[k]!.issues, []);
});

test('with the legs out of the picture, a set with no steady rhythm keeps the rep whose bottom went unseen', () => {
  // Four squats of 2 s from 0.5, 2.8, 6.5 and 13.2 s: the rests between them (0.3 s, 1.7 s, 4.7 s)
  // give the set no period, so its rhythm cannot say a rep was in the gap at 7-8 s, where the third
  // rep's bottom falls. The hips and shoulders still sink there: the whole-body movement, which
  // follows the squat's own signal on the frames both read, carries the count across (3 before).
  const starts = [0.5, 2.8, 6.5, 13.2];
  const depth = (t: number) => starts.reduce((d, s) => (t >= s && t < s + 2 ? (1 - Math.cos(Math.PI * (t - s))) / 2 : d), 0);
  const poses = series(FPS, 16, (t) => sideSquatter({ knee: 175 - 95 * depth(t), lean: 10 + 25 * depth(t) }))
    .map((f) => packPose({ ...f, keypoints: [...f.keypoints, ...new Array(6).fill({ x: 0, y: 0, score: 0 })] }));
  const x: ExtractedPoses = { poses, fps: FPS, width: 640, height: 640, videoMs: 16000, wallMs: 1, pose: {} as ExtractedPoses['pose'] };
  assert.equal(valid(x), 4);
  assert.equal(valid(variant('pose:crop-legs')(x)), 4);
});

test('with the hands out of the picture for a second in five, a jumping jack set keeps its count (read on the elbows)', () => {
  // From the front at 15 fps: 10 reps of 0.8 s (straight arms from the sides to overhead) with 0.2 s
  // between them. The hands go unseen at 2-3 s and 7-8 s, each time through nearly a whole rep.
  const arm = (t: number) => ({ raise: 170 * cycle(t, 0.8, 0.2), plane: 90 });
  const poses = series(15, 10, (t) => project(body({ left: arm(t), right: arm(t) }), 0)).map((f) => packPose(f));
  const x: ExtractedPoses = { poses, fps: 15, width: 640, height: 640, videoMs: 10000, wallMs: 1, pose: {} as ExtractedPoses['pose'] };
  const count = (y: ExtractedPoses) => analyzePoses(exerciseDef('jumping-jack')!, y.poses, y.fps).attempts.filter((a) => a.valid).length;
  assert.equal(count(x), 10);
  assert.equal(count(variant('pose:crop-hands')(x)), 10);
});

test('with the hands out of the picture for a second in five, `any` counts a set of bent-arm raises the same', () => {
  // From the front at 12 fps: 7 raises of 2 s (upper arms from the sides to shoulder height, elbows
  // bent at a right angle) with 0.5 s between them, from 1.5 s in. The hands go unseen at 2-3 s,
  // 7-8 s, 12-13 s and 17-18 s, each time through the top of a rep, while the elbows still rise.
  // Filled at their median there, the hands pulled those tops toward mid-range: 5 of 7 counted.
  // Now the frame is placed on the movement from what is seen (movement.ts principalAxis).
  const arm = (t: number) => ({ raise: t < 19 ? 85 * cycle(Math.max(0, t - 1.5), 2, 0.5) : 0, plane: 90, bend: 90 });
  const poses = series(FPS, 20, (t) => project(body({ left: arm(t), right: arm(t) }), 0)).map((f) => packPose(f));
  const x: ExtractedPoses = { poses, fps: FPS, width: 640, height: 640, videoMs: 20000, wallMs: 1, pose: {} as ExtractedPoses['pose'] };
  const count = (y: ExtractedPoses) => analyzePoses(exerciseDef('any')!, y.poses, y.fps).attempts.filter((a) => a.valid).length;
  assert.equal(count(x), 7);
  assert.equal(count(variant('pose:crop-hands')(x)), 7);
});
