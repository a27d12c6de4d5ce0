import { test } from 'node:test';
import assert from 'node:assert/strict';
import { angleAt, averageAround, fitPoses, quantile, smoothPoses, windowedScale, sideAngle } from '../../src/analysis/signals.js';
import { buildContext } from '../../src/analysis/exercise.js';
import { hipHeight, torsoLean, bodyLine } from '../../src/analysis/rules/common.js';
import { classifyYaw, estimateView, yawOf, clipView } from '../../src/analysis/view.js';
import { frontSquatter, series, sidePushUp, sideSquatter } from './synthetic.js';
import { Z_SCALE } from '../../src/analysis/pose.js';

const near = (a: number, b: number, tol: number) => assert.ok(Math.abs(a - b) <= tol, `${a} not within ${tol} of ${b}`);

test('angleAt measures a right angle and a straight line', () => {
  near(angleAt({ x: 0, y: 0, score: 1 }, { x: 1, y: 0, score: 1 }, { x: 1, y: 1, score: 1 }), 90, 1e-9);
  near(angleAt({ x: 0, y: 0, score: 1 }, { x: 1, y: 0, score: 1 }, { x: 2, y: 0, score: 1 }), 180, 1e-9);
});

test('the knee angle of a synthetic side-view squatter is read back exactly', () => {
  for (const knee of [170, 120, 90, 70]) near(sideAngle(sideSquatter({ knee, lean: 20 }), 'hip', 'knee', 'ankle'), knee, 0.5);
});

test('the far side hidden by the body is ignored in favour of the seen side', () => {
  assert.ok(Number.isFinite(sideAngle(sideSquatter({ knee: 100, lean: 10 }), 'hip', 'knee', 'ankle')));
});

test('averageAround over 1/12 s at 12 fps is the three-frame average, and keeps NaN where the value was unseen', () => {
  const times = [0, 1, 2, 3, 4].map((i) => (i * 1000) / 12);
  const s = averageAround([0, 3, NaN, 3, 0], times, 12, 1 / 12);
  assert.equal(s[0], 1.5);
  assert.equal(s[1], 1.5);
  assert.ok(Number.isNaN(s[2]!));
  const xs = [0.1, 0.7, 0.2, 0.9, 0.4, 0.3];
  assert.deepEqual(averageAround(xs, xs.map((_, i) => (i * 1000) / 12), 12, 1 / 12), xs.map((x, i) => {
    const v = [xs[i - 1], x, xs[i + 1]].filter((y): y is number => y !== undefined);
    return v.reduce((a, b) => a + b, 0) / v.length;
  }), 'bit for bit, in the same order');
});

test('averageAround averages the same moments at 6, 12 and 30 fps, and reads a lost frame as a gap in time', () => {
  // A smooth rep (a turn at 1 s): the average at a moment the rates share is the same to within
  // what reading between frames on a parabola gives; in frames it reached 0.17 s at 6 fps, 0.03 s at 30.
  const rep = (t: number) => Math.sin(Math.PI * t / 2) ** 2;
  const at = (fps: number, tS: number) => {
    const n = Math.round(2 * fps) + 1, times = Array.from({ length: n }, (_, i) => (i * 1000) / fps);
    return averageAround(times.map((t) => rep(t / 1000)), times, fps, 1 / 12)[Math.round(tS * fps)]!;
  };
  const twelve = at(12, 1);
  near(at(6, 1), twelve, 0.004);
  near(at(30, 1), twelve, 0.002);
  assert.ok(Math.abs(at(30, 1) - twelve) < Math.abs(rep(1) - twelve), 'the 30 fps average is the 12 fps one, not the frame');
  // Frame 2 lost: frame 3's neighbour 1/12 s before is read between frames 1 and 3, not at frame 1.
  const times = [0, 1, 3, 4, 5].map((i) => (i * 1000) / 12), xs = [0, 0, 1, 1, 1];
  const s = averageAround(xs, times, 12, 1 / 12);
  assert.ok(s[2]! > 2 / 3, `${s[2]} reads frame 1 (0) as the moment before`);
});

test('quantile ignores NaN', () => {
  assert.equal(quantile([NaN, 1, 2, 3, NaN], 0.5), 2);
  assert.ok(Number.isNaN(quantile([NaN], 0.5)));
});

test('windowedScale recovers a limb length that foreshortens during the movement', () => {
  const lengths = [200, 200, 120, 110, 200, 200, 130, 200];
  assert.ok(windowedScale(lengths, 3).every((v) => v === 200));
});

test('hip height is about 1 leg length standing and about half at parallel (side view)', () => {
  const ctx = buildContext(series(10, 2, (t) => sideSquatter({ knee: t < 1 ? 180 : 90, lean: 10 })), 10);
  near(hipHeight(ctx[2]!), 1, 0.03);
  const bottom = hipHeight(ctx[17]!);
  assert.ok(bottom > 0.4 && bottom < 0.75, `hip height at 90 deg knees: ${bottom}`);
});

test('torso lean from vertical is measured in degrees', () => {
  const ctx = buildContext(series(10, 1, () => sideSquatter({ knee: 120, lean: 35 })), 10);
  near(torsoLean(ctx[5]!), 35, 1);
});

test('push-up hip sag is measured against the shoulder-ankle line, with its direction', () => {
  const ctx = buildContext(series(10, 1, () => sidePushUp(170, 20)), 10);
  const line = bodyLine(ctx[5]!)!;
  near(line.bend, 20, 3); // the synthetic hip is displaced vertically, not perpendicular to the line
  assert.equal(line.below, true);
});

