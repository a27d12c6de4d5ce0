// Every form demo (squat-demos, push-up-demos, first-nine-demos' lunge and jumping jack) done by
// every body of figure3d BUILDS and filmed from the views its tests use: per body, which clean
// reps get faulted and which demonstrated faults stop being named, against the figure's own
// verdicts from the same camera. Run: node --import tsx test/analysis/build-sweep.ts
import type { PipelineOutput } from '../../src/analysis/pipeline.js';
import { BUILDS, FIGURE, type Build } from './figure3d.js';
import type { Camera } from './camera.js';
import { CLEAN, demoFor, filmDemo as filmSquat, type Demo as SquatDemo } from './squat-demos.js';
import { camera as puCamera, filmed as filmPushUp, FULL, HALF, type Form } from './push-up-demos.js';
import { SETS, filmDemo, jackAt, jackWave, lungeAt, type LungeForm, type JackForm } from './first-nine-demos.js';

/** A demo: what it is faulted under (none for a clean one), the cameras its tests film it from. */
export interface SweepCase { exercise: string; name: string; names: string[]; cams: Camera[]; film: (b: Build, cam: Camera) => PipelineOutput }

const standing = (yaws: number[]) => yaws.flatMap((yaw) => [0, 10].flatMap((pitch) => [2, 4].map((distance) => ({ yaw, pitch, distance }))));
const SQ = { front: [0], side: [90], diagonal: [45, 60], back: [180] } as const;
const sqCams = (views: (keyof typeof SQ)[]) => standing(views.flatMap((v) => [...SQ[v]]));
const C = CLEAN.bottom;

const squat = (name: string, names: string[], d: SquatDemo, views: (keyof typeof SQ)[]): SweepCase =>
  ({ exercise: 'squat', name, names, cams: sqCams(views), film: (b, cam) => filmSquat(b === FIGURE ? d : demoFor(b, d), cam) });

const PU_CAMS = [90, 60, 45, 30, 20, 0].flatMap((yaw) => [0.1, 0.5, 1].map((h) => puCamera(yaw, h)));
const pushUp = (name: string, names: string[], drop: number, form: Form): SweepCase =>
  ({ exercise: 'push-up', name, names, cams: PU_CAMS, film: (b, cam) => filmPushUp(drop, form, cam, b) });

const ALL = [0, 30, 45, 60, 90, 180];
const lunge = (name: string, names: string[], f: LungeForm, yaws: number[]): SweepCase =>
  ({ exercise: 'lunge', name, names, cams: standing(yaws), film: (b, cam) => filmDemo(SETS.lunge!.def, { at: lungeAt({ ...f, build: b }) }, cam) });
const jack = (name: string, names: string[], f: JackForm, yaws: number[]): SweepCase =>
  ({ exercise: 'jumping-jack', name, names, cams: standing(yaws), film: (b, cam) => filmDemo(SETS['jumping-jack']!.def, { at: jackAt({ ...f, build: b }), wave: jackWave(), seconds: 6.6 }, cam, { fps: 15 }) });

const DEPTH = ['Squat depth', 'Partial repetition'], HIPS = ['Hips sagging or piking'];

