// The catalog counted from the cameras people film it with: a phone (a pinhole camera) at any yaw,
// 0.3-2 m off the floor, 1.5-5 m away, at 12 fps (camera-sets.ts). bench/camera-sweep.ts runs the
// whole catalog over that grid; these are the cases it found wrong and whose cause was fixed, each
// failing on the code before the fix, and the misses left, skipped by name with why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FrameCtx } from '../../src/analysis/exercise.js';
import { KP, KP_COUNT, Z_SCALE, type Keypoint } from '../../src/analysis/pose.js';
import { handReach } from '../../src/analysis/rules/reach.js';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { countOn, defOf, FPS, movementOf, shoot, type PhoneCam, type PhoneTake } from './camera-sets.js';

const clean = (reps: number, pause = 0): PhoneTake => ({ reps, period: 2, pause, noise: 0, lost: 0, crop: 'none', seed: 5 });

test('a hand pulled straight back toward the camera reads its true distance from the shoulder: the model\'s depth at its own scale (Z_SCALE)', () => {
  const p: Keypoint[] = Array.from({ length: KP_COUNT }, () => ({ x: 0, y: 0, z: 0, score: 0.9 }));
  // The wrist 30 px below the shoulder and 40 px nearer the camera: 50 px away, an arm of 100 px.
  p[KP.leftShoulder] = { x: 300, y: 200, z: 0, score: 0.9 };
  p[KP.leftWrist] = { x: 300, y: 230, z: -40 * Z_SCALE, score: 0.9 };
  const f = { p, armLen: 100 } as unknown as FrameCtx;
  assert.ok(Math.abs(handReach(f, 'left') - 0.5) < 1e-9, `read ${handReach(f, 'left')}`);
});

