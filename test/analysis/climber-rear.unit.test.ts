// Mountain climbers filmed from a rear diagonal (issue 20zg): the knee drives forward in the body's
// sagittal plane, which a camera behind and to the side sees turned away, and from above the
// picture's hip angle hides a third of the drive. Read on the picture, a drive to 90% of the full
// range read under the counter's floor on one leg or both; the hip angle is read in 3D short of
// side-on (mountain-climber.ts climberHip). Fails on the code before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { phoneCamera } from './camera.js';
import { countOn, type PhoneCam, type PhoneTake } from './camera-sets.js';

const clean: PhoneTake = { reps: 8, period: 1.6, pause: 0, noise: 0, lost: 0, crop: 'none', seed: 5 };

test('mountain climbers filmed from a rear diagonal 2 m up count every knee drive, both legs', () => {
  // On the old code each of these counted 4 of 8 (the drives of one leg) at 90% depth, and from
  // 150 deg at 1 m up as well.
  const wrong: string[] = [];
  for (const phone of [undefined, phoneCamera(67, true)]) {
    for (const [yaw, height] of [[135, 2], [-135, 2], [150, 2], [150, 1]] as const) {
      const cam: PhoneCam = { yaw, height, away: 5, ...(phone ? { phone } : {}) };
      const { count } = countOn('mountain-climber', cam, clean, 0.9);
      if (count !== 8) wrong.push(`${phone ? 'phone' : 'default'} yaw ${yaw} ${height} m up: ${count} of 8`);
    }
  }
  assert.deepEqual(wrong, []);
});
