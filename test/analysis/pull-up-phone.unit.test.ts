// A pull-up filmed by a phone close by or high up (issue 20zg): a phone on a shelf 2 m up, or
// propped 1 m up, 1.5 m away, cuts off the hands on the bar on most frames, and the set read on the
// hands (their height over the shoulders) counted nothing. Each test fails on the code before the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KP } from '../../src/analysis/pose.js';
import { buildContext } from '../../src/analysis/exercise.js';
import { pullUp } from '../../src/analysis/rules/pull-up.js';
import { body } from './figure3d.js';
import { phoneCamera } from './camera.js';
import { countOn, FPS, movementOf, shoot, type PhoneCam, type PhoneTake } from './camera-sets.js';

const clean = (reps: number, pause = 0): PhoneTake => ({ reps, period: 2, pause, noise: 0, lost: 0, crop: 'none', seed: 5 });

/** Share of the set's frames on which the wrists are seen (score 0.3 or more). */
function wristsSeen(cam: PhoneCam, t: PhoneTake): number {
  const frames = shoot(movementOf('pull-up'), cam, t);
  return frames.filter((f) => [KP.leftWrist, KP.rightWrist].every((k) => f.keypoints[k]!.score >= 0.3)).length / frames.length;
}

test('a pull-up filmed by a phone 2 m up and 1.5 m away, the hands on the bar out of the picture, counts every rep on the elbows', () => {
  // Landscape from every side, portrait from the front and from behind: the wrists are seen on
  // 0-34% of the frames, and the old code counted each of these sets 0 of 6.
  const wrong: string[] = [];
  const cams: PhoneCam[] = [
    ...[0, 45, 90, 135, 180, -45, -90].map((yaw) => ({ yaw, height: 2, away: 1.5, phone: phoneCamera(67, false) })),
    ...[0, 180].map((yaw) => ({ yaw, height: 2, away: 1.5, phone: phoneCamera(67, true) })),
  ];
  for (const cam of cams) {
    for (const pause of [0, 1]) {
      const seen = wristsSeen(cam, clean(6, pause));
      assert.ok(seen < 0.5, `yaw ${cam.yaw}: the wrists seen on ${seen.toFixed(2)} of the frames`);
      const { count } = countOn('pull-up', cam, clean(6, pause));
      if (count !== 6) wrong.push(`${cam.phone!.width > cam.phone!.height ? 'landscape' : 'portrait'} yaw ${cam.yaw} pause ${pause}: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a pull-up taken to the chest, its hangs out of a landscape picture 1 m up, is not read as two reps a pull', () => {
  // At the top the hands come into the picture at the shoulders' height, under the hanging gate's
  // 0.1 arm lengths above them: gated out, each top was a gap between two halves of the rep (10 of
  // 6 on a first version of the elbow reading; 0 of 6 on the code before it).
  const wrong: string[] = [];
  for (const yaw of [45, 90, 135, -45, -90]) {
    const cam: PhoneCam = { yaw, height: 1, away: 1.5, phone: phoneCamera(67, false) };
    const { count } = countOn('pull-up', cam, clean(6));
    if (count !== 6) wrong.push(`yaw ${yaw}: ${count} of 6`);
  }
  assert.deepEqual(wrong, []);
});

test('standing under the bar with the arms hanging, the hands seen, is not hanging from it', () => {
  // Arms down at the sides: the hands about an arm's length under the shoulders, past the 0.3 under
  // them that the gate allows the top of a pull taken to the chest.
  const wrong: string[] = [];
  for (const yaw of [0, 45, 90, 135, 180]) {
    const ctx = buildContext(shoot(() => body({}), { yaw, height: 1, away: 3 }, clean(2)), FPS);
    const gated = ctx.filter((f) => pullUp.gate(f)).length;
    if (gated) wrong.push(`yaw ${yaw}: ${gated} of ${ctx.length} frames gated`);
  }
  assert.deepEqual(wrong, []);
});
