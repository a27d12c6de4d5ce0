// Issue 20w: nothing counted when nothing is done. Every catalog exercise (and `any`) filmed by
// camera-sweep's 63 phones (7 yaws x 3 heights x 3 distances) while the person does not exercise
// (test/analysis/still-sets.ts): in the exercise's start position, the limbs drifting up to 12% of
// the way into its movement, and in a rest position (standing, a split or wide stance, weights at
// the shoulders, lying, a plank, hanging, seated: one drawn per camera), each held 5-20 s with sway
// (1-5 cm at 0.2-0.5 Hz), breathing, keypoint noise up to 6 px, lost joints, and one of: nothing, a
// small step, a look at the phone, a walk in or out of the picture. The count must be 0. Then the
// same waiting around a real set of 3-8 reps (the count must be the set's), and sets done to a
// fraction of the movement (20-100%, 7 yaws, 1 m up, 3 m away, 5 reps each): the depth from which
// each exercise finds attempts and from which it counts valid reps.
//
//   npx tsx bench/still-sweep.ts [--only id,id] [--misses] [--no-partial] [--stats]
//
// --stats prints, per exercise, the rise (peak over the higher of its ends) and the frames in the
// upper half of that rise of the attempts counted on nothing, and of the reps of the real sets.
//
// Seeded: the same code prints the same figures.
import { exercises } from '../src/analysis/rules/index.js';
import { seededRandom } from './support/random.js';
import { aroundOn, aroundTakeOf, partialOn, RESTS, stillOn, stillTakeOf } from '../test/analysis/still-sets.js';

const args = process.argv.slice(2);
const opt = (name: string) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const only = opt('--only')?.split(',');
const showMisses = args.includes('--misses');
const partial = !args.includes('--no-partial');
const showStats = args.includes('--stats');

/** Per attempt: its rise (peak over the higher of its ends, absolute progress) and the frames it spends in the upper half of that rise. */
function shapes(c: ReturnType<typeof stillOn>) {
  return c.out.attempts.map((a, k) => {
    const p = (c.out.reps[k]!.progress ?? []).filter(Number.isFinite);
    const base = Math.max(p[0]!, p[p.length - 1]!), top = Math.max(...p);
    return { valid: a.valid, rise: a.peakProgress - base, top: p.filter((v) => v >= base + (top - base) / 2).length };
  });
}
const q = (xs: number[], p: number) => { const s = xs.slice().sort((a, b) => a - b); return s.length ? s[Math.floor(p * (s.length - 1))]!.toFixed(2) : '-'; };

const YAWS = [0, 45, 90, 135, 180, -45, -90];
const HEIGHTS = [0.3, 1.0, 2.0];
const AWAY = [1.5, 3, 5];
const DEPTHS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
const restNames = Object.keys(RESTS);

