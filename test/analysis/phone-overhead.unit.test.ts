// A phone 1.5 m away and low (issue 20zh): its picture's top edge runs just over the shoulders, so
// arms pressed overhead leave it at the top of every rep. bench/camera-sweep.ts --phone found the
// shoulder press doubled there. Each test is a case whose cause was fixed, failing on the code
// before the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KP } from '../../src/analysis/pose.js';
import { phoneCamera } from './camera.js';
import { countOn, movementOf, shoot, type PhoneCam, type PhoneTake } from './camera-sets.js';

const clean = (reps: number, pause = 0): PhoneTake => ({ reps, period: 2, pause, noise: 0, lost: 0, crop: 'none', seed: 5 });

/** Share of the set's frames on which an elbow lies above the phone's picture. */
function elbowOverTop(id: string, cam: PhoneCam, t: PhoneTake): number {
  const frames = shoot(movementOf(id), cam, t);
  return frames.filter((f) => [KP.leftElbow, KP.rightElbow].some((k) => f.keypoints[k]!.y < 0)).length / frames.length;
}

test('a shoulder press filmed by a close phone, an arm over the picture\'s top at every lock-out, counts each rep once', () => {
  // Landscape, 66 deg, 1.5 m away, turned 9 deg across and 3-6 up or down: one arm's elbow and hand
  // leave the picture's top at each lock-out, while its hand is seen at the rack (so the arm's length
  // is known). The arm read nothing there and the set as little, each rep split into its rise and
  // its fall, and the old code counted 12 of 6 on every one of these.
  const cams: [number, number, number][] = [[45, 0.3, -3], [-45, 0.3, -3], [90, 0.3, -6], [90, 1, 3], [90, 1, 6], [-45, 1, 6]];
  const wrong: string[] = [];
  for (const [yaw, height, up] of cams) {
    for (const pause of [0, 1]) {
      const cam: PhoneCam = { yaw, height, away: 1.5, phone: { ...phoneCamera(66, false), turn: [9, up] } };
      const over = elbowOverTop('shoulder-press', cam, clean(6, pause));
      assert.ok(over > 0.1, `yaw ${yaw} ${height} m up: an elbow over the top on ${over.toFixed(2)} of the frames`);
      const { count } = countOn('shoulder-press', cam, clean(6, pause));
      if (count !== 6) wrong.push(`yaw ${yaw} ${height} m up, turned ${up}, pause ${pause}: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});
