// A fault is what the rep held, not one frame's keypoint: the lunge's knee travel and torso lean,
// the shoulder press's lean back (common.ts sustained), the press's uneven arms and the bridge's
// foot placement at the top (atPeak: the peak frame and its neighbours), the squat's heels against
// where the ankles stood as the rep began, the pull-up's swing between the leans it held. And what
// the rep shows at all: joints the picture cuts off (rules/in-picture.ts), a seated press's lean
// over its rack, the bridge's shins against the floor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContext, type CameraAngle, type ExerciseDef, type RepView } from '../../src/analysis/exercise.js';
import { KP, type Keypoint } from '../../src/analysis/pose.js';
import { lunge, repFrontSide } from '../../src/analysis/rules/lunge.js';
import { shoulderPress } from '../../src/analysis/rules/shoulder-press.js';
import { gluteBridge } from '../../src/analysis/rules/glute-bridge.js';
import { squat } from '../../src/analysis/rules/squat.js';
import { pullUp } from '../../src/analysis/rules/pull-up.js';
import { frontSquatter, mirrored, series, sideBridge, sideSquatter } from './synthetic.js';

/** One repetition at 10 fps over `seconds`, peak in the middle; `poseAt(u, i)` with u 0 -> 1 -> 0 and i the frame. */
function repOf(poseAt: (u: number, i: number) => Keypoint[], view: CameraAngle, seconds = 2): RepView {
  let i = 0;
  const frames = buildContext(series(10, seconds, (t) => poseAt(Math.sin((Math.PI * t) / seconds), i++)), 10);
  return { frames, peak: Math.floor(frames.length / 2), peakProgress: 1, valid: true, durationS: seconds, view };
}
const check = (def: ExerciseDef, id: string, rep: RepView) => def.rules.find((r) => r.id === id)!.check(rep);
/** Frame `at` (or frames `at` to `at + n - 1`) replaced by `glitch`. */
const withFrames = (base: (u: number) => Keypoint[], glitch: (u: number) => Keypoint[], at: number, n = 1) =>
  (u: number, i: number) => (i >= at && i < at + n ? glitch(u) : base(u));

test('lunge: a knee or torso that jumps for one frame is not a fault; held for three it is', () => {
  const upright = (u: number) => sideSquatter({ knee: 180 - 80 * u, lean: 10 });
  const leaning = (u: number) => sideSquatter({ knee: 180 - 80 * u, lean: 55 });
  assert.equal(check(lunge, 'lunge-torso', repOf(upright, 'side')), null);
  // Frames are smoothed over their neighbours (signals.ts smoothPoses), so a lone jump still reads past 30 deg there.
  assert.equal(check(lunge, 'lunge-torso', repOf(withFrames(upright, leaning, 8), 'side')), null);
  assert.ok(check(lunge, 'lunge-torso', repOf(withFrames(upright, leaning, 8, 3), 'side')));
  // The front knee thrown far ahead of the ankle (the shin tilted 60 deg) in one frame, then in three.
  const kneeAhead = (u: number) => sideSquatter({ knee: 180 - 80 * u, lean: 10 })
    .map((k, j) => (j === KP.leftKnee ? { ...k, x: k.x + 70 } : k));
  assert.equal(check(lunge, 'lunge-knee-travel', repOf(withFrames(upright, kneeAhead, 8), 'side')), null);
  assert.ok(check(lunge, 'lunge-knee-travel', repOf(withFrames(upright, kneeAhead, 8, 3), 'side')));
});