test('the pulls (bent-over row, seated row, face pull) filmed by a phone from a diagonal, behind or side-on from above count every rep', () => {
  const cases: [string, PhoneCam][] = [
    ['bent-over-row', { yaw: 45, height: 1, away: 3 }],
    ['bent-over-row', { yaw: -45, height: 1, away: 3 }],
    ['bent-over-row', { yaw: 135, height: 1, away: 3 }],
    ['seated-row', { yaw: 180, height: 1, away: 3 }],
    ['face-pull', { yaw: 90, height: 2, away: 3 }],
  ];
  const wrong: string[] = [];
  for (const [id, cam] of cases) {
    for (const pause of [0, 1]) {
      const { count } = countOn(id, cam, clean(6, pause));
      if (count !== 6) wrong.push(`${id} yaw ${cam.yaw} h ${cam.height} m, pause ${pause} s: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a bent-over row filmed square-on, from the front or behind, counts every rep: the hinge read from the legs\' line in 3D (the picture foreshortens it), the elbow\'s bend the more bent of the picture\'s and the 3D reading', () => {
  const wrong: string[] = [];
  for (const cam of [{ yaw: 0, height: 1, away: 3 }, { yaw: 0, height: 2, away: 5 }, { yaw: 180, height: 1, away: 3 }, { yaw: 180, height: 0.3, away: 1.5 }]) {
    for (const depth of [1, 0.9]) {
      const { count } = countOn('bent-over-row', cam, clean(6), depth);
      if (count !== 6) wrong.push(`yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m depth ${depth}: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('calf raise filmed by a phone near the floor or above it, now and then losing a toe point for a frame: each foot read against its own flat level, no rep split or added', () => {
  const wrong: string[] = [];
  for (const cam of [{ yaw: 90, height: 1, away: 1.5 }, { yaw: -90, height: 2, away: 1.5 }, { yaw: 45, height: 1, away: 1.5 }]) {
    for (const seed of [1, 2, 3, 4]) {
      const { count } = countOn('calf-raise', cam, { reps: 8, period: 2, pause: 0.8, noise: 0, lost: 0.05, crop: 'none', seed });
      if (count !== 8) wrong.push(`yaw ${cam.yaw} h ${cam.height} m seed ${seed}: ${count} of 8`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a lunge and a side lunge done as they are (a split stance; a wide stance shifting over one knee) count every rep from the front, behind, the rear diagonal and the side, near the floor and above it, and with the feet out of the picture', () => {
  const wrong: string[] = [];
  for (const id of ['lunge', 'side-lunge']) {
    for (const yaw of [0, 180, 135, 90]) for (const height of [0.3, 1, 2]) for (const crop of ['none', 'feet'] as const) {
      // Known misses below: the side lunge from the front with the feet out of the picture, and
      // to 85% from behind near the floor.
      if (id === 'side-lunge' && ((yaw === 0 && crop === 'feet') || (yaw === 180 && height === 0.3 && crop === 'none'))) continue;
      const cam = { yaw, height, away: 3 };
      const { count } = countOn(id, cam, { ...clean(6, 0.5), crop, noise: 2, lost: 0.02 }, 0.85);
      if (count !== 6) wrong.push(`${id} yaw ${yaw} h ${height} m crop ${crop}: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a side lunge with the shins out of the picture, filmed from 2 m up and 1.5 m away, now and then losing a knee: each thigh rises from its own standing level (that camera draws the near one standing at 0.68 of level, the far one at 0.04), so a frame at rest with a knee lost is not a rep', () => {
  const { count } = countOn('side-lunge', { yaw: -90, height: 2, away: 1.5 }, { reps: 5, period: 2.62, pause: 0, noise: 1.2, lost: 0.05, crop: 'feet', seed: 749423544 }, 0.87);
  assert.equal(count, 5);
});

test('standing still in a split stance or a wide one counts nothing from any side', () => {
  for (const id of ['lunge', 'side-lunge']) for (const yaw of [0, 90, 180]) {
    assert.equal(countOn(id, { yaw, height: 1, away: 3 }, { ...clean(6, 0.5), noise: 2 }, 0).count, 0, `${id} yaw ${yaw}`);
  }
});

test('standing still in a lunge\'s split stance, now and then losing an ankle for a frame, counts nothing from a front diagonal 1-2 m up: the hips\' drop is read over each ankle against its own standing level, so reading the lifted back foot alone does not move the signal by a rep (issue 20y; 6-12 counted at 2 m before)', () => {
  const wrong: string[] = [];
  for (const yaw of [45, -45]) for (const height of [1, 2]) for (const seed of [1, 2, 3, 4]) {
    const { count } = countOn('lunge', { yaw, height, away: 3 }, { reps: 6, period: 2, pause: 0.5, noise: 2, lost: 0.05, crop: 'none', seed }, 0);
    if (count) wrong.push(`yaw ${yaw} h ${height} seed ${seed}: ${count}`);
  }
  assert.deepEqual(wrong, []);
});

// Misses the sweep finds on clean sets from a phone 1 m high, 3 m away, left as they are. Each is
// skipped by name; run with the skip removed, it fails as described.
const counts = (id: string, yaw: number) => assert.equal(countOn(id, { yaw, height: 1, away: 3 }, clean(6)).count, 6, `${id} yaw ${yaw}`);

test.skip('known miss: a lunge filmed square-on by a phone 2 m up and 1.5 m away counts 1 of 4 (seed 190837636 in the sweep; 2 before issue 20y): looking that steeply down, the back shin, pointing away, is drawn folded up over its knee (17 deg in the picture standing), so the knee half of the signal reads past full throughout', () => {
  const { count } = countOn('lunge', { yaw: 0, height: 2, away: 1.5 }, { reps: 4, period: 1.92, pause: 0, noise: 1.3, lost: 0.05, crop: 'none', seed: 190837636 }, 0.89);
  assert.equal(count, 4);
});

test.skip('known miss: a side lunge to 85% filmed from the front, 1-2 m up, with the feet out of the picture counts 0 of 6 (6 attempts at 0.43-0.44 of full from 1 m, 0.31-0.33 from 2 m; 6 of 6 from 0.3 m): with no ankle there is no knee angle and no hip height, only the thighs, and the working thigh, coming toward a camera above it, is drawn rising 0.27 of level from standing where the side and behind draw 0.36-0.43', () => {
  for (const height of [1, 2]) assert.equal(countOn('side-lunge', { yaw: 0, height, away: 3 }, { ...clean(6, 0.5), crop: 'feet', noise: 2, lost: 0.02 }, 0.85).count, 6, `h ${height}`);
});

test.skip('known miss: a side lunge to 85% filmed from behind by a phone 0.3 m off the floor counts 0 of 6 (6 of 6 to full depth, and from 1 or 2 m up): the working knee bends away from the camera, and looking up its angle reads near straight. The thigh\'s rise reads it (tried: the thigh wherever it read more than the knee), but in the picture that rise carries the camera\'s pitch, and a third-depth side lunge then read full from 10 deg above (first-nine-faults "shallow"); reading it against the floor needs the camera\'s pitch, which squat-level.ts takes from plumb standing legs and a side lunge\'s wide stance does not have. Also tried (issue 20y): the knee\'s 3D angle where it reads deeper (6 of 6 here, the sweep\'s seeds 55/57/58 -> 59/62/61), but the shallow side lunge\'s 3D knee reads 0.5-0.64 of full from every side, and from behind 10 deg down its hip drop 0.48-0.54, so it counted as full there (first-nine-faults "shallow"), even with the 3D knee capped at the hip drop', () => {
  assert.equal(countOn('side-lunge', { yaw: 180, height: 0.3, away: 3 }, { ...clean(6, 0.5), noise: 2, lost: 0.02 }, 0.85).count, 6);
});

test('the lying and plank exercises filmed end-on, from the head or the feet, count every rep: the lying gate read in 3D (view.ts lyingByDepth, and the head end) and the hip\'s angle read in 3D end-on (issue 20u)', () => {
  // The body along z: a plank's head toward +z (yaw 0 films it from the head), a body on its back
  // head toward -z (yaw 0 films it from the feet). Each failed on the code before: no attempt found,
  // or (the climber from the head) a picture's hip angle that does not follow the drive.
  const wrong: string[] = [];
  const cases: [string, PhoneCam][] = [
    ['push-up', { yaw: 180, height: 1, away: 3 }],
    ['mountain-climber', { yaw: 180, height: 1, away: 3 }],
    ['mountain-climber', { yaw: 0, height: 1, away: 3 }],
    ['mountain-climber', { yaw: 0, height: 0.3, away: 1.5 }],
    ['leg-raise', { yaw: 0, height: 1, away: 3 }],
    ['leg-raise', { yaw: 180, height: 1, away: 3 }],
    ['glute-bridge', { yaw: 0, height: 1, away: 3 }],
    ['glute-bridge', { yaw: 180, height: 1, away: 3 }],
    ['glute-bridge', { yaw: 180, height: 2, away: 3 }],
  ];
  for (const [id, cam] of cases) {
    for (const pause of [0, 1]) {
      const { count } = countOn(id, cam, clean(6, pause));
      if (count !== 6) wrong.push(`${id} yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m, pause ${pause} s: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a bench press filmed from 2 m up and 1.5-3 m away counts every rep: the torso drawn 37 deg off level is read lying in 3D (issue 20u)', () => {
  const wrong: string[] = [];
  for (const cam of [{ yaw: 0, height: 2, away: 1.5 }, { yaw: 0, height: 2, away: 3 }, { yaw: 45, height: 2, away: 1.5 }, { yaw: 180, height: 2, away: 1.5 }, { yaw: -45, height: 2, away: 1.5 }]) {
    const { count } = countOn('bench-press', cam, clean(6));
    if (count !== 6) wrong.push(`yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m: ${count} of 6`);
  }
  assert.deepEqual(wrong, []);
});

test.skip('known miss: a plank (push-up, mountain climber) filmed from its feet by a phone 2 m up and 1.5 m away finds no attempt: the phone looks down about 50 deg, so the torso points only about 17 deg out of the picture, as a standing body\'s does filmed from the floor (view.ts END_ON is 25), and the shoulder line across the picture gives no pitch to read it against', () => {
  for (const id of ['push-up', 'mountain-climber']) assert.equal(countOn(id, { yaw: 180, height: 2, away: 1.5 }, clean(6)).count, 6, id);
});

test.skip('known miss: a glute bridge filmed from its feet by a phone 2 m up and 1.5 m away counts 0 of 6: with the hips up the torso slopes down away from the camera and is no longer read lying, and the 3D hip angle reaches 0.8 of a full rep', () => {
  assert.equal(countOn('glute-bridge', { yaw: 0, height: 2, away: 1.5 }, clean(6)).count, 6);
});

test('an overhead triceps extension filmed by a phone below the raised arms or above them (on the floor or 2 m up, 1.5-3 m away, from behind, the rear diagonal, the front or the side) counts every rep: the depth read from the elbow\'s 3D angle where the picture draws the forearm swinging along the line of sight (issue 20v)', () => {
  // From behind and the rear diagonals on the floor the code before counted 0-3 of 6 (the hands'
  // height over the elbows never passed a fifth of a rep there); the front near the floor and the
  // side from above it counted, and must still.
  const wrong: string[] = [];
  const cases: PhoneCam[] = [
    { yaw: 180, height: 0.3, away: 1.5 }, { yaw: 180, height: 0.3, away: 3 }, { yaw: 135, height: 0.3, away: 1.5 },
    { yaw: -135, height: 0.3, away: 1.5 }, { yaw: 0, height: 0.3, away: 1.5 }, { yaw: 90, height: 2, away: 1.5 },
  ];
  for (const cam of cases) for (const depth of [1, 0.85]) {
    const { count } = countOn('overhead-tricep-extension', cam, { ...clean(6, 0.5), noise: 2, lost: 0.02 }, depth);
    if (count !== 6) wrong.push(`yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m depth ${depth}: ${count} of 6`);
  }
  assert.deepEqual(wrong, []);
});

test('an overhead triceps extension held with straight arms overhead, or lowered only a fifth of the way on every rep, counts no valid rep from any camera: the 3D reading does not make a rep of a still or shallow arm', () => {
  for (const yaw of [0, 90, 180, 135]) for (const height of [0.3, 2]) for (const depth of [0, 0.2]) {
    const cam = { yaw, height, away: 1.5 };
    assert.equal(countOn('overhead-tricep-extension', cam, { ...clean(6, 0.5), noise: 2, lost: 0.02 }, depth).count, 0, `yaw ${yaw} h ${height} depth ${depth}`);
  }
});

test('a crunch filmed from the feet by a phone above them (1-2 m up, 1.5-3 m away, square-on or at a diagonal) counts every rep: the shoulders\' approach to the knees read in 3D, and the lying gate\'s legs pointing away from the camera (issue 20v)', () => {
  // The code before counted 0 from the feet 2 m up (1.5 m away: the gate read no frame of the top;
  // 3 m: the picture drew the shoulders leaving the knees as they curled toward them).
  const wrong: string[] = [];
  const cases: PhoneCam[] = [
    { yaw: 0, height: 2, away: 1.5 }, { yaw: 0, height: 2, away: 3 }, { yaw: 45, height: 2, away: 1.5 },
    { yaw: -45, height: 2, away: 1.5 }, { yaw: 0, height: 1, away: 3 }, { yaw: 90, height: 1, away: 3 }, { yaw: 90, height: 0.3, away: 3 },
  ];
  for (const cam of cases) for (const depth of [1, 0.85]) {
    const { count } = countOn('crunch', cam, { ...clean(6, 0.5), noise: 2, lost: 0.02 }, depth);
    if (count !== 6) wrong.push(`yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m depth ${depth}: ${count} of 6`);
  }
  assert.deepEqual(wrong, []);
});

test('lying still on the back filmed from the feet or the side counts no crunch, and a set of squats counted as crunches counts none', () => {
  for (const yaw of [0, 45, 90]) for (const height of [0.3, 2]) {
    const cam = { yaw, height, away: 1.5 };
    assert.equal(countOn('crunch', cam, { ...clean(6, 0.5), noise: 2, lost: 0.02 }, 0).count, 0, `lying, yaw ${yaw} h ${height}`);
    const squats = analyzePoses(defOf('crunch'), shoot(movementOf('squat'), cam, { ...clean(6, 0.5), noise: 2, lost: 0.02 }), FPS);
    assert.equal(squats.result.repetitions.filter((r) => r.is_valid_rep).length, 0, `squats, yaw ${yaw} h ${height}`);
  }
});

test('a burpee filmed from behind or the rear diagonal by a phone 1-2 m up and 1.5 m away counts each rep once: the shoulders\' drop from their standing level reads the plank low where the feet, jumping back toward the phone, are drawn a whole leg lower and the shoulders\' height over them reads standing again (issue 20v)', () => {
  // The code before counted each rep twice here (12 of 6).
  const wrong: string[] = [];
  const cases: PhoneCam[] = [
    { yaw: 180, height: 2, away: 1.5 }, { yaw: 180, height: 1, away: 1.5 }, { yaw: 135, height: 2, away: 1.5 }, { yaw: -135, height: 1, away: 1.5 },
    { yaw: 0, height: 2, away: 1.5 }, { yaw: 0, height: 0.3, away: 1.5 }, { yaw: 90, height: 1, away: 3 },
  ];
  for (const cam of cases) for (const pause of [0, 1]) {
    const { count } = countOn('burpee', cam, { ...clean(6, pause), noise: 2, lost: 0.02 });
    if (count !== 6) wrong.push(`yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m pause ${pause} s: ${count} of 6`);
  }
  assert.deepEqual(wrong, []);
});

test('standing still, or squatting without the hands reaching the floor, filmed from behind 1.5 m away, counts no burpee', () => {
  for (const height of [1, 2]) for (const depth of [0, 0.3]) {
    assert.equal(countOn('burpee', { yaw: 180, height, away: 1.5 }, { ...clean(6, 0.5), noise: 2, lost: 0.02 }, depth).count, 0, `h ${height} depth ${depth}`);
  }
});
