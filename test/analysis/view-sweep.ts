// The pinhole sweep of view.ts (issues 20n, 20o, 20s): the camera of camera.ts films seven bodies the
// catalog films (standing, pressing overhead, hinged in a row, seated, in a plank, lying on a bench,
// in a glute bridge)
// from every 10 deg round them, pitched -20 to +40 deg, from 1.5, 2.5, 3.5 and 5 m, with the camera
// 0.3-2 m off the floor (where a phone is), and counts the cameras view.ts names outside the band
// their true yaw falls in. Run it alone to print the misses per body:
//   node --import tsx test/analysis/view-sweep.ts [--rows]
// view-sweep.unit.test.ts holds the counts to their ceilings.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildContext } from '../../src/analysis/exercise.js';
import { estimateView, type ViewAngle } from '../../src/analysis/view.js';
import { body, pitch, shift, THIGH, TORSO, type Joints, type V3 } from './figure3d.js';
import { film, UNITS_PER_M } from './camera.js';
import { series } from './synthetic.js';

export interface SweepBody {
  /** The joints at time t (seconds, one second filmed at 12 fps). */
  at: (t: number) => Joints;
  /** Where the camera looks (figure3d units). */
  aim: V3;
  /** Lying or in a plank: the long axis is level, and the head and feet ends are both `front`. */
  lying: boolean;
}

const wave = (t: number) => (1 - Math.cos(t * 6)) / 2;

/** The plank's lean (deg from standing) that puts straight arms, vertical, on the floor: asin(arm / (legs + torso)). */
const PLANK_LEAN = 90 - (Math.asin(125 / 320) * 180) / Math.PI;

function hipsOf(j: Joints): V3 {
  const l = j.leftHip!, r = j.rightHip!;
  return [(l[0] + r[0]) / 2, (l[1] + r[1]) / 2, (l[2] + r[2]) / 2];
}

function plank(t: number): Joints {
  // Arms straight down to the floor (raise = the lean: world-vertical once pitched), the hips
  // moving a little as a plank held for a push-up or a mountain climber does.
  const lean = PLANK_LEAN + 2 * wave(t);
  const arm = { raise: lean, plane: 0 };
  return pitch(body({ left: arm, right: arm }), lean);
}

function bench(t: number): Joints {
  const arm = { raise: 90, plane: 0, bend: 30 + 30 * Math.sin(t * 6) };
  const j = pitch(body({ left: arm, right: arm }), -90), hip = j.leftHip!;
  return shift(j, [0, 40 - hip[1], -hip[2]]);
}

/**
 * A glute bridge on the floor, head toward -z: the feet planted near the hips, the knees up (shins
 * 60 deg off the floor), the hips lifted from 7 to 25 cm with the shoulders staying down.
 */
function bridge(t: number): Joints {
  const u = wave(t), hipLift = 15 + 40 * u;
  const thigh = (Math.asin((87 - hipLift) / THIGH) * 180) / Math.PI;
  const tilt = -(Math.asin((hipLift - 15) / TORSO) * 180) / Math.PI;
  return pitch(body({ shin: 60, thigh, tilt }), -90);
}

export const sweepBodies: Record<string, SweepBody> = {
  squat: { at: (t) => body({ kneeBend: 20 + 60 * wave(t) }), aim: [0, 200, 0], lying: false },
  press: {
    at: (t) => { const a = { raise: 120 + 50 * wave(t), plane: 30, bend: 60 - 60 * wave(t) }; return body({ left: a, right: a }); },
    aim: [0, 200, 0], lying: false,
  },
  // A bent-over row: torso 50 deg forward, knees a little bent, the arms pulling from hanging.
  row: {
    at: (t) => { const a = { raise: 30 * wave(t), plane: 10, bend: 90 * wave(t) }; return body({ kneeBend: 25, tilt: 50, left: a, right: a }); },
    aim: [0, 190, 0], lying: false,
  },
  seated: {
    at: (t) => { const a = { raise: 150 + 20 * Math.sin(t * 6), plane: 20, bend: 60 }; return body({ shin: 0, thigh: 90, left: a, right: a }); },
    aim: [0, 100, -100], lying: false,
  },
  plank: { at: plank, aim: hipsOf(plank(0)), lying: true },
  bench: { at: bench, aim: hipsOf(bench(0)), lying: true },
  bridge: { at: bridge, aim: hipsOf(bridge(0.5)), lying: true },
};

/**
 * The view a true yaw should be named (deg round the body, 0 in front of the standing figure), or
 * null in the gaps between bands: front within 5 deg, a diagonal 20-60, side-on 70-110, the back
 * from 125. Lying or in a plank there is no back: the face points at the floor or the ceiling, not
 * at the camera or away from it, and the long axis is seen end-on from the head or the feet alike
 * (the shared labels name a push-up filmed straight at the head front, and no tuning clip is filmed
 * from the feet), so the feet end is front too, within 5 deg, and 20-60 deg off it a diagonal.
 */
export function expectedView(yaw: number, lying: boolean): ViewAngle | null {
  const y = ((yaw % 360) + 360) % 360, a = Math.min(y, 360 - y);
  const off = lying ? Math.min(a, 180 - a) : a;
  if (off <= 5) return 'front';
  if (off >= 20 && off <= 60) return 'diagonal';
  if (a >= 70 && a <= 110) return 'side';
  if (!lying && a >= 125) return 'back';
  return null;
}

export interface SweepMiss { body: string; yaw: number; pitch: number; distance: number; expected: ViewAngle; named: string }

/** Every camera of the sweep on one body: the cameras judged and those named wrong. */
export function sweep(name: string): { judged: number; misses: SweepMiss[] } {
  const b = sweepBodies[name]!;
  const misses: SweepMiss[] = [];
  let judged = 0;
  for (let yaw = 0; yaw < 360; yaw += 10) {
    const expected = expectedView(yaw, b.lying);
    if (!expected) continue;
    for (let down = -20; down <= 40; down += 10) {
      for (const distance of [1.5, 2.5, 3.5, 5]) {
        const height = b.aim[1] / UNITS_PER_M + distance * Math.sin((down * Math.PI) / 180);
        if (height < 0.3 || height > 2) continue;
        judged++;
        const frames = buildContext(series(12, 1, (t) => film(b.at(t), { yaw, pitch: down, distance, aim: b.aim })), 12);
        const named = estimateView(frames);
        if (named !== expected) misses.push({ body: name, yaw, pitch: down, distance, expected, named });
      }
    }
  }
  return { judged, misses };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let all = 0, wrong = 0;
  for (const name of Object.keys(sweepBodies)) {
    const { judged, misses } = sweep(name);
    all += judged; wrong += misses.length;
    console.log(`${name}: ${misses.length} of ${judged} wrong`);
    if (process.argv.includes('--rows')) for (const m of misses) console.log(`  yaw ${m.yaw} pitch ${m.pitch} ${m.distance} m: ${m.named} (${m.expected})`);
  }
  console.log(`all: ${wrong} of ${all} wrong`);
}
