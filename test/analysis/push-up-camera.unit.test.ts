// Push-up depth where the camera cannot read it as filmed side-on (rules/push-up.ts depthSignal,
// headOverShoulders): a 3D stick figure on hands and toes (figure3d.ts units) filmed by the pinhole
// camera of camera.ts, judged against the same push-up filmed side-on from far away (the truth:
// nothing foreshortened, no arm nearer than the other). Margins are in the depth rule's moderate
// bands (0.12 of full depth); past 0 the rep is faulted "Shallow push-up".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzePoses, type PipelineOutput } from '../../src/analysis/pipeline.js';
import { pushUp } from '../../src/analysis/rules/push-up.js';
import { marginOf } from '../../src/analysis/rules/common.js';
import { KP } from '../../src/analysis/pose.js';
import { FORE, UPPER, type Joints, type V3 } from './figure3d.js';
import { film, type Camera } from './camera.js';
import { cycle, series } from './synthetic.js';

const ARM = UPPER + FORE;

/**
 * Face down on hands and toes along z (head toward +z), the hands under the shoulders, the
 * shoulders `drop` arm lengths below straight arms, the elbows bending back and out. The head is
 * held up in line with the back, or hangs below the shoulders (`bowed`).
 */
function pushUpBody(drop: number, head: 'up' | 'bowed'): Joints {
  const shY = ARM - drop * ARM;
  const j: Joints = {};
  for (const side of [1, -1] as const) {
    const n = side === 1 ? 'left' : 'right';
    const sh: V3 = [side * 60, shY, 0];
    // The elbow where upper arm and forearm meet, bent back (-z) and a little out.
    const along = (UPPER * UPPER - FORE * FORE + shY * shY) / (2 * shY), out = Math.sqrt(Math.max(0, UPPER * UPPER - along * along));
    const hip: V3 = [side * 35, shY * 0.85 + 10, -125];
    j[`${n}Shoulder`] = sh; j[`${n}Wrist`] = [side * 70, 0, 0]; j[`${n}Elbow`] = [side * (65 + out * 0.5), shY - along, -out * 0.85];
    j[`${n}Hip`] = hip; j[`${n}Knee`] = [side * 38, (hip[1] + 8) / 2, -192]; j[`${n}Ankle`] = [side * 40, 8, -260];
  }
  const c: V3 = head === 'up' ? [0, shY + 12, 38] : [0, shY - 22, 28];
  j.nose = [0, c[1] - 8, c[2] + 14];
  j.leftEye = [10, c[1] - 3, c[2] + 12]; j.rightEye = [-10, c[1] - 3, c[2] + 12];
  j.leftEar = [22, c[1], c[2]]; j.rightEar = [-22, c[1], c[2]];
  return j;
}

/** Full depth (1 is the chest a fist above the floor: shoulders 0.45 arm lengths down) and half of it. */
const FULL = 0.47, HALF = 0.27;

/**
 * Four push-ups to `drop` (2 s each, 1 s at the top between) filmed by `cam`. `farArmHalfSeen`: the
 * left arm, away from a camera on the person's right, scored as the model scored a good set filmed
 * that way (omartarek_pushup_diagonal: far elbow 0.41-0.54, far wrist 0.87-0.90).
 */
function filmed(drop: number, cam: Camera, head: 'up' | 'bowed' = 'up', farArmHalfSeen = false): PipelineOutput {
  const fps = 12;
  const poses = series(fps, 13, (t) => {
    const kps = film(pushUpBody(0.02 + drop * cycle(Math.max(0, t - 0.5), 2, 1), head), cam);
    if (farArmHalfSeen) {
      kps[KP.leftElbow] = { ...kps[KP.leftElbow]!, score: 0.45 };
      kps[KP.leftWrist] = { ...kps[KP.leftWrist]!, score: 0.85 };
    }
    return kps;
  });
  return analyzePoses(pushUp, poses, fps);
}

