import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { segmentReps } from '../../src/analysis/reps.js';

const fps = 10;
/** `n` smooth 0 -> peak -> 0 cycles of `len` frames each, with `rest` frames of rest between. */
function cycles(peaks: number[], len = 20, rest = 5): number[] {
  const out: number[] = new Array(rest).fill(0);
  for (const peak of peaks) {
    for (let i = 0; i < len; i++) out.push((peak * (1 - Math.cos((2 * Math.PI * i) / len))) / 2);
    out.push(...new Array(rest).fill(0));
  }
  return out;
}

test('three full-range cycles are three valid repetitions', () => {
  const reps = segmentReps(cycles([1, 1, 1]), { fps });
  assert.equal(reps.length, 3);
  assert.ok(reps.every((r) => r.valid && r.returned));
});

test('a partial dip is an attempt but not a valid repetition', () => {
  const reps = segmentReps(cycles([1, 0.5, 1]), { fps });
  assert.deepEqual(reps.map((r) => r.valid), [true, false, true]);
  assert.ok(Math.abs(reps[1]!.peakProgress - 0.5) < 0.05);
});

test('wobble below the entry threshold is not an attempt', () => {
  assert.equal(segmentReps(cycles([0.3, 0.2, 0.3]), { fps }).length, 0);
});

test('an attempt cut off by the end of the clip is invalid', () => {
  const full = cycles([1, 1]);
  const cut = [...full, ...cycles([1]).slice(5, 5 + 12)]; // third rep stops just past its bottom
  const reps = segmentReps(cut, { fps });
  assert.equal(reps.length, 3);
  assert.deepEqual(reps.map((r) => r.valid), [true, true, false]);
  assert.equal(reps[2]!.returned, false);
});

test('a repetition that is nearly back at rest when the clip ends still counts', () => {
  const s = cycles([1]);
  const reps = segmentReps([...s.slice(0, 5 + 18)], { fps });
  assert.equal(reps.length, 1);
  assert.equal(reps[0]!.valid, true);
});

test('frames failing the posture gate (NaN) never start an attempt', () => {
  // The first cycle happens while the gate fails (e.g. standing and talking with bent elbows).
  const s = cycles([1, 1]).map((v, i) => (i >= 5 && i < 25 ? NaN : v));
  const reps = segmentReps(s, { fps });
  assert.equal(reps.length, 1);
  assert.ok(reps[0]!.start >= 25);
});

test('an excursion already under way when the person comes into view is not counted', () => {
  const s = [NaN, NaN, 0.9, 1, 0.8, 0.4, 0.1, 0, 0, ...cycles([1])];
  const reps = segmentReps(s, { fps });
  assert.equal(reps.length, 1);
  assert.ok(reps[0]!.start >= 7);
});

test('with openStart, an excursion the series opens in is an attempt from its first reading', () => {
  const s = [NaN, NaN, 0.9, 1, 0.8, 0.4, 0.1, 0, 0, 0];
  const reps = segmentReps(s, { fps, openStart: true });
  assert.equal(reps.length, 1);
  assert.deepEqual([reps[0]!.start, reps[0]!.opensClip, reps[0]!.returned], [2, true, true]);
  // Only the series' opening: an excursion after a reading at rest is an ordinary attempt.
  const later = segmentReps([0, 0, ...s], { fps, openStart: true });
  assert.equal(later.length, 1);
  assert.equal(later[0]!.opensClip, undefined);
});

test('an attempt interrupted by a long gate failure before full range is dropped', () => {
  const s = [...new Array(5).fill(0), 0.2, 0.4, 0.5, ...new Array(20).fill(NaN), ...new Array(5).fill(0)];
  assert.equal(segmentReps(s, { fps }).length, 0);
});

test('a person lost from view mid-rep (the signal reads mid-rep on both sides of the gap) is one repetition', () => {
  // A burpee's plank seen from the front hides the feet for over a second at the bottom.
  const s = cycles([1, 1]).map((v, i) => (i >= 13 && i < 20 ? NaN : v));
  const reps = segmentReps(s, { fps });
  assert.deepEqual(reps.map((r) => r.valid), [true, true]);
});

