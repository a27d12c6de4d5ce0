// A set done from the far end of the range is counted and judged like the same set done from rest.
// Some people start where the rep turns for others: a dumbbell press with the arms up, a deadlift
// set up at the floor, a crunch held up. Each of their reps is a trip from that end to rest and
// back, and the set ends there (counting.ts homeAtFull counts the last rep when the clip ends with
// it back at that end). The counter's attempts still run from rest and back, so the last attempt
// ends at its peak: rules that read the way back to rest (a descent's tempo, the lockout a deadlift
// ends in) must not read its absence as a fault (FormRule.readsReturn), and the height of a rep the
// clip ends on must not be read low at the clip's edge. Every catalog exercise, on its own synthetic
// movement (catalog-moves.ts), filmed both ways from three views (mirror-verdicts.unit checks
// the other side gives the same verdicts), to full and shallow depth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HOME_HOLD_S } from '../../src/analysis/counting.js';
import { exercises } from '../../src/analysis/rules/index.js';
import { filmed, type Take } from './catalog-moves.js';

/** Seconds held still where the set starts (over homeAtFull's HOME_HOLD_S), and at each end of a rep. */
const OPENING = HOME_HOLD_S + 0.2, HOLD = 0.8;

/**
 * Progress over a set of `t.reps` reps: each goes half a period away, holds there, comes back in
 * half a period and holds at rest; the clip ends `tail` s after the last rep is back. From the far
 * end the same movement is read upside down: it opens and ends held at 1, and each rep visits 0.
 */
function fromEnd(t: Take, far: boolean, tail: number) {
  const h = t.period / 2;
  const rep = (k: number) => {
    const m = k % (t.period + 2 * HOLD);
    if (m < h) return (1 - Math.cos((Math.PI * m) / h)) / 2;
    if (m < h + HOLD) return 1;
    if (m < t.period + HOLD) return (1 + Math.cos((Math.PI * (m - h - HOLD)) / h)) / 2;
    return 0;
  };
  const u = (s: number) => { const c = s < OPENING ? 0 : rep(s - OPENING); return far ? 1 - c : c; };
  const { out } = filmed(t, u, OPENING + t.reps * (t.period + 2 * HOLD) - HOLD + tail);
  const reps = out.result.repetitions;
  return {
    count: reps.filter((r) => r.is_valid_rep).length,
    issues: new Set(reps.flatMap((r) => r.issues.map((i) => i.name))),
    // The far end went out of sight (a glute bridge's top seen from the front): homeAtFull reads a
    // hold only where it was seen, so such a set is not known to start there.
    farUnseen: out.reps.some((r) => (r.progress ?? []).some((x) => !Number.isFinite(x))),
  };
}

test('each exercise, from the front, a diagonal and the side, full and shallow, ending on the last rep or holding after it: the same count and no new issue started from the far end', () => {
  const differ: string[] = [];
  for (const { id } of exercises) {
    for (const yaw of [0, 45, 90]) {
      for (const depth of [1, 0.6]) {
        for (const tail of [0.1, 0.5]) {
          const t: Take = { id, yaw, depth, reps: 3, period: 1.6, noise: 0, lost: 0, seed: 7 };
          const home = fromEnd(t, false, tail), far = fromEnd(t, true, tail);
          const extra = [...far.issues].filter((name) => !home.issues.has(name));
          // Counts are compared where the set from rest is counted right and the far end is seen
          // (a view that cannot count the exercise, a face pull from the front, is the counter's).
          const counted = home.count === t.reps && !home.farUnseen;
          if (extra.length || (counted && far.count !== home.count)) differ.push(`${id} yaw ${yaw} depth ${depth} tail ${tail}: ${home.count} -> ${far.count} [${extra.join(', ')}]`);
        }
      }
    }
  }
  assert.deepEqual(differ, []);
});
