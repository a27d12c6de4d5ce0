// Phones where the raised arms leave the picture or point at the lens (issue 20zh): a press
// filmed close and low (the picture's top edge just over the shoulders), a front raise filmed from
// above or with a shoulder out of the picture. bench/camera-sweep.ts --phone found their misses
// there. Each test is a case whose cause was fixed, failing on the code before the fix.
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

test('a front raise filmed by a phone 2 m up and 1.5 m away counts every rep: the arm\'s rise read from the torso in 3D', () => {
  // Looking down 34 deg at the person, an arm raised toward the phone still points down the
  // picture: the elbow's and wrist's height below the shoulder hardly changed, a raise to 0.85 of
  // the way read 0.28 of a rep, and the old code counted 0 of 6 from the front and the diagonals.
  const wrong: string[] = [];
  for (const [yaw, portrait] of [[0, true], [0, false], [45, false], [-45, false]] as const) {
    for (const pause of [0, 1]) {
      const cam: PhoneCam = { yaw, height: 2, away: 1.5, phone: { ...phoneCamera(67, portrait), turn: [0, -4] } };
      const { count } = countOn('front-raise', cam, clean(6, pause), 0.85);
      if (count !== 6) wrong.push(`yaw ${yaw} ${portrait ? 'portrait' : 'landscape'} pause ${pause}: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('a front raise filmed with one shoulder out of the picture counts every rep: upright read on the seen side', () => {
  // Landscape, 73 deg, 2 m up, 1.5 m away, turned 12 deg across and 6-8 down: the far shoulder is
  // out of the picture. The seen shoulder against the middle of both hips leaned 40 deg, the gate
  // (upright within 35) shut, and the old code counted 0 of 6.
  const wrong: string[] = [];
  for (const [yaw, across] of [[-45, -12], [45, 12]] as const) {
    for (const down of [-6, -8]) {
      const cam: PhoneCam = { yaw, height: 2, away: 1.5, phone: { fov: 73, width: 1920, height: 1080, turn: [across, down] } };
      const frames = shoot(movementOf('front-raise', 0.95), cam, clean(6));
      const oneShoulder = frames.filter((f) => (f.keypoints[KP.leftShoulder]!.score < 0.3) !== (f.keypoints[KP.rightShoulder]!.score < 0.3)).length / frames.length;
      assert.ok(oneShoulder > 0.9, `yaw ${yaw} down ${down}: one shoulder out on ${oneShoulder.toFixed(2)} of the frames`);
      const { count } = countOn('front-raise', cam, clean(6), 0.95);
      if (count !== 6) wrong.push(`yaw ${yaw} turned ${across}, ${down}: ${count} of 6`);
    }
  }
  assert.deepEqual(wrong, []);
});
