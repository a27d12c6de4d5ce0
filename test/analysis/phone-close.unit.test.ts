// A phone 1.5 m away (issue 20za): the distance people film at home from, the phone propped on the
// floor or a chair. Its picture cuts off the head and the feet, or the hands of open or raised
// arms; bench/camera-sweep.ts --phone found most of its misses there. Each test is a case whose
// cause was fixed, failing on the code before the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KP } from '../../src/analysis/pose.js';
import { phoneCamera } from './camera.js';
import { countOn, movementOf, shoot, type PhoneCam, type PhoneTake } from './camera-sets.js';

const clean = (reps: number, pause = 0): PhoneTake => ({ reps, period: 2, pause, noise: 0, lost: 0, crop: 'none', seed: 5 });

/** Share of the set's frames on which a wrist lies outside the phone's picture. */
function wristsOut(id: string, cam: PhoneCam, t: PhoneTake): number {
  const frames = shoot(movementOf(id), cam, t);
  const out = frames.filter((f) => [KP.leftWrist, KP.rightWrist].some((k) => {
    const p = f.keypoints[k]!;
    return p.x < 0 || p.y < 0 || p.x > cam.phone!.width || p.y > cam.phone!.height;
  }));
  return out.length / frames.length;
}

test('a chest fly filmed by a phone 1.5 m away, its open hands out of the picture, counts every rep on the elbows', () => {
  // Portrait, 67 deg, aimed at the hips from 1 m up: the hands leave the picture's sides on 66-85%
  // of the frames (every open position), and the old code, reading the hands alone, counted the
  // diagonals 0 of 6. (Landscape from 1.5 m cuts off the elbows as well: nothing to count the fly on.)
  const wrong: string[] = [];
  for (const yaw of [0, 45, -45]) {
    for (const pause of [0, 1]) {
      const cam: PhoneCam = { yaw, height: 1, away: 1.5, phone: phoneCamera(67, true) };
      const out = wristsOut('chest-fly', cam, clean(6, pause));
      assert.ok(out > 0.5, `yaw ${yaw}: the hands out of the picture on ${out.toFixed(2)} of the frames`);
      const { count } = countOn('chest-fly', cam, clean(6, pause));
      if (count !== 6) wrong.push(`yaw ${yaw} pause ${pause}: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a deadlift and a Romanian deadlift filmed by a phone 1.5 m away with the feet cut off count every rep: the shoulders\' drop read over the knees', () => {
  // Portrait, 65 deg, aimed a little low from 0.3 m up: the ankles are out of the picture on every
  // frame. The drop toward the ankles went unread and the hinge rested on the torso's tilt alone,
  // which this near, low camera foreshortens: on the old code both counted 11 of 6 from the front.
  const wrong: string[] = [];
  for (const id of ['deadlift', 'romanian-deadlift']) {
    for (const yaw of [0, 45]) {
      const cam: PhoneCam = { yaw, height: 0.3, away: 1.5, phone: { ...phoneCamera(65, true), turn: [2, 9] } };
      const { count } = countOn(id, cam, clean(6, 1));
      if (count !== 6) wrong.push(`${id} yaw ${yaw}: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});
