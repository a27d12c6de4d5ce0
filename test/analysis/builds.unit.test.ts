// The form demos done by other people's bodies (figure3d BUILDS: long femurs, a long torso, short
// or long arms against broad or narrow shoulders, wide hips), each filmed from the cameras its own
// test films the figure from (build-sweep.ts): a clean rep must stay clean for every body, and a
// demonstrated fault must still be named, as the figure's are from the same camera. Names the
// figure itself gets from a camera (a rule at its limit there) are allowed to any body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILDS, FIGURE } from './figure3d.js';
import { named, SWEEP } from './build-sweep.js';

/**
 * Body and demo pairs the rules miss as they stand, with why (build-sweep.ts prints the cameras).
 * Each is a subtest skipped by that reason, so it stays visible.
 */
const SHORT_ARMS = 'the depth is read in arm lengths from the arms-straight top, against a full depth set on the figure\'s torso/arm ratio (0.96): arms 10 % shorter reach a chest a fist off the floor with 0.41 arm lengths of travel, read 0.87 of full depth, "Shallow push-up" from 9 of 18 cameras. The tuning side-on push-ups read torso/arm 0.92-1.09; scaling the full depth by it cost 3 of 18 bad tuning clips (docs/form-verdicts-history.md, 16za). Since 16ze (the far limbs hidden side-on, FULL 0.58: every body goes deeper) "Shallow push-up" from 2 of 18 cameras, and "Hips sagging or piking" from 1 on some demos';
const KNOWN: Record<string, Record<string, string>> = {
  'push-up / clean': { 'short arms, broad shoulders': SHORT_ARMS },
  'push-up / half depth': { 'short arms, broad shoulders': 'side-on a metre up the half push-up of short arms is "Partial repetition" (the counter), not "Shallow push-up" as the figure\'s (16ze: the far limbs hidden, FULL 0.58)' },
  'push-up / sagging': { 'short arms, broad shoulders': SHORT_ARMS },
  'push-up / piked': { 'short arms, broad shoulders': SHORT_ARMS },
  'push-up / head hung': { 'short arms, broad shoulders': SHORT_ARMS },
  'push-up / elbows flared': { 'short arms, broad shoulders': SHORT_ARMS },
  'push-up / knees, shins down': { 'short arms, broad shoulders': SHORT_ARMS },
  'push-up / knees, feet up': { 'short arms, broad shoulders': SHORT_ARMS },
};

for (const c of SWEEP) {
  const key = `${c.exercise} / ${c.name}`;
  test(`every body reads as the figure: ${key}`, async (t) => {
    const base = c.cams.map((cam) => named(c.film(FIGURE, cam)));
    for (const [bn, b] of Object.entries(BUILDS)) {
      if (b === FIGURE) continue;
      const miss = KNOWN[key]?.[bn];
      await t.test(bn, miss ? { skip: `known miss: ${miss}` } : {}, () => {
        c.cams.forEach((cam, i) => {
          const got = named(c.film(b, cam)), fig = base[i]!;
          const extra = [...got].filter((n) => !fig.has(n) && !c.names.includes(n));
          assert.deepEqual(extra, [], `${bn}, ${JSON.stringify(cam)}: named ${[...got].join(', ')}; the figure ${[...fig].join(', ') || 'nothing'}`);
          if (c.names.some((n) => fig.has(n))) {
            assert.ok(c.names.some((n) => got.has(n)), `${bn}, ${JSON.stringify(cam)}: ${c.names.join(' or ')} not named (${[...got].join(', ') || 'nothing'}); the figure's was`);
          }
        });
      });
    }
  });
}

test('a clean jumping jack stays clean, and a narrow one is named, whatever the shoulders\' breadth against the hips', async () => {
  // The legs jump out as the figure's (each ankle 60 units out), the shoulders 0.8 to 1.25 of the
  // figure's breadth, filmed from the front and behind, level and 10 deg down, 2 and 4 m. Read
  // against the shoulders alone, shoulders 1.13 of the figure's (68 half-width) were "Narrow jump"
  // from the front 2 m away looking down.
  const jack = SWEEP.find((c) => c.exercise === 'jumping-jack' && c.name === 'clean')!;
  const narrow = SWEEP.find((c) => c.exercise === 'jumping-jack' && c.name === 'narrow jump')!;
  for (const shHalf of [48, 54, 60, 66, 70, 75]) {
    for (const cam of narrow.cams) {
      const b = { ...FIGURE, shHalf };
      assert.ok(!named(jack.film(b, cam)).has('Narrow jump'), `shoulders ${shHalf}, ${JSON.stringify(cam)}: a clean jack read narrow`);
      assert.ok(named(narrow.film(b, cam)).has('Narrow jump'), `shoulders ${shHalf}, ${JSON.stringify(cam)}: a narrow jump not named`);
    }
  }
});
