// Lateral raise: dumbbells or cables rise out to the sides from hanging arms to shoulder height.
// Signal and calibration are shared with the front raise (arm-raise.ts): elbow and wrist height
// against the clip's hanging position, which reads the same from the front, a diagonal or the side.
import type { ExerciseDef, FrameCtx, RepView } from '../exercise.js';
import { quantile } from '../signals.js';
import { elbowAngle, round, rule, type RuleSpec } from './common.js';
import { leanInPicture } from './in-picture.js';
import { raiseCalibration, raiseGate, raiseProgress, repElevation, topElevation } from './arm-raise.js';
import { maxOf } from './body.js';

/**
 * The elbow angle while the arms are near the top (within 15 deg of the highest elevation), on the
 * straighter arm, as the upper quartile over those frames: the far arm of a diagonal view and a
 * frame where one arm is lost often read folded, a truly bent elbow stays bent at every frame.
 */
export function elbowAtTop(rep: RepView): { value: number; index: number } {
  const elev = repElevation(rep);
  const top = topElevation(rep);
  const near = (f: FrameCtx) => maxOf([elev(f, 'left'), elev(f, 'right')].filter(Number.isFinite)) >= top.value - 15;
  const angles = rep.frames.map((f) => (near(f) ? maxOf([elbowAngle(f, 'left'), elbowAngle(f, 'right')].filter(Number.isFinite)) : NaN));
  return { value: quantile(angles, 0.75), index: top.index };
}

/** Torso sway over the rep: the spread between its 10th and 90th percentile lean, with the frame of the larger. */
export function torsoSway(rep: RepView): { value: number; index: number } {
  const leans = rep.frames.map(leanInPicture(rep));
  const hi = quantile(leans, 0.9), lo = quantile(leans, 0.1);
  let index = rep.peak, best = Infinity;
  leans.forEach((v, i) => { if (Number.isFinite(v) && Math.abs(v - hi) < best) { best = Math.abs(v - hi); index = i; } });
  return { value: hi - lo, index };
}

/** Elbows bent at the top: faulted below `limit` deg (the front raise wants longer arms than the lateral). */
export function elbowsBentCheck(limit: number): RuleSpec['check'] {
  return (rep, judge) => {
    const { value, index } = elbowAtTop(rep);
    if (!Number.isFinite(value)) return undefined;
    return judge.fault(limit - value, 15, 30, { evidence: index, description: `At the top the elbows were bent to about ${round(value)} deg.` });
  };
}

/** The torso rocking to lift the weight (torsoSway past 12 deg); `purpose` ends the sentence. */
export function swayCheck(purpose: string): RuleSpec['check'] {
  return (rep, judge) => {
    const { value, index } = torsoSway(rep);
    if (!Number.isFinite(value)) return undefined;
    return judge.fault(value - 12, 5, 12, { evidence: index, description: `The torso rocked through about ${round(value)} deg ${purpose}.` });
  };
}

export const lateralRaise: ExerciseDef = {
  id: 'lateral-raise',
  name: 'Lateral raise',
  description: 'Dumbbell or cable lateral raise: with a soft bend in the elbows, raise the arms out to the sides to shoulder height and lower them under control.',
  recommendedAngle: 'front',
  angleAdvice: 'Film from the front at chest height so both arms travel across the picture: the height they reach, the elbow bend and a lean to either side are clearest there. A diagonal view also works.',
  filmingAdvice: 'Place the camera 2-3 m away at chest height, facing the person, with both hands in frame at full arm span and the hips visible.',
  signal: 'elbow and wrist height toward the shoulder against the hanging position of the surrounding seconds (1 - cos of the arm elevation), on the arm that rises higher; 75 deg of elevation is a full rep',
  calibrate: raiseCalibration,
  progress: raiseProgress,
  gate: raiseGate,
  gateDescription: 'standing or seated upright, torso within 35 deg of vertical',
  rules: [
    rule({
      id: 'lateral-raise-height', category: 'range_of_motion', name: 'Arms below shoulder height',
      correction: 'Raise the arms until the elbows reach shoulder height, as if pouring water from a jug at the top.',
      views: ['front', 'diagonal', 'side'],
      check(rep, judge) {
        const { value, index } = topElevation(rep);
        if (!Number.isFinite(value)) return undefined;
        // The shoulder keypoint itself rises as the shoulder blade elevates during the raise, so
        // elbows level with the shoulders read 70-80 deg here (measured on clean reps); 60 is short.
        return judge.fault(60 - value, 10, 20, { evidence: index, description: `The arms rose to about ${round(value)} deg from the sides; shoulder height is 90 deg.` });
      },
      strength: { category: 'range_of_motion', name: 'Shoulder-height raise', description: 'The elbows reached shoulder height.' },
    }),
    rule({
      id: 'lateral-raise-too-high', category: 'technique', name: 'Raising above the shoulders',
      correction: 'Stop at shoulder height; going higher shifts the work to the upper traps and pinches the shoulder.',
      views: ['front', 'diagonal', 'side'],
      check(rep, judge) {
        const { value, index } = topElevation(rep);
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 115, 15, 30, { evidence: index, description: `The arms rose to about ${round(value)} deg, well above shoulder height (90 deg).` });
      },
      // Said of a rep that did not go too high, which may also be one that fell short of the
      // shoulders: the strength must not claim the height the range rule may fault.
      strength: { category: 'technique', name: 'No overshoot', description: 'Did not raise the arms above the shoulders.' },
    }),
    rule({
      id: 'lateral-raise-elbows', category: 'technique', name: 'Elbows bending',
      correction: 'Keep only a soft bend in the elbows and lead with them; a sharp bend turns the raise into an upright row.',
      views: ['front', 'diagonal'],
      check: elbowsBentCheck(120),
      strength: { category: 'technique', name: 'Long arms', description: 'Elbows stayed only softly bent.' },
    }),
    rule({
      id: 'lateral-raise-swing', category: 'posture', name: 'Body swing',
      correction: 'Stand tall with the core braced and lift with the shoulders alone; use a lighter weight if the body has to swing.',
      views: ['front', 'diagonal', 'side'],
      check: swayCheck('to swing the weights up'),
      strength: { category: 'posture', name: 'Still torso', description: 'No momentum from the body.' },
    }),
  ],
};
