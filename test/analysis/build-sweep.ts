// Every form demo (squat-demos, push-up-demos, first-nine-demos' lunge and jumping jack) done by
// every body of figure3d BUILDS and filmed from the views its tests use: per body, which clean
// reps get faulted and which demonstrated faults stop being named, against the figure's own
// verdicts from the same camera. Run: node --import tsx test/analysis/build-sweep.ts [exercise] [--phone [--rows]]
//
// --phone films every case with phones instead (issue 16zc; camera.ts `phone`, placed as
// camera-sets.ts aimedAt places a phone for counting): from each yaw the case's tests use, 60, 67
// and 75 deg lenses, portrait and landscape, 1.5, 2.5 and 3.5 m along the floor, 18 phones a yaw;
// a standing body filmed from 0.3 or 1 m off the floor (propped on the floor, on a chair), a body
// on the floor from 0.1, 0.5 or 1 m; the person centred, or half-way to the picture's left edge
// and 0.3 down, or to the right and up (as view-sweep.ts sweepPhones). Up close the picture cuts
// the body off (a landscape 60 deg phone at 1.5 m spans about a metre of height). It prints, per
// case and body, absolute counts: clean demos faulted; demonstrated faults passed (the rule's
// strength given instead: wrong) and, apart, not named and not praised (the rule did not judge it:
// what a view or a picture that cannot show the fault should do); other faults named on a fault's demo; views
// named wrong (view-sweep.ts expectedView's bands); each over the phones that saw the whole body
// and, apart, those that cut it off (a joint out of the picture at rest, half-way or the bottom).
// --rows lists every phone with a wrong verdict or view.
import type { PipelineOutput } from '../../src/analysis/pipeline.js';
import { exercises } from '../../src/analysis/rules/index.js';
import { KP } from '../../src/analysis/pose.js';
import { BUILDS, body, FIGURE, type Build, type Joints } from './figure3d.js';
import { film, phoneCamera, phoneFocal, pictureOf, type Camera } from './camera.js';
import { aimedAt } from './camera-sets.js';
import { expectedView } from './view-sweep.js';
import { CLEAN, demoAt, demoFor, filmDemo as filmSquat, type Demo as SquatDemo } from './squat-demos.js';
import { camera as puCamera, filmed as filmPushUp, pushUpBody, FULL, HALF, type Form } from './push-up-demos.js';
import { SETS, filmDemo, jackAt, jackWave, lungeAt, type LungeForm, type JackForm } from './first-nine-demos.js';

/** A phone of the --phone sweep: its camera, how it is described, the view it should be named. */
export interface PhoneShot { cam: Camera; label: string; lying: boolean }

/**
 * A demo: what it is faulted under (none for a clean one), the cameras its tests film it from,
 * the phones of --phone, and the body's joints at progress u (0 rest, 1 the bottom), to tell the
 * phones that cut it off.
 */
export interface SweepCase {
  exercise: string; name: string; names: string[]; cams: Camera[]; phones: PhoneShot[];
  film: (b: Build, cam: Camera) => PipelineOutput;
  pose: (b: Build) => (u: number) => Joints;
}

const TURNS = [[0, 0], [-0.5, -0.3], [0.5, 0.3]] as const;
/**
 * From each yaw, 18 phones: every lens (60, 67, 75 deg) portrait and landscape at every range (1.5,
 * 2.5, 3.5 m along the floor), each at one of `heights` and one of TURNS in turn, so each lens,
 * range and way round meets each height and turn. `rest` is the body at rest (camera-sets aimedAt
 * aims at a standing body's hips, at the middle of one on the floor); `sign` turns the yaw as the
 * case's own cameras count it (push-up-demos' camera counts it the other way round).
 */
export function phoneShots(yaws: number[], rest: Joints, heights: number[], sign = 1): PhoneShot[] {
  const out: PhoneShot[] = [];
  const lying = ((rest.leftHip?.[1] ?? 0) + (rest.rightHip?.[1] ?? 0)) / 2 < 120;
  for (const yaw of yaws) {
    [60, 67, 75].forEach((fov, fi) => [true, false].forEach((portrait, pi) => [1.5, 2.5, 3.5].forEach((away, ai) => {
      const p = phoneCamera(fov, portrait), f = phoneFocal(p);
      const across = (Math.atan(p.width / 2 / f) * 180) / Math.PI, up = (Math.atan(p.height / 2 / f) * 180) / Math.PI;
      const [a, b] = TURNS[(fi + pi + ai) % 3]!, height = heights[(fi + ai) % heights.length]!;
      const phone = { ...p, turn: [a * across, b * up] as const };
      const cam: Camera = { ...aimedAt(rest, { yaw: sign * yaw, height, away }), phone };
      out.push({ cam, lying, label: `yaw ${yaw} ${fov} deg ${portrait ? 'portrait' : 'landscape'} ${away} m, ${height} m up, turn ${a} ${b}` });
    })));
  }
  return out;
}

