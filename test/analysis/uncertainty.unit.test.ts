// The form eval's standard error of a rule's reading (bench/uncertainty.ts): the jitter it reads
// off the raw keypoints is the jitter put there, and the standard error of a reading grows with it
// and is small without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PoseFrame } from '../../src/analysis/pose.js';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exerciseDef } from '../../src/analysis/rules/index.js';
import { marginOf } from '../../src/analysis/rules/common.js';
import { jitterOf, rawWobble, repUncertainties } from '../../bench/uncertainty.js';
import { series, sidePushUp } from './synthetic.js';

/** A seeded normal deviate sequence (Box-Muller on an LCG): the same poses on every run. */
function normals(seed: number): () => number {
  let a = seed;
  const u = () => ((a = (Math.imul(a, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

/** The poses with `s` pixels of independent jitter on each axis of every keypoint of every frame. */
function withJitter(poses: PoseFrame[], s: number, seed = 7): PoseFrame[] {
  const n = normals(seed);
  return poses.map((p) => ({ ...p, keypoints: p.keypoints.map((k) => ({ ...k, x: k.x + s * n(), y: k.y + s * n() })) }));
}

const pushUp = exerciseDef('push-up')!;

/** Five side-on push-ups at 12 fps, the hips sagging `sag` deg at each bottom (the hips limit is 12). */
function pushUps(sag: number): PoseFrame[] {
  const per = 2.4;
  return series(12, per * 5 + 1, (t) => {
    const k = Math.min(4, Math.floor(t / per));
    const u = t >= per * 5 ? 0 : Math.sin((Math.PI * (t - k * per)) / per) ** 2;
    return sidePushUp(170 - 90 * u, sag * u);
  });
}

test('raw wobble: nothing on a keypoint moving smoothly, four times the jitter on one that alternates', () => {
  const still = pushUps(0).slice(0, 3);
  const line = still.map((p, i) => ({ ...p, keypoints: p.keypoints.map((k) => ({ ...k, x: 100 + 2 * i, y: 50, score: 1 })) }));
  assert.ok(rawWobble(line)[1]!.every((w) => Math.abs(w) < 1e-9));
  assert.ok(rawWobble(line)[0]!.every((w) => Number.isNaN(w)), 'no second difference at the ends');
  const alternating = line.map((p, i) => ({ ...p, keypoints: p.keypoints.map((k) => ({ ...k, y: k.y + (i % 2 ? 3 : -3) })) }));
  // -3, +3, -3: a second difference of 12 = 4 x 3 on y.
  assert.ok(rawWobble(alternating)[1]!.every((w) => Math.abs(w - 12) < 1e-9));
});

test('the jitter read off the raw keypoints is the jitter put there', () => {
  const poses = withJitter(pushUps(4), 3);
  const out = analyzePoses(pushUp, poses, 12);
  const wobble = rawWobble(poses);
  const at = new Map(poses.map((p, i) => [p.timeMs, wobble[i]!] as const));
  // Shoulder, hip and ankle of the side facing the camera (the far side is unseen), rep by rep:
  // each a median over 25-29 frames, so within about a third; on average within a tenth.
  const s = out.reps.flatMap((rep) => [5, 11, 15].map((k) => jitterOf(rep, at)[k]!));
  assert.equal(s.length, 15);
  assert.ok(s.every((x) => x > 1.5 && x < 4.5), s.join(' '));
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  assert.ok(mean > 2.7 && mean < 3.3, `mean ${mean} for 3 px`);
});

test('a reading\'s standard error grows with the jitter, from little without it', () => {
  const se = (s: number) => {
    const poses = s ? withJitter(pushUps(11), s) : pushUps(11);
    const out = analyzePoses(pushUp, poses, 12);
    assert.equal(out.reps.length, 5);
    // The hips are read within a band of their limit on every rep, so each gets a standard error.
    assert.ok(out.reps.every((r) => marginOf(r, 'push-up-hips') > -1), out.reps.map((r) => marginOf(r, 'push-up-hips')).join(' '));
    const us = repUncertainties(pushUp, out.reps, poses).map((u) => u['push-up-hips']!);
    return us.reduce((a, b) => a + b, 0) / us.length;
  };
  const [none, low, high] = [se(0), se(1), se(4)];
  // Without jitter the movement's own curvature reads as a little (its second differences).
  assert.ok(none < 0.1 && low > none && high > 2 * low, `none: ${none}, 1 px: ${low}, 4 px: ${high}`);
  // The same poses give the same standard errors (seeded re-readings).
  assert.equal(se(4), high);
});
