// Kettlebell swing (Russian to chest height, American overhead): the hips hinge to hike the bell
// between the legs, then snap forward and float it up. The rep is the bell's trip, so the signal is
// the hands' height above the hips in torso lengths: about -0.5 with the bell between the thighs,
// 0.8 at chest height, more overhead. It reads the same from every side (vertical distances only).
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { pairPoint } from '../signals.js';
import { extreme, hipAngle, kneeAngle, onRepSide, over, round, rule } from './common.js';
import { leanBack, onFeet, repFacing } from './deadlift.js';

/** Hands above the hips in torso lengths (negative below). */
export function handsOverHips(f: FrameCtx): number {
  const w = pairPoint(f.p, 'wrist'), h = pairPoint(f.p, 'hip');
  return w && h && f.torsoLen > 0 ? (h.y - w.y) / f.torsoLen : NaN;
}

export const kettlebellSwing: ExerciseDef = {
  id: 'kettlebell-swing',
  name: 'Kettlebell swing',
  description: 'Two-hand kettlebell swing, Russian (to chest height) or American (overhead): hinge to hike the bell back between the legs, then drive the hips forward so the bell floats up on straight arms. Film from the side or a diagonal at hip height, 3-4 m away, with the whole body and the bell\'s highest point in frame.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at hip height: the hinge, the knee bend and the hip snap at the top are clearest there. A diagonal also works; from the front only the count and the bell height can be judged.',
  filmingAdvice: 'Place the camera 3-4 m away at hip height, side-on, with the feet, the whole body and the bell overhead in frame.',
  signal: 'hands above the hips in torso lengths: -0.5 (bell between the thighs) to 0.8 (chest height) = full range',
  progress: (f) => (handsOverHips(f) + 0.5) / 1.3,
  gate: onFeet,
  gateDescription: 'on the feet (not kneeling or sitting)',
  rules: [
    rule({
      id: 'swing-height', category: 'range_of_motion', name: 'Bell not reaching chest height',
      correction: 'Snap the hips forward harder so the bell floats to at least chest height on straight arms.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        // Progress 1 = hands 0.8 torso lengths above the hips: about chest height.
        return judge.fault(0.85 - rep.peakProgress, 0.15, 0.3, { evidence: rep.peak, description: `The bell rose to about ${round(rep.peakProgress * 100)}% of chest height.` });
      },
      strength: { category: 'range_of_motion', name: 'Full swing', description: 'The bell reached chest height or higher.' },
    }),
    rule({
      id: 'swing-squat', category: 'technique', name: 'Squatting the swing',
      correction: 'Hinge: push the hips back with the shins nearly vertical; the power comes from the hips, not from bending the knees.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = over(rep, onRepSide(rep, kneeAngle), 0.1);
        if (!Number.isFinite(value)) return undefined;
        // A hinge keeps the knees at 120-160 deg in the hike; below 100 the thighs near parallel.
        return judge.fault(100 - value, 10, 20, { evidence: index, description: `The knees bent to about ${round(value)} deg in the hike: a squat rather than a hinge.` });
      },
      strength: { category: 'technique', name: 'Hip hinge', description: 'Hiked the bell with a hinge, knees soft.' },
    }),
    rule({
      id: 'swing-hip-snap', category: 'technique', name: 'Hips not finishing',
      correction: 'Stand fully tall at the top of each swing: hips straight under the shoulders, glutes squeezed.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = extreme(rep, onRepSide(rep, hipAngle), 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(160 - value, 10, 25, { evidence: index, description: `The hips opened only to about ${round(value)} deg at the top.` });
      },
      strength: { category: 'technique', name: 'Hip snap', description: 'Stood tall with the hips extended at the top.' },
    }),
    rule({
      id: 'swing-lean-back', category: 'posture', name: 'Leaning back at the top',
      correction: 'Finish in a vertical plank: ribs down, no lean back as the bell floats.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // Which way the lifter faces is read in the hike, where the torso tilts forward.
        const dir = repFacing({ ...rep, peak: 0 });
        if (!dir) return undefined;
        const { value, index } = extreme(rep, (f) => leanBack(f, dir), 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 15, 6, 12, { evidence: index, description: `The torso leaned about ${round(value)} deg back at the top of the swing.` });
      },
      // Not "tall finish": a rep can lean back no further than vertical and still not finish the hips.
      strength: { category: 'posture', name: 'No lean back', description: 'Did not lean back as the bell floated up.' },
    }),
  ],
};
