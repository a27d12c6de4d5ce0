// Squats filmed by a phone (issue 16zc; camera.ts `phone`, placed as camera-sets.ts aimedAt places
// one, as build-sweep.ts --phone does): a fixed lens, a real picture, the person off its centre and,
// up close, partly cut off. Where the picture cuts off what a rule reads, the rule says "not
// checked", never a pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PipelineOutput } from '../../src/analysis/pipeline.js';
import { body, BUILDS, FIGURE } from './figure3d.js';
import { phoneCamera, phoneFocal, type Camera } from './camera.js';
import { aimedAt } from './camera-sets.js';
import { CLEAN, demoFor, filmDemo, filmDemo as filmSquat, type Demo } from './squat-demos.js';

/** build-sweep's "too deep" demo: the hips 40 deg below level at the bottom (0.64 thigh lengths below the knees). */
const TOO_DEEP: Demo = { bottom: { shin: 42, thigh: 130, tilt: 50 } };

/** A phone side-on, `height` m off the floor and `away` m along it, `fov` deg, landscape unless `portrait`. */
const phone = (away: number, height: number, fov: number, portrait = false, turn: readonly [number, number] = [0, 0]): Camera =>
  ({ ...aimedAt(body(), { yaw: 90, height, away }), phone: phoneCamera(fov, portrait, turn) });

const praised = (out: PipelineOutput, strength: string) => out.result.repetitions.filter((r) => r.strengths.some((s) => s.name === strength)).length;
const faulted = (out: PipelineOutput, name: string) => out.result.repetitions.filter((r) => r.issues.some((i) => i.name === name)).length;

test('a squat whose hips sink out of a close phone\'s picture is not praised for its depth, and is named too deep where the picture holds it', () => {
  // Landscape 1.5 m away the picture spans about a metre of height: the hips leave it at the
  // bottom, and the frames they were still in read them 0.06 thigh lengths below the knees (the
  // squat sinks 0.64). "Controlled depth" was given on every rep.
  for (const cam of [phone(1.5, 0.3, 75), phone(1.5, 0.3, 60, false, [-12, -5]), phone(2.5, 1, 60, false, [12, 5])]) {
    const out = filmDemo(TOO_DEEP, cam);
    assert.ok(out.result.repetitions.length >= 3, `${JSON.stringify(cam)}: reps`);
    assert.equal(praised(out, 'Controlled depth'), 0, `${JSON.stringify(cam)}: praised`);
  }
  // The whole body in the picture, 3.5 m away: faulted as the pinhole camera faults it.
  for (const cam of [phone(3.5, 1, 67, true), phone(3.5, 0.3, 75)]) {
    assert.equal(faulted(filmDemo(TOO_DEEP, cam), 'Squat too deep'), 4, JSON.stringify(cam));
  }
});

// ---- Issue 16zf: build-sweep --phone's squat leads. ----

/**
 * A phone at `yaw` (camera.ts: 0 in front, 180 behind), `height` m off the floor and `away` m
 * along it, turned off the person by `turn` shares of half its picture (build-sweep phoneShots).
 */
function phoneAt(yaw: number, away: number, height: number, fov: number, portrait: boolean, turn: readonly [number, number] = [0, 0], b = body()): Camera {
  const p = phoneCamera(fov, portrait), f = phoneFocal(p);
  const across = (Math.atan(p.width / 2 / f) * 180) / Math.PI, up = (Math.atan(p.height / 2 / f) * 180) / Math.PI;
  return { ...aimedAt(b, { yaw, height, away }), phone: { ...p, turn: [turn[0] * across, turn[1] * up] } };
}

const reps = (out: PipelineOutput) => out.result.repetitions.length;

test('a clean squat filmed from behind by a low phone off-centre is not read as knees caving in, on any body', () => {
  // Perspective draws the knees, a quarter of a metre further from the camera than the ankles at
  // the bottom, narrower: every body read 85% of the ankle width, at the 0.85 limit. Drawn at the
  // ankles' depth (squat-level.ts kneesAtAnkleDepth) they read 88-89%, as standing.
  const cam = phoneAt(180, 2.5, 0.3, 67, true, [0.5, 0.3]);
  for (const [name, b] of [['figure', FIGURE], ...Object.entries(BUILDS)] as const) {
    const out = filmSquat(b === FIGURE ? CLEAN : demoFor(b, CLEAN), cam);
    assert.ok(reps(out) >= 3, `${name}: reps`);
    assert.equal(faulted(out, 'Knees caving in'), 0, name);
  }
  // Knees that do cave in are still named from there, and from the front.
  for (const c of [cam, phoneAt(0, 2.5, 0.3, 67, true, [0.5, 0.3])]) {
    assert.equal(faulted(filmSquat({ bottom: { ...CLEAN.bottom, kneeIn: 20 } }, c), 'Knees caving in'), 4, JSON.stringify(c));
  }
});