const STANDING = body();
const standingPhones = (yaws: number[]) => phoneShots(yaws, STANDING, [0.3, 1.0]);
const standing = (yaws: number[]) => yaws.flatMap((yaw) => [0, 10].flatMap((pitch) => [2, 4].map((distance) => ({ yaw, pitch, distance }))));
const SQ = { front: [0], side: [90], diagonal: [45, 60], back: [180] } as const;
const sqCams = (views: (keyof typeof SQ)[]) => standing(views.flatMap((v) => [...SQ[v]]));
const C = CLEAN.bottom;

const sqYaws = (views: (keyof typeof SQ)[]) => views.flatMap((v) => [...SQ[v]]);
const squat = (name: string, names: string[], d: SquatDemo, views: (keyof typeof SQ)[]): SweepCase => ({
  exercise: 'squat', name, names, cams: sqCams(views), phones: standingPhones(sqYaws(views)),
  film: (b, cam) => filmSquat(b === FIGURE ? d : demoFor(b, d), cam),
  pose: (b) => (u) => demoAt(b === FIGURE ? d : demoFor(b, d), u, false),
});

const PU_YAWS = [90, 60, 45, 30, 20, 0];
const PU_CAMS = PU_YAWS.flatMap((yaw) => [0.1, 0.5, 1].map((h) => puCamera(yaw, h)));
// push-up-demos' camera turns `yaw` from the head end toward the body's left: camera.ts's -yaw.
const PU_PHONES = phoneShots(PU_YAWS, pushUpBody(0.02), [0.1, 0.5, 1.0], -1);
const pushUp = (name: string, names: string[], drop: number, form: Form): SweepCase => ({
  exercise: 'push-up', name, names, cams: PU_CAMS, phones: PU_PHONES, film: (b, cam) => filmPushUp(drop, form, cam, b),
  pose: (b) => (u) => pushUpBody(0.02 + drop * u, form, b),
});

const ALL = [0, 30, 45, 60, 90, 180];
const lunge = (name: string, names: string[], f: LungeForm, yaws: number[]): SweepCase => ({
  exercise: 'lunge', name, names, cams: standing(yaws), phones: standingPhones(yaws),
  film: (b, cam) => filmDemo(SETS.lunge!.def, { at: lungeAt({ ...f, build: b }) }, cam),
  pose: (b) => (u) => lungeAt({ ...f, build: b })(u, false, 0),
});
const jack = (name: string, names: string[], f: JackForm, yaws: number[]): SweepCase => ({
  exercise: 'jumping-jack', name, names, cams: standing(yaws), phones: standingPhones(yaws),
  film: (b, cam) => filmDemo(SETS['jumping-jack']!.def, { at: jackAt({ ...f, build: b }), wave: jackWave(), seconds: 6.6 }, cam, { fps: 15 }),
  pose: (b) => (u) => jackAt({ ...f, build: b })(u, false, 0),
});

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

/** The joints a phone must see for the body to be whole in its picture: face, arms, legs. */
const WHOLE = [KP.nose, KP.leftShoulder, KP.rightShoulder, KP.leftElbow, KP.rightElbow, KP.leftWrist, KP.rightWrist,
  KP.leftHip, KP.rightHip, KP.leftKnee, KP.rightKnee, KP.leftAnkle, KP.rightAnkle];

/** Whether `cam` leaves any of those joints out of its picture at rest, half-way or at the bottom. */
export function cutOff(c: SweepCase, b: Build, cam: Camera): boolean {
  const at = c.pose(b);
  // A squat's camera aims at the body's own hips (squat-demos filmDemo); the others at the figure's.
  const aimed = c.exercise === 'squat' && b !== FIGURE && !cam.aim ? { ...cam, aim: [0, b.shin + b.thigh, 0] as [number, number, number] } : cam;
  // Out of the picture, not hidden (from behind the face is hidden, and in the picture).
  const { width, height } = pictureOf(cam);
  return [0, 0.5, 1].some((u) => { const k = film(at(u), aimed); return WHOLE.some((i) => { const p = k[i]!; return p.x < 0 || p.x > width || p.y < 0 || p.y > height; }); });
}

/**
 * Whether the clip praises what the case demonstrates: the strength of a rule named in `names`
 * (a rule that checked the rep and passed it) on at least half the reps.
 */