test('lunge: the front leg of a split squat is the one whose knee stays up, even when the back knee bends more, and mirrored too', () => {
  // Front leg (left, near the camera) to 90 deg; the back leg from the same hip, its thigh a little
  // forward of vertical and its knee dropping toward the floor, bent to 85 deg with the shin going
  // back near level. Picked by bend, the back leg was "the front", and its near-level shin read as
  // a knee far past its ankle.
  const rot = (v: { x: number; y: number }, deg: number) => {
    const a = (deg * Math.PI) / 180;
    return { x: v.x * Math.cos(a) - v.y * Math.sin(a), y: v.x * Math.sin(a) + v.y * Math.cos(a) };
  };
  const split = (u: number): Keypoint[] => {
    const kps = sideSquatter({ knee: 180 - 90 * u, lean: 10 });
    const hip = kps[KP.leftHip]!, th = (-10 * u * Math.PI) / 180;
    const knee = { x: hip.x - 100 * Math.sin(th), y: hip.y + 100 * Math.cos(th) };
    const up = { x: (hip.x - knee.x) / 100, y: (hip.y - knee.y) / 100 };
    const shin = rot(up, -(180 - 95 * u));
    kps[KP.rightHip] = { ...hip };
    kps[KP.rightKnee] = { ...knee, score: 0.9 };
    kps[KP.rightAnkle] = { x: knee.x + 100 * shin.x, y: knee.y + 100 * shin.y, score: 0.9 };
    return kps;
  };
  const asFilmed = repOf(split, 'side');
  assert.equal(repFrontSide(asFilmed), 'left');
  assert.equal(check(lunge, 'lunge-knee-travel', asFilmed), null);
  const flipped = repOf((u) => mirrored({ timeMs: 0, width: 600, height: 600, keypoints: split(u) }).keypoints, 'side');
  assert.equal(repFrontSide(flipped), 'right');
  assert.equal(check(lunge, 'lunge-knee-travel', flipped), null);
});

test('shoulder press: one frame of lean is not leaning back; held it is', () => {
  const standing = (lean: number) => () => sideSquatter({ knee: 178, lean });
  assert.equal(check(shoulderPress, 'press-back-arch', repOf(standing(5), 'side')), null);
  assert.equal(check(shoulderPress, 'press-back-arch', repOf(withFrames(standing(5), standing(35), 8), 'side')), null);
  assert.ok(check(shoulderPress, 'press-back-arch', repOf(withFrames(standing(5), standing(35), 8, 3), 'side')));
});

test('shoulder press: uneven arms are read on the top, not on one frame of it', () => {
  // Filmed from the front; one wrist 60 px (half an arm) higher on the peak frame alone, then on three.
  const even = () => frontSquatter(0);
  const uneven = () => frontSquatter(0).map((k, j) => (j === KP.leftWrist ? { ...k, y: k.y - 60 } : k));
  assert.equal(check(shoulderPress, 'press-uneven', repOf(even, 'front')), null);
  assert.equal(check(shoulderPress, 'press-uneven', repOf(withFrames(even, uneven, 10), 'front')), null);
  assert.ok(check(shoulderPress, 'press-uneven', repOf(withFrames(even, uneven, 9, 3), 'front')));
});

test('glute bridge: the feet are judged on the top, not on one frame of it', () => {
  // The ankle keypoint thrown 150 px in toward the hips on the peak frame alone (half of it after
  // smoothing over the neighbours) reads a shin leaning far back; the neighbours read it square enough.
  const closed = (u: number) => sideBridge(u).map((k, j) => (j === KP.leftAnkle ? { ...k, x: k.x - 150 } : k));
  assert.equal(check(gluteBridge, 'bridge-feet', repOf(sideBridge, 'side')), null);
  assert.equal(check(gluteBridge, 'bridge-feet', repOf(withFrames(sideBridge, closed, 10), 'side')), null);
  assert.ok(check(gluteBridge, 'bridge-feet', repOf(withFrames(sideBridge, closed, 9, 3), 'side')));
});

test('shoulder press: the lean is not read off hips the picture cuts off, nor the lock-out off hands at its edge', () => {
  const leaning = () => sideSquatter({ knee: 178, lean: 30 });
  const rep = repOf(leaning, 'side');
  assert.ok(check(shoulderPress, 'press-back-arch', rep));
  // Framed from the chest up: the picture ends 10 px above the hips, which the model still places.
  const hipY = rep.frames[0]!.p[KP.leftHip]!.y;
  assert.equal(check(shoulderPress, 'press-back-arch', { ...rep, picture: { width: 600, height: hipY - 10 } }), undefined);
  assert.ok(check(shoulderPress, 'press-back-arch', { ...rep, picture: { width: 600, height: 600 } }));
  // The arms bent to 135 deg: a lock-out fault, unless the wrist is within 0.15 arm lengths of an edge.
  assert.ok(check(shoulderPress, 'press-lockout', rep));
  const wristX = rep.frames[0]!.p[KP.leftWrist]!.x;
  assert.equal(check(shoulderPress, 'press-lockout', { ...rep, picture: { width: wristX + 10, height: 600 } }), undefined);
  assert.ok(check(shoulderPress, 'press-lockout', { ...rep, picture: { width: wristX + 40, height: 600 } }));
});