test('a half squat filmed by a low phone that cuts the feet off is not praised for its depth', () => {
  // With the ankles out of the picture no camera pitch was read, the thigh's level was read in the
  // picture (deeper from below) and a half squat passed. The standing thigh is plumb too
  // (squat-level.ts thighPitch): read against the floor, it is named.
  const HALF: Demo = { bottom: { shin: 28, thigh: 65, tilt: 30 } };
  for (const cam of [phoneAt(45, 1.5, 0.3, 60, true), phoneAt(45, 1.5, 0.3, 75, false)]) {
    const out = filmSquat(HALF, cam);
    assert.ok(reps(out) >= 3, `${JSON.stringify(cam)}: reps`);
    assert.equal(praised(out, 'Full depth'), 0, JSON.stringify(cam));
    assert.equal(faulted(out, 'Squat depth'), reps(out), JSON.stringify(cam));
  }
});

test('a clean squat whose head and shoulders a close phone cuts off is not called shallow', () => {
  // Which way the person faces unread, the front's allowance for a thigh pointing at the camera
  // was not given: a clean squat read shallow from the front (0.79 of parallel 0.3 m up, once its
  // pitch is read on the thigh).
  for (const cam of [phoneAt(0, 1.5, 1, 67, true, [-0.5, -0.3]), phoneAt(0, 1.5, 0.3, 60, false, [-0.5, -0.3])]) {
    const out = filmSquat(CLEAN, cam);
    assert.ok(reps(out) >= 3, `${JSON.stringify(cam)}: reps`);
    assert.equal(faulted(out, 'Squat depth'), 0, JSON.stringify(cam));
  }
});

test('a long torso leaning forward, filmed from a diagonal by a low phone, is not praised for an upright torso', () => {
  // The lean read in the picture is foreshortened (46 deg for 61): passed. Against the floor's
  // vertical in 3D it reads past the limit; the pose model's depth alone is no fault, so not checked.
  const lean = demoFor(BUILDS['long torso']!, { bottom: { shin: 30, thigh: 90, tilt: 70 } });
  for (const cam of [phoneAt(45, 2.5, 0.3, 67, false), phoneAt(45, 3.5, 0.3, 60, false)]) {
    const out = filmSquat(lean, cam);
    assert.ok(reps(out) >= 3, `${JSON.stringify(cam)}: reps`);
    assert.equal(praised(out, 'Upright torso'), 0, JSON.stringify(cam));
  }
});

// ---- Issue 16zi: build-sweep --phone's squat faults passed. ----

test('hips shifting to one side, filmed by a phone with the person off the picture\'s centre, is not praised for an even weight', () => {
  // A third of a hip width's shift away from the picture's centre read 0.22-0.25, under the 0.25
  // limit, from phones in front with the person half-way to the picture's left edge: the hips,
  // sinking away from the phone, are drawn toward the centre (0.33 centred). "Weight even on both
  // feet" was given on every rep; perspective may have hidden it (squat-shift.ts hiddenByPerspective).
  const shift = (b: typeof FIGURE): Demo => (b === FIGURE ? { bottom: { ...CLEAN.bottom, hipShift: 23 } } : demoFor(b, { bottom: { ...CLEAN.bottom, hipShift: 23 } }));
  const cams = [phoneAt(0, 3.5, 1, 67, false, [-0.5, -0.3]), phoneAt(0, 3.5, 0.3, 75, true, [-0.5, -0.3]), phoneAt(0, 2.5, 1, 75, false, [-0.5, -0.3])];
  for (const cam of cams) {
    for (const [name, b] of Object.entries(BUILDS)) {
      const out = filmSquat(shift(b), cam);
      assert.ok(reps(out) >= 3, `${name} ${JSON.stringify(cam)}: reps`);
      assert.equal(praised(out, 'Weight even on both feet'), 0, `${name} ${JSON.stringify(cam)}`);
    }
  }
  // Centred, it is named; and a clean squat from every one of those phones keeps its strength.
  assert.equal(faulted(filmSquat(shift(FIGURE), phoneAt(0, 2.5, 1, 67, false)), 'Hips shifting to one side'), 4);
  for (const cam of cams) {
    for (const [name, b] of Object.entries(BUILDS)) {
      const out = filmSquat(b === FIGURE ? CLEAN : demoFor(b, CLEAN), cam);
      assert.equal(faulted(out, 'Hips shifting to one side'), 0, `${name} ${JSON.stringify(cam)}`);
      if (!(name === 'long femurs' && cam.yaw === 180)) assert.equal(praised(out, 'Weight even on both feet'), reps(out), `${name} ${JSON.stringify(cam)}: praised`);
    }
  }
});

