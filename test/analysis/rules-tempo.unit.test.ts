// The tempo rules judged on the movement, the same whatever frames the camera happened to take
// (rules/common.ts dwellFrames): "Bouncing at the bottom" against the rep's own tempo (bounceRule),
// the glute bridge's "No pause at the top".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzePoses } from '../../src/analysis/pipeline.js';
import { squat } from '../../src/analysis/rules/squat.js';
import { pushUp } from '../../src/analysis/rules/push-up.js';
import { dwellFrames, marginOf } from '../../src/analysis/rules/common.js';
import { gluteBridge } from '../../src/analysis/rules/glute-bridge.js';
import { series, sideBridge, sidePushUp, sideSquatter } from './synthetic.js';
import { KP } from '../../src/analysis/pose.js';

/** A smooth turn (easing through the bottom like a sine) and a rebound (a V), 0 -> 1 -> 0 over one rep. */
const smooth = (u: number) => Math.sin(Math.PI * u) ** 2;
const rebound = (u: number) => 1 - Math.abs(2 * u - 1);

/** Side-on squats of `repS` seconds shaped by `shape`, 1.2 s standing between, at `fps` from `phaseS` into the set. */
function squats(fps: number, repS: number, shape: (u: number) => number, phaseS = 0, reps = 4) {
  const period = repS + 1.2;
  const poses = series(fps, 0.6 + reps * period, (t0) => {
    const t = t0 + phaseS - 0.6;
    const k = t < 0 ? -1 : t % period;
    const u = k >= 0 && k < repS ? shape(k / repS) : 0;
    return sideSquatter({ knee: 178 - 100 * u, lean: 10 + 25 * u });
  });
  return analyzePoses(squat, poses, fps);
}
const bounced = (out: ReturnType<typeof squats>) => out.result.repetitions.map((r) => r.issues.some((i) => i.name === 'Bouncing at the bottom'));

test('dwellFrames: the time near the peak from interpolated crossings, the same wherever the frames fall', () => {
  // A sine-shaped turn sampled 10 times over the rep spends about a fifth of it within 0.1 of its
  // peak (2.05 frames) wherever the frames fall; counting the frames above that level read 1 to 3.
  const sampled = (shape: (u: number) => number, phase: number) =>
    Array.from({ length: 14 }, (_, i) => { const u = (i - 2 + phase) / 10; return u >= 0 && u <= 1 ? shape(u) : 0; });
  const reads = [0, 0.25, 0.5, 0.75].map((phase) => { const p = sampled(smooth, phase); return dwellFrames(p, Math.max(...p), 0.1); });
  for (const d of reads) assert.ok(Math.abs(d - 2.05) < 0.2, reads.join(' '));
  // A V turns faster than the sine at every phase.
  for (const phase of [0, 0.25, 0.5, 0.75]) {
    const v = sampled(rebound, phase), s = sampled(smooth, phase);
    assert.ok(dwellFrames(v, Math.max(...v), 0.1) < dwellFrames(s, Math.max(...s), 0.1), `phase ${phase}`);
  }
  // A side with no frame below the level ends at its last frame; no finite frame, no dwell.
  assert.equal(dwellFrames([0.2, 1, 1, 1], 1, 0.1), 2 + 0.1 / 0.8);
  assert.equal(dwellFrames([NaN, NaN], 1, 0.1), 0);
});

test('a fast smooth squat is no bounce at any sampling phase or frame rate; a rebound reads the same at 30 fps as at 12', () => {
  // 0.5-0.8 s reps at the engine's 12 fps: people label single squats that fast good, and the
  // frame count read such a turn as two or three frames, one from the fault, by where they fell.
  for (const repS of [0.5, 0.8]) {
    for (const phase of [0, 0.02, 0.04, 0.06]) {
      const fast = squats(12, repS, smooth, phase);
      assert.ok(fast.result.repetitions.length >= 3, `${fast.result.repetitions.length} reps`);
      assert.deepEqual(bounced(fast).filter(Boolean), [], `${repS} s, phase ${phase}`);
    }
  }
  // A V-shaped 0.8 s rebound reads the same at 30 fps as at the engine's 12: the pose smoothing
  // reaches 1/12 s either side at any frame rate (signals.ts POSE_SMOOTH_S). In frames it reached
  // 0.03 s at 30 fps, where the V turned in about 0.12 s and was a bounce, and 0.08 s at 12 fps,
  // where it turned in about 0.16 s and was not. A smooth 0.6 s rep eases through the bottom at
  // its own tempo: no bounce at either rate.
  for (const phase of [0, 0.02, 0.04]) {
    assert.deepEqual(bounced(squats(30, 0.8, rebound, phase)), bounced(squats(12, 0.8, rebound, phase)), `phase ${phase}`);
  }
  assert.deepEqual(bounced(squats(30, 0.6, smooth)).filter(Boolean), []);
  // A rebound in a rep of 1.5 s or more is not judged a bounce.
  assert.deepEqual(bounced(squats(30, 1.6, rebound)).filter(Boolean), []);
});