test('a gap past the bridging limit still ends the attempt where the person was last seen', () => {
  const s = [...cycles([1]).slice(0, 15), ...new Array(40).fill(NaN), ...cycles([1]).slice(15)];
  const reps = segmentReps(s, { fps, maxBridgeS: 2.5 });
  assert.ok(reps.every((r) => !r.valid), 'no repetition is stitched across four seconds unseen');
});

test('a repetition nearly back at rest when the person leaves the view counts, as at the end of a clip', () => {
  // The last push-up of a set, then the person stands up (the gate fails) before the clip ends.
  const s = [...cycles([1, 1]).slice(0, 5 + 25 + 18), ...new Array(30).fill(NaN)];
  const reps = segmentReps(s, { fps });
  assert.deepEqual(reps.map((r) => r.valid), [true, true]);
});

test('attempts are ordered, disjoint and their peak lies inside them (property)', () => {
  fc.assert(fc.property(fc.array(fc.oneof(fc.double({ min: -0.2, max: 1.5, noNaN: true }), fc.constant(NaN)), { maxLength: 300 }), (xs) => {
    const reps = segmentReps(xs, { fps });
    let prevEnd = -1;
    for (const r of reps) {
      assert.ok(r.start > prevEnd && r.start <= r.peak && r.peak <= r.end && r.end < xs.length);
      assert.equal(r.valid, r.returned && r.peakProgress >= 0.75);
      prevEnd = r.end;
    }
  }));
});

// Legs or hands out of the picture for a second (bench/augment.ts pose:crop-legs, pose:crop-hands).
const hide = (s: number[], from: number, to: number) => s.map((v, i) => (i >= from && i < to ? NaN : v));

test('a rep whose return goes unseen (full range before the gap, rest after it) counts', () => {
  // Second rep: frames 30-49, top at 40; unseen from 43 to 55 (1.2 s), back at rest after.
  const reps = segmentReps(hide(cycles([1, 1, 1]), 43, 55), { fps });
  assert.deepEqual(reps.map((r) => r.valid), [true, true, true]);
});

test('a rep whose start goes unseen right after the previous rep came back to rest counts', () => {
  // First rep ends at rest (frame 25-29); unseen from 28 to 38 (1 s) while the second begins.
  const reps = segmentReps(hide(cycles([1, 1, 1]), 28, 38), { fps });
  assert.deepEqual(reps.map((r) => r.valid), [true, true, true]);
});

test('rest read across a gap of a second before a rep first seen mid-way is where that rep began', () => {
  // Rest at frames 30-39 between the reps, seen until 32; unseen 33-44: the second rep is first seen at 0.5.
  const s = hide(cycles([1, 1], 20, 10), 33, 45);
  const reps = segmentReps(s, { fps });
  assert.deepEqual(reps.map((r) => r.valid), [true, true]);
  assert.ok(reps[1]!.start <= 32);
});

test('an excursion whose whole upper part went unseen is an attempt when asked (hiddenTopFrames), a dropout at rest is not', () => {
  // The middle of three reps is out of sight above 0.3 of its range (a row's hands behind the
  // torso from a third of the pull on): no reading seen crosses the entry threshold (0.35).
  const s = cycles([1, 1, 1]).map((v, i) => (i >= 30 && i < 50 && v > 0.3 ? NaN : v));
  assert.equal(segmentReps(s, { fps }).length, 2);
  const reps = segmentReps(s, { fps, hiddenTopFrames: 2 });
  assert.equal(reps.length, 3);
  assert.ok(reps[1]!.returned && !reps[1]!.valid, 'whether it counts is the caller\'s (counting.ts hiddenTop)');
  // Unseen at rest between two reps: nothing.
  assert.equal(segmentReps(cycles([1, 1]).map((v, i) => (i >= 25 && i < 29 ? NaN : v)), { fps, hiddenTopFrames: 2 }).length, 2);
});