test('camera angle: side-on poses read as side, a facing person as front', () => {
  assert.equal(estimateView(buildContext(series(10, 1, () => sideSquatter({ knee: 120, lean: 20 })), 10)), 'side');
  assert.equal(estimateView(buildContext(series(10, 1, () => frontSquatter(0.3)), 10)), 'front');
  assert.equal(classifyYaw(45), 'diagonal');
  assert.equal(classifyYaw(10, -1), 'back');
  assert.equal(classifyYaw(NaN), 'unknown');
});

test('camera angle: a shoulder line turned 45 deg to the image plane reads well off square-on', () => {
  const [f] = buildContext(series(10, 1, () => frontSquatter(0.3)), 10);
  const flat = yawOf(f!);
  const ls = f!.p[5]!, rs = f!.p[6]!, lh = f!.p[11]!, rh = f!.p[12]!;
  // Turn both lines by 45 deg: the image span shrinks by cos 45 and the depth difference appears.
  for (const [l, r] of [[ls, rs], [lh, rh]] as const) {
    const cx = (l.x + r.x) / 2, half = (r.x - l.x) / 2;
    l.x = cx - half * Math.SQRT1_2; r.x = cx + half * Math.SQRT1_2;
    // BlazePose's depth runs Z_SCALE times the true depth in x's scale.
    l.z = 0; r.z = Z_SCALE * Math.abs(2 * half) * Math.SQRT1_2;
  }
  assert.ok(flat < 30, `square-on reads ${flat}`);
  assert.ok(yawOf(f!) - flat >= 20, `turned 45 deg reads ${yawOf(f!)} against ${flat}`);
  assert.equal(classifyYaw(45, 1, 1), 'diagonal');
  assert.equal(classifyYaw(70, 1, 0.1), 'side');
});

test('a clip filmed from two places is named from where it starts; one odd rep is noise', () => {
  const F = 'front', D = 'diagonal', S = 'side';
  // A demo fading from the front to a diagonal to the side: its first run names it.
  assert.equal(clipView(D, [F, F, F, D, D, D, S, S, S, S]), 'front');
  assert.equal(clipView(S, [D, D, D, S, S, S]), 'diagonal');
  // One rep read otherwise, at either end or between, does not make a change.
  assert.equal(clipView(F, [F, F, F, F, D]), 'front');
  assert.equal(clipView(D, [F, D, D, D, D]), 'diagonal');
  assert.equal(clipView(F, [F, F, D, F, F]), 'front');
  assert.equal(clipView(S, []), 'side');
  assert.equal(clipView(F, ['unknown', F, F]), 'front');
});

test('smoothPoses averages the same moments at any frame rate: a turn read at 6, 12 and 30 fps gives the same keypoints', () => {
  // A keypoint on a parabola in time (y = 100 - 400 t^2 px, t in s, the turn at 0.5 s). Smoothed,
  // each frame is averaged with the poses 1/12 s either side; where no frame falls there they are
  // read on the curve through the frames around them, which a parabola is, so the frames the rates
  // share read alike (1.4 px under the curve at each: the average of a turn is lower than it).
  // Averaged over a frame each side, 6 fps read 5.6 px under it, four times as much as 12 fps.
  const at = (fps: number) => {
    const frames = series(fps, 1 + 1 / fps, (t) => sideSquatter({ knee: 170, lean: 0 }).map((k) => ({ ...k, y: 100 - 400 * (t - 0.5) ** 2 })));
    const smooth = smoothPoses(frames, fps);
    return new Map(frames.map((f, i) => [f.timeMs, smooth[i]![5]!.y]));
  };
  const [r6, r12, r30] = [6, 12, 30].map(at);
  for (const [ms, y] of r6!) {
    // Inside the clip (its first and last frames have a neighbour on one side only).
    if (ms < 300 || ms > 700) continue;
    const t = Math.round((ms * 6) / 1000) / 6;
    const expected = 100 - 400 * (t - 0.5) ** 2 - 200 * (1 / 12) ** 2;
    near(y, expected, 1e-6);
    near(r12!.get(ms)!, expected, 1e-6);
    if (r30!.has(ms)) near(r30!.get(ms)!, expected, 1e-6);
  }
});

test('fitPoses keeps the height of a turn the smoothing flattens; unseen frames do not pull it', () => {
  // A keypoint on a parabola through a one-frame turn (y = 100 - 10 t^2): the 1-2-1 smoothing reads
  // the turn 5 px low, the local quadratic fit exactly; a frame whose keypoint is unseen (score 0)
  // placed anywhere does not move the fit, and the scores are the smoothing's.
  const frames = series(12, 7 / 12, () => sideSquatter({ knee: 170, lean: 0 })).map((f, i) => {
    const keypoints = f.keypoints.map((k) => ({ ...k, y: 100 - 10 * (i - 3) ** 2 }));
    if (i === 1) keypoints[0] = { x: 0, y: 900, score: 0 };
    return { ...f, keypoints };
  });
  const smooth = smoothPoses(frames, 12);
  const fitted = fitPoses(frames, smooth, 12);
  near(smooth[3]![5]!.y, 95, 1e-9);
  near(fitted[3]![5]!.y, 100, 1e-9);
  near(fitted[3]![0]!.y, 100, 1e-9);
  assert.deepEqual(fitted.map((f) => f.map((k) => k.score)), smooth.map((f) => f.map((k) => k.score)));
});
