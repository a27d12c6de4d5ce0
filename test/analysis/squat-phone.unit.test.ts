// Squats filmed by a phone (issue 16zc; camera.ts `phone`, placed as camera-sets.ts aimedAt places
// one, as build-sweep.ts --phone does): a fixed lens, a real picture, the person off its centre and,
// up close, partly cut off. Where the picture cuts off what a rule reads, the rule says "not
// checked", never a pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PipelineOutput } from '../../src/analysis/pipeline.js';
import { body } from './figure3d.js';
import { phoneCamera, type Camera } from './camera.js';
import { aimedAt } from './camera-sets.js';
import { filmDemo, type Demo } from './squat-demos.js';

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
