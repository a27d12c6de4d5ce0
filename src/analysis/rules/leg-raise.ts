// Lying leg raise: on the back, legs straight, the feet rise from just above the floor until the
// legs are about vertical, and lower under control. The signal is the ankles' height over the hips
// in leg lengths (0 flat, about 0.9 with the legs vertical), a vertical distance that also reads
// from the feet end, where the legs rise toward the camera.
import type { Calibration, ExerciseDef, FrameCtx } from '../exercise.js';
import { pairPoint } from '../signals.js';
import { bodyLying, extreme, kneeAngle, onRepSide, round, rule } from './common.js';
import { perFrame } from './body.js';
import { situpCalibration } from './sit-up.js';

/**
 * The least leg length the feet's height is read in, in shoulder breadths (sit-up.ts
 * TORSO_PER_BREADTH, the same reasoning). The leg length (exercise.ts, q85 of 5 s either side) is
 * the picture's: lying still, filmed from the head end, the legs are drawn end-on, 0.09-0.47
 * shoulder breadths long (0.91 from 2 m up and 1.5 m away; the test figure's leg is 1.67
 * breadths), and the ankles' vertical offset from the hips read 0.4-1.26 of a raise: sway and
 * noise over it whole raises (bench/still-sweep.ts: 15 of 63 takes of the start held counted 1-4).
 * Over a real set the window holds the legs raised, 0.99 breadths or more (from the head end at
 * floor height, 1.5 m away), 0.88 for the 13% broader build: 0.8 stays under both.
 */
export const LEG_PER_BREADTH = 0.8;

/**
 * The least rise of a leg raise attempt in its own signal (ExerciseDef.minRise): the feet lifted
 * 0.24 leg lengths over the hips, the legs about 14 deg off the floor. Lying still, sway, breathing
 * and noise rise 0.24 at the median and 0.30 at q90 over the lying (bench/still-sweep.ts --stats,
 * with LEG_PER_BREADTH); real raises rise 0.51 or more, one to a fifth of the way up about 0.37.
 */
export const LEG_RAISE_MIN_RISE = 0.3;

/** Ankles above the hips in leg lengths (the picture's, or LEG_PER_BREADTH shoulder breadths when that is more). */
export function feetOverHips(f: FrameCtx, cal: Calibration = {}): number {
  const a = pairPoint(f.p, 'ankle'), h = pairPoint(f.p, 'hip');
  const breadth = perFrame(cal, 'breadth', f);
  const scale = Number.isFinite(breadth) ? Math.max(f.legLen, LEG_PER_BREADTH * breadth) : f.legLen;
  return a && h && scale > 0 ? (h.y - a.y) / scale : NaN;
}

/** Shoulders about level with the hips: lying on the back or a bench, torso under 35 deg. */
function lyingTorso(f: FrameCtx): boolean {
  return bodyLying(f, 35);
}

export const legRaise: ExerciseDef = {
  id: 'leg-raise',
  name: 'Lying leg raise',
  description: 'Lying leg raise on the floor or a flat bench: on the back, legs straight and together, raise the feet until the legs are about vertical, then lower them slowly until just above the floor. Film from the side at floor height, 2-3 m away, with the head, hips and feet in frame.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at floor level: the leg angle at the top, the knee bend and the lowering are clearest there; from the feet end the count still reads.',
  filmingAdvice: 'Put the camera on the floor side-on, 2-3 m away, with the whole body and the raised feet in frame.',
  signal: 'ankles above the hips in leg lengths (at least 0.8 shoulder breadths): 0 flat, 0.8 = full range (legs near vertical)',
  calibrate: situpCalibration,
  progress: (f, cal) => feetOverHips(f, cal) / 0.8,
  minRise: LEG_RAISE_MIN_RISE,
  gate: lyingTorso,
  gateDescription: 'lying on the back, torso within 35 deg of horizontal',
  rules: [
    rule({
      id: 'leg-raise-range', category: 'range_of_motion', name: 'Legs not reaching vertical',
      correction: 'Raise the legs until they point at the ceiling before lowering.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const past = judge.verdict(0.9 - rep.peakProgress, 0.15, 0.3);
        if (!past) return null;
        const deg = round((Math.asin(Math.max(-1, Math.min(1, rep.peakProgress * 0.8))) * 180) / Math.PI);
        return { ...past, evidence: rep.peak, description: `The legs rose to about ${deg} deg from the floor.` };
      },
      strength: { category: 'range_of_motion', name: 'Full raise', description: 'Raised the legs to vertical.' },
    }),
    rule({
      id: 'leg-raise-knees', category: 'technique', name: 'Bending the knees',
      correction: 'Keep the legs straight; bend the knees slightly only if the lower back lifts.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = extreme(rep, onRepSide(rep, kneeAngle), 'min');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(140 - value, 20, 40, { evidence: index, description: `The knees bent to about ${round(value)} deg during the raise.` });
      },
      strength: { category: 'technique', name: 'Straight legs', description: 'Kept the legs straight.' },
    }),
    rule({
      id: 'leg-raise-descent', category: 'tempo', name: 'Dropping the legs',
      correction: 'Lower the legs slowly, taking at least as long as on the way up.',
      views: ['side', 'diagonal', 'front'],
      readsReturn: true,
      check(rep) {
        const up = rep.frames[rep.peak]!.t - rep.frames[0]!.t;
        const down = rep.frames[rep.frames.length - 1]!.t - rep.frames[rep.peak]!.t;
        if (up <= 0 || down >= 0.6 * up) return null;
        return { severity: 'minor', evidence: rep.peak, description: `The legs came down in ${(down / 1000).toFixed(1)} s against ${(up / 1000).toFixed(1)} s up.` };
      },
      strength: { category: 'tempo', name: 'Controlled lowering', description: 'Lowered the legs under control.' },
    }),
  ],
};