test('shoulder press: a rep the clip ends on the way up is not faulted for a lock-out it had no time to reach', () => {
  // Upper arm straight up from the shoulder, the forearm bent `elbow` deg (180 = locked out).
  const pressing = (elbow: number) => {
    const kps = sideSquatter({ knee: 178, lean: 0 });
    const sh = kps[KP.leftShoulder]!, a = ((180 - elbow) * Math.PI) / 180;
    const el = { x: sh.x, y: sh.y - 65, score: 0.9 };
    kps[KP.leftElbow] = el;
    kps[KP.leftWrist] = { x: el.x + 60 * Math.sin(a), y: el.y - 60 * Math.cos(a), score: 0.9 };
    return kps;
  };
  // Still straightening on the last frame, at 135-140 deg: the top was not seen.
  const cut = repOf((_u, i) => pressing(60 + 4 * i), 'side');
  assert.equal(check(shoulderPress, 'press-lockout', cut), undefined);
  // The same arms held at 140 deg before the rep ends: a lock-out fault.
  assert.ok(check(shoulderPress, 'press-lockout', repOf((_u, i) => pressing(Math.min(140, 60 + 5 * i)), 'side')));
  // Locked out on the last frame: judged, and a pass.
  assert.equal(check(shoulderPress, 'press-lockout', repOf((_u, i) => pressing(Math.min(175, 60 + 8 * i)), 'side')), null);
});

test('shoulder press: seated against a backrest, the lean is what the press adds to the rack', () => {
  // Thighs near level (knees 60 deg): seated. A bench reclined 25 deg is the setup, not a fault;
  // standing at 25 deg is; seated, the torso going from 25 to 45 deg during the press is too.
  const seatedAt = (lean: number) => () => sideSquatter({ knee: 60, lean });
  assert.equal(check(shoulderPress, 'press-back-arch', repOf(seatedAt(25), 'side')), null);
  assert.ok(check(shoulderPress, 'press-back-arch', repOf(() => sideSquatter({ knee: 178, lean: 25 }), 'side')));
  assert.ok(check(shoulderPress, 'press-back-arch', repOf((u) => sideSquatter({ knee: 60, lean: 25 + 20 * u }), 'side')));
});

test('glute bridge: a shin square to the floor at the top is good whatever the thighs\' slope; pulled in or cut off it is not', () => {
  // Knees high (the thighs sloping 27 deg from the hips up to them), shins vertical: the knee closes
  // to 63 deg, which the knee-angle band (70-115) called "feet too close".
  const square = (u: number) => sideBridge(u).map((k, j) => (j === KP.leftKnee ? { ...k, y: 380 } : j === KP.leftAnkle ? { ...k, x: 420 } : k));
  const rep = repOf(square, 'side');
  assert.equal(check(gluteBridge, 'bridge-feet', rep), null);
  // The heels 70 px in toward the hips: the shin leans 30 deg back.
  const pulled = (u: number) => square(u).map((k, j) => (j === KP.leftAnkle ? { ...k, x: 350 } : k));
  const close = check(gluteBridge, 'bridge-feet', repOf(pulled, 'side'));
  assert.ok(close && /too close/.test(close.description));
  // A picture ending above the ankles: the feet are not judged.
  assert.equal(check(gluteBridge, 'bridge-feet', { ...repOf(pulled, 'side'), picture: { width: 800, height: 480 } }), undefined);
});

test('lunge: the feet cut off by the picture are not judged (rules/in-picture.ts feetInPicture)', () => {
  const upright = (u: number) => sideSquatter({ knee: 180 - 80 * u, lean: 10 });
  const kneeAhead = (u: number) => sideSquatter({ knee: 180 - 80 * u, lean: 10 }).map((k, j) => (j === KP.leftKnee ? { ...k, x: k.x + 70 } : k));
  const rep = repOf(withFrames(upright, kneeAhead, 8, 3), 'side');
  assert.ok(check(lunge, 'lunge-knee-travel', rep));
  // The ankles stand at y 500: a picture 490 px tall has them guessed below its edge.
  assert.equal(check(lunge, 'lunge-knee-travel', { ...rep, picture: { width: 800, height: 490 } }), undefined);
  assert.ok(check(lunge, 'lunge-knee-travel', { ...rep, picture: { width: 800, height: 510 } }));
});

