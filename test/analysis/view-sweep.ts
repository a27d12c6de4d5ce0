// The pinhole sweep of view.ts (issues 20n, 20o, 20s): the camera of camera.ts films seven bodies the
// catalog films (standing, pressing overhead, hinged in a row, seated, in a plank, lying on a bench,
// in a glute bridge)
// from every 10 deg round them, pitched -20 to +40 deg, from 1.5, 2.5, 3.5 and 5 m, with the camera
// 0.3-2 m off the floor (where a phone is), and counts the cameras view.ts names outside the band
// their true yaw falls in. Run it alone to print the misses per body:
//   node --import tsx test/analysis/view-sweep.ts [--rows] [--phone]
// --phone films every camera with each of sweepPhones' phones instead (camera.ts `phone`: a fixed
// field of view, a real picture, the body off-centre), 18 times as many cameras.
// view-sweep.unit.test.ts holds the counts to their ceilings.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildContext } from '../../src/analysis/exercise.js';
import { estimateView, type ViewAngle } from '../../src/analysis/view.js';
import { KP } from '../../src/analysis/pose.js';
import { body, pitch, shift, THIGH, TORSO, type Joints, type V3 } from './figure3d.js';
import { film, phoneCamera, phoneFocal, UNITS_PER_M, type Phone } from './camera.js';
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

export interface SweepMiss { body: string; yaw: number; pitch: number; distance: number; expected: ViewAngle; named: string; phone?: string }

/**
 * The phones of the phone sweep (issue 20x): 60, 67 and 75 deg across the long side, portrait and
 * landscape, each aimed at the body (`aim` at the picture's centre) and turned off it: `aim` half-way
 * to the picture's right edge and 0.3 of the way up, and the same to the left and down.
 */
export function sweepPhones(): { label: string; phone: Phone }[] {
  const out: { label: string; phone: Phone }[] = [];
  for (const fov of [60, 67, 75]) {
    for (const portrait of [true, false]) {
      const p = phoneCamera(fov, portrait), f = phoneFocal(p);
      const across = (Math.atan(p.width / 2 / f) * 180) / Math.PI, up = (Math.atan(p.height / 2 / f) * 180) / Math.PI;
      for (const [a, b] of [[0, 0], [-0.5, -0.3], [0.5, 0.3]] as const) {
        out.push({ label: `${fov} deg ${portrait ? 'portrait' : 'landscape'} turn ${a} ${b}`, phone: { ...p, turn: [a * across, b * up] } });
      }
    }
  }
  return out;
}

/**
 * Every camera of the sweep on one body: the cameras judged and those named wrong (`phone`: filmed
 * by that phone, the picture's size given to estimateView as the pipeline gives it; `cut`: its
 * cameras whose picture cuts off a shoulder or a hip, not judged).
 */
export function sweep(name: string, phone?: Phone, label?: string): { judged: number; misses: SweepMiss[]; cut: number } {
  const b = sweepBodies[name]!;
  const misses: SweepMiss[] = [];
  let judged = 0, cut = 0;
  for (let yaw = 0; yaw < 360; yaw += 10) {
    const expected = expectedView(yaw, b.lying);
    if (!expected) continue;
    for (let down = -20; down <= 40; down += 10) {
      for (const distance of [1.5, 2.5, 3.5, 5]) {
        const height = b.aim[1] / UNITS_PER_M + distance * Math.sin((down * Math.PI) / 180);
        if (height < 0.3 || height > 2) continue;
        const poses = series(12, 1, (t) => film(b.at(t), { yaw, pitch: down, distance, aim: b.aim, ...(phone ? { phone } : {}) }));
        // Every view cue reads the torso: a phone so near (or turned so far) that a shoulder or a
        // hip leaves its picture on any frame films the legs or the head, not the body's turn.
        if (phone && poses.some((p) => TORSO_KP.some((i) => p.keypoints[i]!.score <= 0.1))) { cut++; continue; }
        judged++;
        const frames = buildContext(poses, 12);
        const named = estimateView(frames, undefined, phone ? { width: phone.width, height: phone.height } : undefined);
        if (named !== expected) misses.push({ body: name, yaw, pitch: down, distance, expected, named, ...(label ? { phone: label } : {}) });
      }
    }
  }
  return { judged, misses, cut };
}

/** The torso's keypoints: shoulders and hips. */
const TORSO_KP = [KP.leftShoulder, KP.rightShoulder, KP.leftHip, KP.rightHip];

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const phones = process.argv.includes('--phone') ? sweepPhones() : [{ label: '', phone: undefined }];
  let all = 0, wrong = 0, cutAll = 0;
  const byPhone = new Map<string, [number, number]>();
  for (const name of Object.keys(sweepBodies)) {
    let bodyAll = 0, bodyWrong = 0;
    for (const { label, phone } of phones) {
      const { judged, misses, cut } = sweep(name, phone, label || undefined);
      bodyAll += judged; bodyWrong += misses.length; cutAll += cut;
      const [w, n] = byPhone.get(label) ?? [0, 0];
      byPhone.set(label, [w + misses.length, n + judged]);
      if (process.argv.includes('--rows')) for (const m of misses) console.log(`  ${m.phone ? `${m.phone}: ` : ''}yaw ${m.yaw} pitch ${m.pitch} ${m.distance} m: ${m.named} (${m.expected})`);
    }
    all += bodyAll; wrong += bodyWrong;
    console.log(`${name}: ${bodyWrong} of ${bodyAll} wrong`);
  }
  if (phones.length > 1) for (const [label, [w, n]] of byPhone) console.log(`${label}: ${w} of ${n} wrong`);
  console.log(`all: ${wrong} of ${all} wrong${cutAll ? ` (${cutAll} cameras with the torso cut off not judged)` : ''}`);
}
