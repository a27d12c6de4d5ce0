// The overhead triceps extension filmed with the top of the picture cut at the forehead (issue 20zf):
// the hands overhead go out of the picture through the extended half of every rep and come back
// into it behind the head at the bottom. Synthetic bodies (camera-sets.ts), so no clip is spent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countOn, type PhoneCam, type PhoneTake } from './camera-sets.js';

const ID = 'overhead-tricep-extension';
const cropped = (reps: number, noise = 2): PhoneTake => ({ reps, period: 2, pause: 0.5, noise, lost: 0.02, crop: 'top', seed: 5 });

test('an overhead triceps extension with the hands out of the top of the picture at lockout counts every rep from the side, the diagonals, behind and the front: the hand the model only guesses above its seen elbow reads the extended half of the rep (the code before counted 0-8 of 6, on the whole-body movement)', () => {
  const wrong: string[] = [];
  const cams: PhoneCam[] = [];
  for (const yaw of [0, 45, 90, 135, -90, -135]) for (const height of [0.3, 1, 2]) {
    // From the front 2 m up the picture also cuts the elbows (nothing of the arm is seen): below.
    if (yaw === 0 && height === 2) continue;
    cams.push({ yaw, height, away: 3 });
  }
  cams.push({ yaw: 180, height: 0.3, away: 3 }, { yaw: 180, height: 1, away: 3 }, { yaw: 90, height: 2, away: 5 }, { yaw: 135, height: 1, away: 5 });
  for (const cam of cams) for (const depth of [1, 0.85]) {
    const { count, out } = countOn(ID, cam, cropped(6), depth);
    if (count !== 6) wrong.push(`yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m depth ${depth}: ${count} of 6 (counted on the ${out.countedOn})`);
  }
  assert.deepEqual(wrong, []);
});

test('the camera sweep\'s cropped overhead triceps extensions (default takes) count exactly: 5 of 8, 0 of 5, 25 of 12, 9 of 5, 2 of 3, 5 of 10, 1 of 5 and 17 of 10 before', () => {
  const takes: [PhoneCam, PhoneTake, number][] = [
    [{ yaw: 90, height: 2, away: 1.5 }, { reps: 8, period: 2.71, pause: 0, noise: 2.9, lost: 0.02, crop: 'top', seed: 751634231 }, 0.87],
    [{ yaw: 90, height: 2, away: 3 }, { reps: 5, period: 2.0, pause: 0.57, noise: 1.1, lost: 0.02, crop: 'top', seed: 81758668 }, 0.87],
    [{ yaw: 135, height: 1, away: 3 }, { reps: 12, period: 1.79, pause: 0.62, noise: 5.6, lost: 0.02, crop: 'top', seed: 778892016 }, 0.88],
    [{ yaw: 135, height: 2, away: 5 }, { reps: 5, period: 1.75, pause: 0.72, noise: 5.0, lost: 0.02, crop: 'top', seed: 403365043 }, 0.87],
    [{ yaw: -45, height: 2, away: 3 }, { reps: 3, period: 2.52, pause: 0, noise: 4.0, lost: 0, crop: 'top', seed: 1566577703 }, 0.87],
    [{ yaw: -90, height: 0.3, away: 3 }, { reps: 10, period: 2.38, pause: 0, noise: 2.0, lost: 0.05, crop: 'top', seed: 2035074915 }, 0.9],
    [{ yaw: -90, height: 0.3, away: 5 }, { reps: 5, period: 1.7, pause: 0.41, noise: 1.2, lost: 0.05, crop: 'top', seed: 159488347 }, 0.86],
    [{ yaw: -90, height: 2, away: 1.5 }, { reps: 10, period: 2.46, pause: 0, noise: 4.1, lost: 0, crop: 'top', seed: 67640265 }, 0.87],
  ];
  const wrong: string[] = [];
  for (const [cam, take, depth] of takes) {
    const { count } = countOn(ID, cam, take, depth);
    if (count !== take.reps) wrong.push(`yaw ${cam.yaw} h ${cam.height} m away ${cam.away} m: ${count} of ${take.reps}`);
  }
  assert.deepEqual(wrong, []);
});

test('arms held straight overhead, or lowered only a fifth of the way, with the hands out of the top of the picture count no valid rep: a guessed hand is read only above its elbow, where it says the arm is extended', () => {
  const wrong: string[] = [];
  for (const yaw of [0, 45, 90, 135, 180, -90]) for (const height of [0.3, 1, 2]) for (const away of [3]) for (const depth of [0, 0.2]) for (const noise of [2, 6]) {
    const { count } = countOn(ID, { yaw, height, away }, { ...cropped(6, noise), lost: 0.05, seed: 7 }, depth);
    if (count !== 0) wrong.push(`yaw ${yaw} h ${height} m away ${away} m depth ${depth} noise ${noise}: ${count}`);
  }
  assert.deepEqual(wrong, []);
});

test.skip('known miss: the raised arms wholly out of the picture (a phone 1.5 m away, or the picture cut at the forehead from the front 2 m up) count 0: no elbow is seen on any frame, so neither the posture gate nor the forearm can be read; an arm is read only through an elbow the model sees (every miss left on camera-sweep --phone, seeds 0-2, but one, whose wrists are never seen)', () => {
  assert.equal(countOn(ID, { yaw: 0, height: 2, away: 1.5 }, cropped(6), 1).count, 6);
});