test('glute bridge: a top held for a moment is no fault wherever the frames fall; one passed straight through is', () => {
  // Quick bridges (0.35 s up, 0.35 s down), the top held `holdS`, 1 s down between: passed straight
  // through, the hips stay within 6 deg of the top for about 0.15 s.
  const bridges = (holdS: number, phaseS: number) => {
    const up = 0.35, period = 2 * up + holdS + 1;
    const lift = (k: number) => (k < up ? Math.sin((Math.PI / 2) * (k / up)) ** 2 : k < up + holdS ? 1 : k < 2 * up + holdS ? Math.cos((Math.PI / 2) * ((k - up - holdS) / up)) ** 2 : 0);
    const out = analyzePoses(gluteBridge, series(12, 0.5 + 4 * period, (t0) => { const t = t0 + phaseS - 0.5; return sideBridge(t < 0 ? 0 : lift(t % period)); }), 12);
    return out.result.repetitions.map((r) => r.issues.some((i) => i.name === 'No pause at the top'));
  };
  for (const phase of [0, 0.03, 0.06]) {
    const held = bridges(0.4, phase);
    assert.ok(held.length >= 3, `${held.length} reps`);
    assert.deepEqual(held.filter(Boolean), [], `held 0.4 s, phase ${phase}`);
    assert.ok(bridges(0, phase).every(Boolean), `no hold, phase ${phase}: ${bridges(0, phase).join(' ')}`);
  }
});

test('squat depth: the bottom the thighs held, whatever the tempo and wherever the frames fell', () => {
  // Side-on squats to a knee of 58 deg (the thigh 73 deg from vertical: 0.79 of parallel), at 12 fps.
  // The 90th percentile of the rep's frames read 2.5-3.5 s reps at 0.73-0.76 (the level held for a
  // quarter second of a smooth turn), and 1.2 s reps anywhere from 0.65 to 0.70 by where the frames
  // fell. The level held for 0.1 s reads the slow reps' bottom, and the same on every rep of a tempo.
  const depths = (repS: number) => {
    const period = repS + 1.2;
    const poses = series(12, 0.6 + 4 * period, (t0) => {
      const k = t0 - 0.6 < 0 ? -1 : (t0 - 0.6) % period;
      return sideSquatter({ knee: 178 - 120 * (k >= 0 && k < repS ? smooth(k / repS) : 0), lean: 10 });
    });
    return analyzePoses(squat, poses, 12).reps.map((r) => 0.8 - 0.15 * marginOf(r, 'squat-depth'));
  };
  const bottom = (1 - Math.cos((0.6 * 122 * Math.PI) / 180)) / 0.9;
  for (const repS of [2.5, 3.5]) {
    const d = depths(repS);
    assert.ok(d.length === 4 && d.every((x) => Math.abs(x - bottom) < 0.025), `${repS} s: ${d.map((x) => x.toFixed(3))} against ${bottom.toFixed(3)}`);
  }
  const d = depths(1.2);
  assert.ok(Math.max(...d) - Math.min(...d) < 0.015, `1.2 s: ${d.map((x) => x.toFixed(3))}`);
});

