// One story per result over the whole catalog: every exercise id, on a synthetic set of its own
// movement (3D stick figures, figure3d.ts) filmed from any yaw, done to any depth, with keypoint
// noise and joints the model loses, gives a result whose reps praise nothing they fault, whose
// summary, areas and strengths agree with the reps, whose "Not checked" rules are judged on no rep,
// whose issues all come from rules judged from the rep's view, and whose scores follow severity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { exercises } from '../../src/analysis/rules/index.js';
import { storyContradictions } from '../../src/analysis/story.js';
import { marginOf } from '../../src/analysis/rules/common.js';
import { moves, setOf, takes, type Take } from './catalog-moves.js';

/** Every break of the story in one analysed set, and every issue from a rule its rep's view cannot show. */
function breaks(t: Take): string[] {
  const { def, out } = setOf(t);
  const found = storyContradictions(out.result, def);
  out.result.repetitions.forEach((rep, k) => {
    const seenFrom = out.reps[k]!.view;
    for (const issue of rep.issues) {
      const rule = def.rules.find((x) => x.name === issue.name);
      if (rule && !rule.views.includes(seenFrom)) found.push(`attempt ${k + 1}: "${issue.name}" from a ${seenFrom} view, which it cannot be judged from`);
      // A rule that records its margin past the limit (pastLimit) faults only a rep past it.
      const m = rule ? marginOf(out.reps[k]!, rule.id) : NaN;
      if (m <= 0) found.push(`attempt ${k + 1}: "${issue.name}" with its measure ${m.toFixed(2)} bands inside the limit`);
    }
  });
  return found;
}

test('every catalog exercise has a synthetic movement of its own for the story checks', () => {
  assert.deepEqual(exercises.map((e) => e.id).filter((id) => !moves[id]), []);
});

test('every catalog exercise, filmed from any side, done to any depth, tells one story (property)', () => {
  const take = takes([0, 20, 45, 70, 90, 135, 180]);
  fc.assert(fc.property(take, (t) => { assert.deepEqual(breaks(t), [], JSON.stringify(t)); }), { numRuns: 400 });
});

test('each exercise, clean and shallow, from the front, a diagonal, the side and behind, tells one story', () => {
  for (const { id } of exercises) {
    for (const yaw of [0, 45, 90, 180]) {
      for (const depth of [1, 0.5]) {
        const t: Take = { id, yaw, depth, reps: 3, period: 1.6, noise: 1, lost: 0, seed: 7 };
        assert.deepEqual(breaks(t), [], JSON.stringify(t));
      }
    }
  }
});