const ids = only ?? exercises.map((e) => e.id);
const seedOf = (id: string) => [...id].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, 16);
const misses: string[] = [];
const t0 = performance.now();
const pct = (a: number, n: number) => `${a}/${n}`;
const tot = { own: 0, ownN: 0, rest: 0, restN: 0, exact: 0, aroundN: 0, noise: 0 };
const byRest = new Map<string, [number, number]>();
console.log(`${'exercise'.padEnd(26)} ${'still: own start'.padEnd(17)} ${'still: rest'.padEnd(12)} ${'around a set: exact'.padEnd(20)} ${'partial: attempt from / valid from (depth)'}`);
for (const id of ids) {
  const r = seededRandom(seedOf(id));
  let own = 0, rest = 0, exact = 0, n = 0;
  const noiseShapes: ReturnType<typeof shapes> = [], realShapes: ReturnType<typeof shapes> = [];
  for (const yaw of YAWS) for (const height of HEIGHTS) for (const away of AWAY) {
    const cam = { yaw, height, away };
    const a = stillTakeOf(r);
    const ca = stillOn(id, cam, a);
    if (ca.count) { own++; misses.push(`${id} own start yaw ${yaw} h ${height} away ${away}: ${ca.count} counted, ${ca.attempts} attempts (${a.seconds.toFixed(1)} s, sway ${a.sway.toFixed(1)} cm, drift ${a.drift.toFixed(2)}, ${a.event}, noise ${a.noise.toFixed(1)}, lost ${a.lost}, seed ${a.seed})`); }
    const restName = restNames[Math.floor(r() * restNames.length)]!;
    const b = stillTakeOf(r);
    const cb = stillOn(id, cam, b, restName);
    const [bn, bt] = byRest.get(restName) ?? [0, 0];
    byRest.set(restName, [bn + (cb.count ? 1 : 0), bt + 1]);
    if (cb.count) { rest++; misses.push(`${id} rest ${restName} yaw ${yaw} h ${height} away ${away}: ${cb.count} counted (${b.seconds.toFixed(1)} s, sway ${b.sway.toFixed(1)} cm, ${b.event}, noise ${b.noise.toFixed(1)}, lost ${b.lost}, seed ${b.seed})`); }
    const c = aroundTakeOf(r);
    const cc = aroundOn(id, cam, c);
    if (showStats) { noiseShapes.push(...shapes(ca), ...shapes(cb)); if (cc.count === c.reps && cc.attempts === c.reps) realShapes.push(...shapes(cc)); }
    if (cc.count === c.reps) exact++;
    else misses.push(`${id} around yaw ${yaw} h ${height} away ${away}: ${cc.count} of ${c.reps} (period ${c.period.toFixed(2)} pause ${c.pause.toFixed(2)} depth ${c.depth.toFixed(2)} drift ${c.drift.toFixed(2)} ${c.event} noise ${c.noise.toFixed(1)} lost ${c.lost} seed ${c.seed})`);
    n++;
  }
  let part = '';
  if (partial) {
    // Per depth, over the 7 yaws: attempts and valid reps of 5.
    let attemptFrom: number | undefined, validFrom: number | undefined;
    const cells: string[] = [];
    for (const depth of DEPTHS) {
      let att = 0, val = 0;
      for (const yaw of YAWS) {
        const p = partialOn(id, { yaw, height: 1, away: 3 }, depth, 5, seedOf(id) ^ Math.round(depth * 100) ^ yaw);
        att += Math.min(5, p.attempts); val += Math.min(5, p.count);
      }
      // "From" this depth: at least half of the 35 reps found.
      if (attemptFrom === undefined && att >= 18) attemptFrom = depth;
      if (validFrom === undefined && val >= 18) validFrom = depth;
      cells.push(`${Math.round(depth * 100)}%:${att}/${val}`);
    }
    part = `${attemptFrom ?? '-'} / ${validFrom ?? '-'}   ${cells.join(' ')}`;
  }
  tot.own += own; tot.rest += rest; tot.exact += exact; tot.ownN += n; tot.restN += n; tot.aroundN += n;
  console.log(`${id.padEnd(26)} ${pct(own, n).padEnd(17)} ${pct(rest, n).padEnd(12)} ${pct(exact, n).padEnd(20)} ${part}`);
  if (showStats) {
    const nv = noiseShapes.filter((x) => x.valid), na = noiseShapes;
    console.log(`  stats: noise valid ${nv.length} (rise q50 ${q(nv.map((x) => x.rise), 0.5)} q90 ${q(nv.map((x) => x.rise), 0.9)}; top frames q50 ${q(nv.map((x) => x.top), 0.5)} q90 ${q(nv.map((x) => x.top), 0.9)}), noise attempts ${na.length} (rise q90 ${q(na.map((x) => x.rise), 0.9)}); real ${realShapes.length} (rise q0 ${q(realShapes.map((x) => x.rise), 0)} q02 ${q(realShapes.map((x) => x.rise), 0.02)}; top frames q0 ${q(realShapes.map((x) => x.top), 0)} q02 ${q(realShapes.map((x) => x.top), 0.02)})`);
  }
}
console.log(`${'all (takes counting > 0)'.padEnd(26)} ${pct(tot.own, tot.ownN).padEnd(17)} ${pct(tot.rest, tot.restN).padEnd(12)} ${pct(tot.exact, tot.aroundN).padEnd(20)}`);
console.log(`rest positions (takes counting > 0): ${[...byRest].map(([k, [a, b]]) => `${k} ${a}/${b}`).join(', ')}`);
console.log(`partial: attempts/valid of 35 reps (5 reps x 7 yaws, 1 m up, 3 m away) per depth`);
console.log(`${ids.length} exercises x ${YAWS.length * HEIGHTS.length * AWAY.length} cameras, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
if (showMisses) for (const m of misses) console.log(m);