test('a squat too deep, filmed side-on by a phone with the person off the picture\'s centre, is not praised for a controlled depth', () => {
  // The phone turned so the person stands half-way to the picture's left edge and 0.3 down: the
  // knee at the bottom, forward of the hip, is at another depth from the phone and drawn tipped
  // against it, and the hips 0.64 thigh lengths below the knees read 0.43-0.51 (centred 0.58).
  // "Controlled depth" was given. Placed in 3D about the hips (squat-level.ts unprojectedAboutHips) they read 0.54-0.57.
  const cams = [phoneAt(90, 3.5, 1, 67, false, [-0.5, -0.3]), phoneAt(90, 2.5, 1, 75, false, [-0.5, -0.3])];
  for (const cam of cams) {
    for (const [name, b] of Object.entries(BUILDS)) {
      const out = filmSquat(b === FIGURE ? TOO_DEEP : demoFor(b, TOO_DEEP), cam);
      assert.ok(reps(out) >= 3, `${name} ${JSON.stringify(cam)}: reps`);
      assert.equal(praised(out, 'Controlled depth'), 0, `${name} ${JSON.stringify(cam)}`);
    }
  }
  // Centred it is named, and a clean squat from those phones keeps "Controlled depth".
  assert.equal(faulted(filmSquat(TOO_DEEP, phoneAt(90, 3.5, 1, 67, false)), 'Squat too deep'), 4);
  for (const cam of cams) assert.equal(praised(filmSquat(CLEAN, cam), 'Controlled depth'), 4, JSON.stringify(cam));
});

test('a clean squat whose shoulder a close phone cuts off at the bottom is not called hips rising before the chest', () => {
  // A phone 1.5 m away from a 45 deg diagonal, 1 m up, the person off the picture's centre: a
  // shoulder leaves the picture at the bottom, the pose model guesses it, and the back read on the
  // guess tipped 20-22 deg out of the bottom (the limit 15) on four bodies.
  const cam = phoneAt(45, 1.5, 1, 67, true, [-0.5, -0.3]);
  for (const [name, b] of Object.entries(BUILDS)) {
    const out = filmSquat(b === FIGURE ? CLEAN : demoFor(b, CLEAN), cam);
    assert.ok(reps(out) >= 3, `${name}: reps`);
    assert.equal(faulted(out, 'Hips rising before the chest'), 0, name);
  }
});

test('a head dropped to the chest, filmed side-on by a phone with the person off the picture\'s centre, is not praised for a neutral neck', () => {
  // Side-on, 1 m up, the person half-way to the picture's right edge and 0.3 up (the feet cut off):
  // a head dropped 80 deg read 18-19 deg against the back, under the 20 deg limit; placed in 3D
  // about the hips (squat-level.ts unprojectedAboutHips) 22-23. "Neutral neck" was given.
  const cam = phoneAt(90, 2.5, 1, 60, false, [0.5, 0.3]);
  const head: Demo = { ...CLEAN, head: (u) => 80 * u };
  for (const [name, b] of Object.entries(BUILDS)) {
    const out = filmSquat(b === FIGURE ? head : demoFor(b, head), cam);
    assert.ok(reps(out) >= 3, `${name}: reps`);
    assert.equal(praised(out, 'Neutral neck'), 0, name);
    // A clean squat from there is not faulted for it.
    assert.equal(faulted(filmSquat(b === FIGURE ? CLEAN : demoFor(b, CLEAN), cam), 'Head position'), 0, `${name}: clean`);
  }
  // And keeps the strength (long femurs' clean squat is faulted for its lean from this phone, which drops the posture strengths).
  assert.equal(praised(filmSquat(CLEAN, cam), 'Neutral neck'), 4);
});

test('a long-femured clean squat filmed side-on with the shins out of the picture is not called leaning forward', () => {
  // Long femurs lean 52 deg with the shins tilted 45, in balance; with the feet cut off the lean was
  // read alone against 50 and faulted. A lean the shins could balance (up to 45 + 20) is not checked there.
  const cam = phoneAt(90, 2.5, 1, 60, false, [0.5, 0.3]);
  const out = filmSquat(demoFor(BUILDS['long femurs']!, CLEAN), cam);
  assert.ok(reps(out) >= 3, 'reps');
  assert.equal(faulted(out, 'Excessive forward lean'), 0);
  // The forward-lean demo (70 deg) is still named from there.
  const lean: Demo = { bottom: { shin: 30, thigh: 90, tilt: 70 } };
  assert.equal(faulted(filmSquat(lean, cam), 'Excessive forward lean'), 4);
});
