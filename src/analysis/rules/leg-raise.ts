// Lying leg raise: on the back, legs straight, the feet rise from just above the floor until the
// legs are about vertical, and lower under control. The signal is the ankles' height over the hips
// in leg lengths (0 flat, about 0.9 with the legs vertical), a vertical distance that also reads
// from the feet end, where the legs rise toward the camera.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { pairPoint } from '../signals.js';
import { bodyLying, extreme, kneeAngle, onRepSide, round, rule } from './common.js';

/** Ankles above the hips in leg lengths. */
export function feetOverHips(f: FrameCtx): number {
  const a = pairPoint(f.p, 'ankle'), h = pairPoint(f.p, 'hip');
  return a && h && f.legLen > 0 ? (h.y - a.y) / f.legLen : NaN;
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
  signal: 'ankles above the hips in leg lengths: 0 flat, 0.8 = full range (legs near vertical)',
  progress: (f) => feetOverHips(f) / 0.8,
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