export const SWEEP: SweepCase[] = [
  squat('clean', [], CLEAN, ['front', 'side', 'diagonal', 'back']),
  squat('quarter squat', DEPTH, { bottom: { shin: 22, thigh: 55, tilt: 25 } }, ['front', 'side', 'diagonal', 'back']),
  squat('half squat', DEPTH, { bottom: { shin: 28, thigh: 65, tilt: 30 } }, ['side', 'diagonal']),
  squat('knees caving in', ['Knees caving in'], { bottom: { ...C, kneeIn: 20 } }, ['front', 'back']),
  squat('hips shifting', ['Hips shifting to one side'], { bottom: { ...C, hipShift: 23 } }, ['front', 'back']),
  squat('forward lean', ['Excessive forward lean'], { bottom: { shin: 30, thigh: 90, tilt: 70 } }, ['side', 'diagonal']),
  squat('knees past toes', ['Knees past the toes'], { bottom: { shin: 55, thigh: 80, tilt: 25 } }, ['side']),
  squat('head dropped', ['Head position'], { ...CLEAN, head: (u) => 80 * u }, ['side', 'diagonal']),
  squat('head up', ['Head position'], { ...CLEAN, head: (u) => -45 * u }, ['side']),
  squat('too deep', ['Squat too deep'], { bottom: { shin: 42, thigh: 130, tilt: 50 } }, ['side']),
  pushUp('clean', [], FULL, {}),
  pushUp('half depth', ['Shallow push-up'], HALF, {}),
  pushUp('sagging', HIPS, FULL, { sag: 25 }),
  pushUp('piked', HIPS, FULL, { sag: -45 }),
  pushUp('head hung', ['Head dropping'], FULL, { head: 50 }),
  pushUp('elbows flared', ['Elbows flaring'], FULL, { flare: 85, handsOut: 25 }),
  pushUp('knees, shins down', ['Knees on the floor'], FULL, { knees: 'shins down' }),
  pushUp('knees, feet up', ['Knees on the floor'], FULL, { knees: 'feet up' }),
  lunge('clean', [], {}, ALL),
  lunge('shallow', ['Lunge depth', 'Partial repetition'], { bottom: 145 }, [60, 90, 180]),
  lunge('knee past toes', ['Front knee past the toes'], { forward: 100 }, [90]),
  lunge('torso 45 deg', ['Torso leaning forward'], { tilt: 45 }, [45, 60, 90]),
  jack('clean', [], {}, ALL),
  jack('arms not overhead', ['Arms not overhead'], { arms: 100 }, [0, 30, 45, 60, 90]),
  jack('narrow jump', ['Narrow jump'], { feet: 8 }, [0, 180]),
];

/** The names at least half the reps were faulted under. */
export function named(out: PipelineOutput): Set<string> {
  const reps = out.result.repetitions, count = new Map<string, number>();
  for (const r of reps) for (const n of new Set(r.issues.map((i) => i.name))) count.set(n, (count.get(n) ?? 0) + 1);
  return new Set([...count].filter(([, k]) => k >= Math.max(1, reps.length / 2)).map(([n]) => n));
}

/** Per body, the names it gains (+) and loses (-) against the figure, over the case's cameras. */
export function sweep(c: SweepCase, builds: Record<string, Build> = BUILDS) {
  const base = c.cams.map((cam) => named(c.film(FIGURE, cam)));
  const rows: Record<string, { gained: Map<string, number>; lost: Map<string, number>; figure: Map<string, number> }> = {};
  const figure = new Map<string, number>();
  for (const s of base) for (const n of s) figure.set(n, (figure.get(n) ?? 0) + 1);
  for (const [bn, b] of Object.entries(builds)) {
    if (b === FIGURE) continue;
    const gained = new Map<string, number>(), lost = new Map<string, number>();
    c.cams.forEach((cam, i) => {
      const got = named(c.film(b, cam));
      for (const n of got) if (!base[i]!.has(n)) gained.set(n, (gained.get(n) ?? 0) + 1);
      for (const n of base[i]!) if (!got.has(n)) lost.set(n, (lost.get(n) ?? 0) + 1);
    });
    rows[bn] = { gained, lost, figure };
  }
  return rows;
}

if (process.argv[1]?.endsWith('build-sweep.ts')) {
  const only = process.argv[2];
  for (const c of SWEEP) {
    if (only && c.exercise !== only) continue;
    const rows = sweep(c);
    const fig = [...Object.values(rows)[0]!.figure].map(([n, k]) => `${n} ${k}`).join(', ') || 'none';
    console.log(`${c.exercise} / ${c.name} (${c.cams.length} cameras; figure: ${fig})`);
    for (const [bn, r] of Object.entries(rows)) {
      const g = [...r.gained].map(([n, k]) => `+${n} ${k}`), l = [...r.lost].map(([n, k]) => `-${n} ${k}`);
      if (g.length || l.length) console.log(`   ${bn}: ${[...g, ...l].join(', ')}`);
    }
  }
}