export function praised(c: SweepCase, out: PipelineOutput): boolean {
  const def = exercises.find((e) => e.id === c.exercise)!;
  const strengths = new Set(def.rules.filter((r) => c.names.includes(r.name)).map((r) => r.strength.name));
  const reps = out.result.repetitions;
  const k = reps.filter((r) => r.strengths.some((s) => strengths.has(s.name))).length;
  return reps.length > 0 && k >= reps.length / 2;
}

/**
 * One body's verdicts from one phone, against what the case demonstrates. A demonstrated fault not
 * named is `passed` where its rule's strength is given instead (judged and passed: wrong), else
 * `unchecked` (the rule did not judge it: what a view or a picture that cannot show the fault
 * should give; or its strength dropped for another fault of its category).
 */
export interface PhoneVerdict { cut: boolean; passed: boolean; unchecked: boolean; extra: string[]; view: string; viewWrong: boolean; names: string[] }

export function phoneVerdict(c: SweepCase, b: Build, s: PhoneShot): PhoneVerdict {
  const out = c.film(b, s.cam), got = named(out);
  const want = expectedView(s.cam.yaw, s.lying);
  const extra = [...got].filter((n) => !c.names.includes(n));
  const missed = c.names.length > 0 && !c.names.some((n) => got.has(n));
  const passed = missed && praised(c, out);
  return {
    cut: cutOff(c, b, s.cam), passed, unchecked: missed && !passed,
    extra, view: out.view, viewWrong: want !== null && out.view !== want, names: [...got],
  };
}

if (process.argv[1]?.endsWith('build-sweep.ts')) {
  const args = process.argv.slice(2);
  const only = args.find((a) => !a.startsWith('--'));
  const rowsOut = args.includes('--rows');
  const t0 = performance.now();
  if (args.includes('--phone')) {
    const tot = { faulted: 0, clean: 0, missed: 0, unchecked: 0, faults: 0, extra: 0, view: 0, viewN: 0 };
    for (const c of SWEEP) {
      if (only && c.exercise !== only) continue;
      const cutN = c.phones.filter((s) => cutOff(c, FIGURE, s.cam)).length;
      console.log(`${c.exercise} / ${c.name} (${c.phones.length} phones, ${cutN} cut the figure off; whole / cut)`);
      for (const [bn, b] of Object.entries(BUILDS)) {
        const v = c.phones.map((s) => phoneVerdict(c, b, s));
        const n = (f: (x: PhoneVerdict) => boolean) => [v.filter((x) => !x.cut && f(x)).length, v.filter((x) => x.cut && f(x)).length];
        const whole = v.filter((x) => !x.cut).length, cut = v.length - whole;
        const cell = ([w, k]: number[]) => `${w}/${whole} ${k}/${cut}`;
        const parts: string[] = [];
        if (c.names.length) {
          const m = n((x) => x.passed), u = n((x) => x.unchecked), e = n((x) => x.extra.length > 0);
          parts.push(`passed ${cell(m)}`, `not judged ${cell(u)}`, `other faults ${cell(e)}`);
          tot.missed += m[0]! + m[1]!; tot.unchecked += u[0]! + u[1]!; tot.faults += v.length; tot.extra += e[0]! + e[1]!;
        } else {
          const f = n((x) => x.extra.length > 0);
          parts.push(`faulted ${cell(f)}`);
          tot.faulted += f[0]! + f[1]!; tot.clean += v.length;
        }
        const vw = n((x) => x.viewWrong);
        parts.push(`view wrong ${cell(vw)}`);
        tot.view += vw[0]! + vw[1]!; tot.viewN += v.length;
        const what = new Map<string, number>();
        for (const x of v) for (const e of x.extra) what.set(`+${e}`, (what.get(`+${e}`) ?? 0) + 1);
        for (const x of v) if (x.passed) what.set('-passed', (what.get('-passed') ?? 0) + 1);
        console.log(`   ${bn}: ${parts.join(', ')}${what.size ? ` (${[...what].map(([k, q]) => `${k} ${q}`).join(', ')})` : ''}`);
        if (rowsOut) {
          c.phones.forEach((s, i) => {
            const x = v[i]!;
            if (x.passed || x.extra.length || x.viewWrong) console.log(`      ${s.label}${x.cut ? ' (cut)' : ''}: ${x.names.join(', ') || 'nothing'}${x.passed ? ' (passed)' : ''}; view ${x.view}`);
          });
        }
      }
    }
    console.log(`all bodies and phones: clean faulted ${tot.faulted}/${tot.clean}, faults passed ${tot.missed}/${tot.faults} (not judged ${tot.unchecked}, other faults named ${tot.extra}), views wrong ${tot.view}/${tot.viewN}; ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } else {
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
}