test('squat heels: the rise is read from where the ankles stood over the rep\'s first frames, not its first frame alone', () => {
  const flat = (u: number) => sideSquatter({ knee: 180 - 90 * u, lean: 20 });
  // The first frame's ankle keypoints 40 px too low (a third of a leg): every later frame read as the heels up.
  const lowAnkles = () => flat(0).map((k, j) => ([KP.leftAnkle, KP.rightAnkle] as number[]).includes(j) ? { ...k, y: k.y + 40 } : k);
  assert.equal(check(squat, 'squat-heels', repOf(flat, 'side')), null);
  assert.equal(check(squat, 'squat-heels', repOf(withFrames(flat, lowAnkles, 0), 'side')), null);
  assert.ok(check(squat, 'squat-heels', repOf((u) => sideSquatter({ knee: 180 - 90 * u, lean: 20, heelLift: 25 * u }), 'side')));
});

test('pull-up: one frame of lean is not a swing; a lean held for three frames is', () => {
  // The torso-lean reading of a hanging body: a standing figure serves (the rule reads only the lean).
  const still = () => sideSquatter({ knee: 178, lean: 3 });
  const swung = () => sideSquatter({ knee: 178, lean: 45 });
  assert.equal(check(pullUp, 'pull-up-kip', repOf(still, 'side')), null);
  assert.equal(check(pullUp, 'pull-up-kip', repOf(withFrames(still, swung, 8), 'side')), null);
  assert.ok(check(pullUp, 'pull-up-kip', repOf(withFrames(still, swung, 8, 3), 'side')));
});

/** The side squatter with its near foot drawn: heel under the ankle, toe tip 60 px ahead on the floor (500). */
const withFoot = (kps: Keypoint[]): Keypoint[] => {
  const out = [...kps], ankle = kps[KP.leftAnkle]!;
  out[KP.leftHeel] = { x: ankle.x - 10, y: ankle.y + 12, score: 0.9 };
  out[KP.leftToe] = { x: 360, y: 512, score: 0.9 };
  return out;
};

test('squat heels: the ankles\' rise counts only where the toes stayed on the floor; a picture that moved is not checked', () => {
  const flat = (u: number) => withFoot(sideSquatter({ knee: 180 - 90 * u, lean: 20 }));
  assert.equal(check(squat, 'squat-heels', repOf(flat, 'side')), null);
  // The heels come up 25 px (an eighth of a leg) at the bottom, the toe tips stay down: a fault.
  const onToes = (u: number) => withFoot(sideSquatter({ knee: 180 - 90 * u, lean: 20, heelLift: 25 * u })).map((k, j) => (j === KP.leftToe ? { ...k, y: 512 } : k));
  assert.ok(check(squat, 'squat-heels', repOf(onToes, 'side')));
  // The whole picture moves up 25 px at the bottom (a hand-held camera tilting): the ankles rise as
  // much as on the toes, and so do the toe tips; without them the ankles alone read a fault.
  const tilted = (u: number) => flat(u).map((k) => (k ? { ...k, y: k.y - 25 * u } : k));
  assert.equal(check(squat, 'squat-heels', repOf(tilted, 'side')), undefined);
  const tiltedNoToes = (u: number) => sideSquatter({ knee: 180 - 90 * u, lean: 20 }).map((k) => ({ ...k, y: k.y - 25 * u }));
  assert.ok(check(squat, 'squat-heels', repOf(tiltedNoToes, 'side')));
});

test('squat knees caving in: not judged against ankles whose span changes over the rep', () => {
  const caving = (u: number) => frontSquatter(u, 25 * u);
  assert.ok(check(squat, 'squat-knee-valgus', repOf(caving, 'front')));
  // The ankle keypoints lost on every other three frames, drawn 20 px toward each other (a span of 50 against 90).
  const lost = (u: number, i: number) => caving(u).map((k, j) => (Math.floor(i / 3) % 2 && (j === KP.leftAnkle || j === KP.rightAnkle) ? { ...k, x: k.x + (j === KP.leftAnkle ? -20 : 20) } : k));
  assert.equal(check(squat, 'squat-knee-valgus', repOf(lost, 'front')), undefined);
});