const TRUTH: Camera = { yaw: 90, pitch: 0, distance: 30, aim: [0, 60, -100] };
/** On the floor 1.2 m from the shoulders, about 30 deg off the head end (read 24 deg: not side-on). */
const CLOSE_DIAGONAL: Camera = { yaw: 32, pitch: 3, distance: 1.2, aim: [0, 50, 0] };
const FRONT: Camera = { yaw: 0, pitch: 5, distance: 2, aim: [0, 50, 0] };

const margins = (out: PipelineOutput) => out.reps.map((r) => marginOf(r, 'push-up-range'));
const shallow = (out: PipelineOutput) => out.result.repetitions.filter((r) => r.issues.some((i) => i.name === 'Shallow push-up')).length;
const show = (out: PipelineOutput) => margins(out).map((m) => m.toFixed(2)).join(' ');

test('a full push-up filmed close and low from a diagonal, its far arm half seen, reads the depth seen side-on: not shallow', () => {
  const truth = filmed(FULL, TRUTH);
  assert.equal(truth.reps.length, 4);
  assert.ok(margins(truth).every((m) => m < 0), `side-on: ${show(truth)}`);
  const diag = filmed(FULL, CLOSE_DIAGONAL, 'up', true);
  assert.equal(diag.view, 'diagonal');
  assert.equal(diag.reps.length, 4);
  assert.equal(shallow(diag), 0, show(diag));
  // Within half a band of the truth (it reads 1.06 of full depth against 1.02).
  margins(diag).forEach((m, i) => assert.ok(Math.abs(m - margins(truth)[i]!) < 0.5, `diagonal ${show(diag)}, side-on ${show(truth)}`));
  // The counted signal itself (the two wrists' midpoint over the near arm's length) reads the far
  // arm's smaller travel: 0.93 of full depth, past the limit (0.95). What the rule corrects.
  assert.ok(diag.reps.every((r) => Math.max(...r.progress!.filter(Number.isFinite)) < 0.95), 'the uncorrected signal reads shallow');
  // Both arms seen alike (no far arm scored lower): the same depth.
  const seen = filmed(FULL, CLOSE_DIAGONAL);
  margins(seen).forEach((m, i) => assert.ok(Math.abs(m - margins(diag)[i]!) < 0.2, `${show(seen)} against ${show(diag)}`));
});

test('a push-up stopping at half depth is faulted shallow from the side, from the close diagonal and from the front', () => {
  for (const [name, out] of [['side', filmed(HALF, TRUTH)], ['diagonal', filmed(HALF, CLOSE_DIAGONAL, 'up', true)], ['front, head up', filmed(HALF, FRONT)]] as const) {
    assert.equal(out.reps.length, 4, name);
    assert.equal(shallow(out), 4, `${name}: ${show(out)}`);
    // Half depth is about 0.6 of full: moderate or worse (past one band) everywhere.
    assert.ok(margins(out).every((m) => m > 2), `${name}: ${show(out)}`);
  }
});

test('from the front the depth is read while the head is up, and not checked where it hangs over the shoulders', () => {
  const up = filmed(FULL, FRONT);
  assert.equal(up.view, 'front');
  assert.ok(margins(up).every((m) => m < 0), show(up));
  // The head hanging below the shoulders' line at the bottom covers them: neither a full nor a half
  // push-up is judged on its depth: no fault, and no praise for a depth not seen either.
  for (const drop of [FULL, HALF]) {
    const bowed = filmed(drop, FRONT, 'bowed');
    assert.equal(bowed.reps.length, 4);
    assert.ok(margins(bowed).every((m) => Number.isNaN(m)), show(bowed));
    assert.equal(shallow(bowed), 0);
    assert.ok(bowed.result.repetitions.every((r) => !r.strengths.some((x) => x.name === 'Deep push-up')), `drop ${drop}`);
  }
});
