// Counts that do not depend on which way the person faces: the same set filmed mirrored (left and
// right swapped, the picture flipped) counts the same repetitions at the same times. Other people
// film facing either way, so a count that changes with the facing direction fails on clips we
// never see. Also: a rep whose top the model only guesses (a hand hidden behind the torso, placed
// somewhere at low confidence) counts as one whose top it calls unseen, since which of the two the
// model does depends on the facing direction (the shared bent-over row: 10 of 12 as filmed, 3 of
// 12 mirrored before this).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExerciseDef } from '../../src/analysis/exercise.js';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { exerciseDef } from '../../src/analysis/rules/index.js';
import { KP, type Keypoint, type PoseFrame } from '../../src/analysis/pose.js';
import { guessedTop } from '../../src/analysis/counting.js';
import { mirrored, series } from './synthetic.js';
import { body, dir, project, VIEWS } from './figure3d.js';

const FPS = 10;
const def = (id: string): ExerciseDef => exerciseDef(id)!;
const wave = (t: number, period: number, rest: number) => {
  const k = (t % (period + rest)) - rest / 2;
  return k > 0 && k < period ? (1 - Math.cos((2 * Math.PI * k) / period)) / 2 : 0;
};
const frames = (pose: (u: number) => Keypoint[], reps: number, period = 2, rest = 1) =>
  series(FPS, reps * (period + rest), (t) => pose(wave(t, period, rest)));

/** What the count says: each attempt's times and validity, in order. */
function count(d: ExerciseDef, poses: PoseFrame[]) {
  return analyzePoses(d, poses, FPS).result.repetitions.map((r) => ({ start: r.start_time_ms, end: r.end_time_ms, valid: r.is_valid_rep }));
}

function assertSameMirrored(d: ExerciseDef, poses: PoseFrame[], expectValid: number, what: string) {
  const asFilmed = count(d, poses), flipped = count(d, poses.map(mirrored));
  assert.equal(asFilmed.filter((r) => r.valid).length, expectValid, `${what}: as filmed`);
  assert.deepEqual(flipped, asFilmed, `${what}: mirrored, the same reps at the same times`);
}

const hide = (kps: Keypoint[], joints: number[], score = 0.05) => { for (const i of joints) kps[i] = { ...kps[i]!, score }; return kps; };
const hands = [KP.leftWrist, KP.rightWrist, KP.leftHand, KP.rightHand];
const hang = { raise: 0, plane: 0, upper: dir(0, 180, 1), fore: [0, -1, 0] as [number, number, number] };
const pull = (u: number) => ({ raise: 0, plane: 0, upper: dir(90 * u, 180, 1), fore: [0, -1, 0] as [number, number, number] });

test('mirrored sets count the same reps at the same times: one arm working, side-on, diagonal and rear views', () => {
  // A one-arm row with the right arm, the left hanging: the two sides differ on every frame.
  const oneArmRow = (u: number, yaw: number) => project(body({ tilt: 50, kneeBend: 20, left: hang, right: pull(u) }), yaw);
  for (const yaw of [VIEWS.side, VIEWS.diagonal, 135, -45]) assertSameMirrored(def('bent-over-row'), frames((u) => oneArmRow(u, yaw), 4), 4, `one-arm row, yaw ${yaw}`);
  // Two-arm row from a rear diagonal, the tops hidden behind the torso.
  const row = (u: number) => project(body({ tilt: 50, kneeBend: 20, left: pull(u), right: pull(u) }), 135);
  const arms = [KP.leftElbow, KP.rightElbow, ...hands];
  assertSameMirrored(def('bent-over-row'), frames((u) => (u > 0.4 ? hide(row(u), arms) : row(u)), 4), 4, 'row, tops hidden');
  // Squats side-on (the far leg hidden) and at a diagonal; a one-arm lateral raise from the front.
  const squat = (u: number, yaw: number) => project(body({ kneeBend: 100 * u, tilt: 30 * u }), yaw);
  for (const yaw of [VIEWS.side, VIEWS.diagonal]) assertSameMirrored(def('squat'), frames((u) => squat(u, yaw), 5), 5, `squat, yaw ${yaw}`);
  const raise = (u: number) => project(body({ left: { raise: 90 * u, plane: 90 } }), VIEWS.front);
  assertSameMirrored(def('lateral-raise'), frames(raise, 3), 3, 'one-arm lateral raise');
});

test('a row whose hands the model guesses at the top (seen at low confidence, at the wrong place) counts as one whose hands it calls unseen', () => {
  const row = (u: number) => project(body({ tilt: 50, kneeBend: 20, left: pull(u), right: pull(u) }), VIEWS.side);
  const arms = [KP.leftElbow, KP.rightElbow, ...hands];
  // Past 40% of the pull the hands are behind the torso: called unseen, or placed where a 40% pull
  // would put them with a confidence of 0.4 (a guess, as the model does facing the other way).
  const unseen = (u: number) => (u > 0.4 ? hide(row(u), arms) : row(u));
  const guessed = (u: number) => (u > 0.4 ? hide(row(0.4), hands, 0.4) : row(u));
  const d = def('bent-over-row');
  const valid = (f: (u: number) => Keypoint[]) => count(d, frames(f, 4)).filter((r) => r.valid).length;
  assert.equal(valid(unseen), 4, 'tops unseen');
  assert.equal(valid(guessed), 4, 'tops guessed');
  // The same 40% pull with the hands surely seen is too short to be a row.
  assert.equal(valid((u) => row(Math.min(u, 0.4))), 0, 'a 40% pull in full view');
});

test('guessedTop: only a frame at full relative range read on guessed joints makes the top unmeasured', () => {
  const rel = [0, 0.3, 0.7, 0.9, 0.7, 0.3, 0];
  const at = { start: 0, end: 6 };
  assert.equal(guessedTop(rel, at, undefined), false);
  assert.equal(guessedTop(rel, at, rel.map(() => false)), false);
  assert.equal(guessedTop(rel, at, [true, true, false, false, false, true, true]), false, 'guessed only near rest');
  assert.equal(guessedTop(rel, at, [false, false, false, true, false, false, false]), true, 'guessed at the top');
});