test('squat depth: a fast rep reads the bottom it reached, not the one the pose smoothing left; a one-frame glitch is no fault', () => {
  // Side-on squats to the same bottom (0.79 of parallel) at 12 fps. Smoothed 1-2-1 over the
  // frames (signals.ts smoothPoses), the one-frame bottom of a 0.8 s rep read 0.66-0.67; the depth
  // now reads the frames' fitted keypoints (signals.ts fitPoses), which keep the turn's height.
  // Measured against the level the movement itself held for 0.1 s (heldFor's definition: a rep
  // that turns in 0.8 s holds less than its very bottom for that long), every tempo reads within
  // 0.05 of it, and within 0.1 of a slow rep to the same bottom.
  const bend = (s: number, full = 120) => 2 + full * s;
  const thigh = (s: number) => (1 - Math.cos((0.6 * bend(s) * Math.PI) / 180)) / 0.9;
  const depths = (repS: number, phaseS: number, glitch?: (pose: ReturnType<typeof sideSquatter>) => void, full = 120) => {
    const period = repS + 1.2;
    const poses = series(12, 0.6 + 4 * period, (t0) => {
      const t = t0 + phaseS - 0.6;
      const k = t < 0 ? -1 : t % period;
      return sideSquatter({ knee: 180 - bend(k >= 0 && k < repS ? smooth(k / repS) : 0, full), lean: 10 });
    });
    if (glitch) for (let i = 0; i < poses.length; i++) {
      // The frame nearest each rep's bottom.
      const t = i / 12 + phaseS - 0.6, k = t < 0 ? -1 : t % period;
      if (Math.abs(k - repS / 2) <= 0.5 / 12) glitch(poses[i]!.keypoints as ReturnType<typeof sideSquatter>);
    }
    return analyzePoses(squat, poses, 12);
  };
  const read = (out: ReturnType<typeof depths>) => out.reps.map((r) => 0.8 - 0.15 * marginOf(r, 'squat-depth'));
  const heldByMovement = (repS: number) => thigh(smooth(0.5 - 0.05 / repS));
  const slow = read(depths(2.5, 0));
  for (const repS of [0.8, 1, 1.2]) {
    for (const phase of [0, 0.03, 0.06]) {
      const d = read(depths(repS, phase));
      assert.equal(d.length, 4, `${repS} s, phase ${phase}: ${d.length} reps`);
      for (const x of d) {
        assert.ok(Math.abs(x - heldByMovement(repS)) < 0.05, `${repS} s, phase ${phase}: ${d.map((v) => v.toFixed(3))} against ${heldByMovement(repS).toFixed(3)} held`);
        assert.ok(Math.abs(x - slow[0]!) < 0.1, `${repS} s, phase ${phase}: ${x.toFixed(3)} against ${slow[0]!.toFixed(3)} slow`);
      }
    }
  }
  // A squat to parallel (the thigh 85 deg from vertical) whose knee keypoint jumps 0.15 thigh
  // lengths down (the thigh reading shallower) for one frame at each rep's bottom: the fit moves
  // with the jump about as the smoothing did (0.8 s reps: 0.11 lower, 0.10 before), short of a fault.
  const faulted = (out: ReturnType<typeof depths>) => out.result.repetitions.filter((r) => r.issues.some((i) => i.name === 'Squat depth')).length;
  for (const repS of [0.8, 1.2, 2.5]) {
    for (const phase of [0, 0.03, 0.06]) {
      const clean = read(depths(repS, phase, undefined, 140));
      const out = depths(repS, phase, (p) => { p[KP.leftKnee] = { ...p[KP.leftKnee]!, y: p[KP.leftKnee]!.y + 15 }; }, 140);
      const glitched = read(out);
      assert.equal(out.result.repetitions.length, 4);
      assert.equal(faulted(out), 0, `${repS} s, phase ${phase}: ${glitched.map((v) => v.toFixed(3))}`);
      glitched.forEach((g, i) => assert.ok(clean[i]! - g < 0.12, `${repS} s, phase ${phase}: ${clean[i]!.toFixed(3)} -> ${g.toFixed(3)}`));
    }
  }
});

test('push-up depth: the same reps read at 30, 15 and 12 fps give the same depth within 0.03', () => {
  // Side-on push-ups of 0.6 and 0.8 s (elbows 178 -> 83 deg, sine-shaped), 1.2 s at the top
  // between, read at each frame rate from five sampling phases: the mean depth of the valid reps
  // (full depth 1) differs by at most 0.03 between the rates. The pose smoothing and the peak's
  // average now reach 1/12 s either side at any rate (signals.ts POSE_SMOOTH_S, averageAround);
  // in frames they reached 0.03 s at 30 fps and 0.07 s at 15, and 30 fps read 0.05-0.17 deeper
  // (0.6 s reps: 1.225 against 1.052; now 1.022 against 1.004).
  const depthAt = (fps: number, repS: number) => {
    const period = repS + 1.2;
    const ds = [0, 0.013, 0.027, 0.04, 0.053].flatMap((phaseS) => {
      const out = analyzePoses(pushUp, series(fps, 0.6 + 4 * period, (t0) => {
        const t = t0 + phaseS - 0.6, k = t < 0 ? -1 : t % period;
        return sidePushUp(178 - 95 * (k >= 0 && k < repS ? smooth(k / repS) : 0));
      }), fps);
      const valid = out.reps.filter((r) => r.valid);
      assert.equal(valid.length, 4, `${fps} fps, ${repS} s, phase ${phaseS}: ${valid.length} valid reps`);
      // The rule's margin is (0.95 - depth) in moderate bands of 0.12 (rules/push-up.ts).
      return valid.map((r) => 0.95 - 0.12 * marginOf(r, 'push-up-range'));
    });
    return ds.reduce((a, b) => a + b, 0) / ds.length;
  };
  for (const repS of [0.6, 0.8]) {
    const [d30, d15, d12] = [30, 15, 12].map((fps) => depthAt(fps, repS));
    assert.ok(Math.abs(d30! - d15!) <= 0.03 && Math.abs(d30! - d12!) <= 0.03 && Math.abs(d15! - d12!) <= 0.03,
      `${repS} s reps: ${d30!.toFixed(3)} at 30 fps, ${d15!.toFixed(3)} at 15, ${d12!.toFixed(3)} at 12`);
  }
});
