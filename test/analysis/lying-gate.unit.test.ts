// The lying gate (rules/common.ts bodyLying) read in 3D (issue 20u) must still reject bodies that
// stand, sit or kneel upright, from every phone camera of the pinhole sweep (camera-sets.ts): 7 yaws x
// 0.3 / 1 / 2 m up x 1.5 / 3 / 5 m away, with the model's depth channel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContext, type FrameCtx } from '../../src/analysis/exercise.js';
import { bodyLying, torsoElevation } from '../../src/analysis/rules/common.js';
import { dist, pairPoint } from '../../src/analysis/signals.js';
import { body, type Joints } from './figure3d.js';
import { FPS, shoot, type PhoneCam } from './camera-sets.js';

const cameras: PhoneCam[] = [];
for (const yaw of [0, 45, 90, 135, 180, -45, -90]) for (const height of [0.3, 1, 2]) for (const away of [1.5, 3, 5]) cameras.push({ yaw, height, away });
const framesOf = (pose: (u: number) => Joints, cam: PhoneCam) =>
  buildContext(shoot(pose, cam, { reps: 1, period: 2, pause: 0, noise: 0, lost: 0, crop: 'none', seed: 1 }), FPS);

/** The gate as it read before issue 20u: the picture's torso within the limit of level, or foreshortened to under 0.45 arm lengths. */
function pictureLying(f: FrameCtx, limit: number): boolean {
  const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip');
  return torsoElevation(f) <= limit || (!!sh && !!hip && f.armLen > 0 && dist(sh, hip) < 0.45 * f.armLen);
}

test('standing, seated on a chair and kneeling upright bodies are never read as lying, at the widest limit any rule uses (55 deg: push-up), from any phone camera', () => {
  const upright: Record<string, (u: number) => Joints> = {
    standing: () => body(),
    'seated on a chair': () => body({ thigh: 90, shin: 0 }),
    'kneeling upright': () => body({ shin: 90, thigh: 0 }),
  };
  const wrong: string[] = [];
  for (const [name, pose] of Object.entries(upright)) for (const cam of cameras) {
    const n = framesOf(pose, cam).filter((f) => bodyLying(f, 55)).length;
    if (n) wrong.push(`${name} yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m: ${n} frames`);
  }
  assert.deepEqual(wrong, []);
});

test('a squat and a 45 deg hinge: the 3D readings add no frame to what the picture\'s torso already reads as lying, at every limit the rules use (35-55 deg)', () => {
  // A squat's torso seen from 2 m above, or a hinge side-on, is drawn within 55 deg of level: the
  // picture's reading lets those in, and the rules' other gates and signals keep them out of a count.
  const bent: Record<string, (u: number) => Joints> = {
    squat: (u) => body({ kneeBend: 115 * u, tilt: 35 * u }),
    'hinge 45 deg': () => body({ tilt: 45, kneeBend: 20 }),
    'hinge 70 deg (a Romanian deadlift)': (u) => body({ tilt: 70 * u, thigh: 45 * u, shin: 5 * u }),
  };
  const wrong: string[] = [];
  for (const [name, pose] of Object.entries(bent)) for (const cam of cameras) {
    const frames = framesOf(pose, cam);
    for (const limit of [35, 40, 45, 55]) {
      const n = frames.filter((f) => bodyLying(f, limit) && !pictureLying(f, limit)).length;
      if (n) wrong.push(`${name} yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m, limit ${limit}: ${n} frames`);
    }
  }
  assert.deepEqual(wrong, []);
});
