// A bent-over row filmed square-on by a phone 1.5 m away (issue 20zh): the picture cuts the shins
// off, and the row's gate read the hinge in 3D from the ankles. A test that fails on the code before the fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KP } from '../../src/analysis/pose.js';
import { phoneCamera } from './camera.js';
import { countOn, movementOf, shoot, type PhoneCam, type PhoneTake } from './camera-sets.js';

const clean = (reps: number, pause = 0): PhoneTake => ({ reps, period: 2, pause, noise: 0, lost: 0, crop: 'none', seed: 5 });

test('a bent-over row filmed square-on by a phone 1.5 m away with the ankles out of the picture counts every rep: the hinge read from the thighs', () => {
  // From the front or behind the hinge runs along the line of sight and the picture's torso keeps
  // its length: only the 3D hinge from the legs' line (hingeFromLegs) opens the gate there. With
  // the ankles below the picture it read NaN on every frame and the old code counted 0 of 6.
  const wrong: string[] = [];
  for (const yaw of [0, 180]) {
    for (const [height, portrait] of [[0.3, false], [0.3, true], [1, false]] as const) {
      const cam: PhoneCam = { yaw, height, away: 1.5, phone: phoneCamera(65, portrait) };
      const frames = shoot(movementOf('bent-over-row'), cam, clean(6));
      const out = frames.filter((f) => [KP.leftAnkle, KP.rightAnkle].every((k) => f.keypoints[k]!.score < 0.3)).length / frames.length;
      assert.ok(out > 0.9, `yaw ${yaw} ${height} m up: the ankles out on ${out.toFixed(2)} of the frames`);
      for (const pause of [0, 1]) {
        const { count } = countOn('bent-over-row', cam, clean(6, pause));
        if (count !== 6) wrong.push(`yaw ${yaw} ${height} m up ${portrait ? 'portrait' : 'landscape'} pause ${pause}: ${count} of 6`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});
