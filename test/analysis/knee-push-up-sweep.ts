// Knee push-ups (push-up-demos.ts `knees`), clean and with each demonstrated fault, done by every
// body of figure3d BUILDS and filmed from the 18 cameras of push-up-faults.unit: per case, the names
// said on at least half the reps, and on how many cameras. Run: node --import tsx test/analysis/knee-push-up-sweep.ts
import { BUILDS } from './figure3d.js';
import { camera, filmed, FULL, HALF, type Form } from './push-up-demos.js';
import { named } from './build-sweep.js';

const CAMS = [90, 60, 45, 30, 20, 0].flatMap((yaw) => [0.1, 0.5, 1].map((h) => [`${yaw}/${h}`, camera(yaw, h)] as const));
const CASES: [string, number, Form][] = [
  ['clean', FULL, {}], ['sagging', FULL, { sag: 25 }], ['piked', FULL, { sag: -45 }], ['half depth', HALF, {}],
  ['head hung', FULL, { head: 50 }], ['elbows flared', FULL, { flare: 85, handsOut: 25 }],
];
const only = process.argv[2];
for (const knees of ['shins down', 'feet up'] as const) {
  for (const [name, drop, form] of CASES) {
    if (only && name !== only) continue;
    for (const [bn, b] of Object.entries(BUILDS)) {
      const count = new Map<string, string[]>();
      let reps = '';
      for (const [cn, cam] of CAMS) {
        const out = filmed(drop, { ...form, knees }, cam, b);
        if (out.reps.length !== 4) reps += ` ${cn}:${out.reps.length}`;
        for (const n of named(out)) count.set(n, [...(count.get(n) ?? []), cn]);
      }
      console.log(`${knees} / ${name} / ${bn}: ${[...count].map(([n, c]) => `${n} ${c.length} [${c.join(' ')}]`).join('; ') || 'none'}${reps ? `; reps${reps}` : ''}`);
    }
  }
}
