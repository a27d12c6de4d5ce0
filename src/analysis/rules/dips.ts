// Dips (parallel bars or a bench behind the body): the hands stay fixed and the body lowers by
// bending the elbows until the upper arms are about level, then presses back to straight arms.
// The signal is how far the shoulders sink toward the hands, in arm lengths, against the clip's own
// top position: a vertical distance, so it reads the same from every side.
import type { Calibration, ExerciseDef, FrameCtx } from '../exercise.js';
import { pairPoint } from '../signals.js';
import { atEnds, atPeak, bounceRule, elbowAngle, extreme, onRepSide, round, torsoLean, rule } from './common.js';
import { leanInPicture } from './in-picture.js';
import { perFrame, rollingLevel, storePerFrame } from './body.js';

/** Shoulders above the wrists in arm lengths: about 0.9 on straight arms, 0.4 at the bottom. */
export function shouldersOverHands(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), wr = pairPoint(f.p, 'wrist');
  return sh && wr && f.armLen > 0 ? (wr.y - sh.y) / f.armLen : NaN;
}

export const dips: ExerciseDef = {
  id: 'dips',
  name: 'Dips',
  description: 'Parallel-bar or bench dips: hands fixed on the bars (or a bench behind you), lower the body by bending the elbows until the upper arms are about level with the floor, then press back up to straight arms. Film from the side at shoulder height, 2-3 m away, with the whole body and the hands in frame.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at shoulder height: the elbow bend at the bottom, the lockout and the forward lean are clearest there; from the front or back the count and the depth still read.',
  filmingAdvice: 'Place the camera 2-3 m away at shoulder height, side-on, with the hands, shoulders and hips in frame for the whole set.',
  signal: 'shoulders sinking toward the hands: 0.45 arm lengths below the top position of the surrounding seconds = full depth',
  calibrate(frames) {
    return storePerFrame({}, 'top', frames, rollingLevel(frames, shouldersOverHands, 0.9, 0.5, 1.2, 0.9));
  },
  progress: (f: FrameCtx, cal: Calibration) => (perFrame(cal, 'top', f) - shouldersOverHands(f)) / 0.45,
  // Hands below the shoulders and bearing the body: the torso is within 50 deg of vertical.
  gate: (f) => shouldersOverHands(f) > 0.1 && !(torsoLean(f) > 50),
  gateDescription: 'hands below the shoulders, torso within 50 deg of vertical',
  rules: [
    rule({
      id: 'dips-depth', category: 'range_of_motion', name: 'Shallow dip',
      correction: 'Lower until the upper arms are level with the floor (elbows at about 90 deg).',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const v = atPeak(rep, onRepSide(rep, elbowAngle));
        if (!Number.isFinite(v)) return undefined;
        return judge.fault(v - 100, 15, 30, { evidence: rep.peak, description: `The elbows bent only to about ${round(v)} deg at the bottom.` });
      },
      strength: { category: 'range_of_motion', name: 'Full depth', description: 'Lowered until the upper arms were level.' },
    }),
    rule({
      id: 'dips-lockout', category: 'range_of_motion', name: 'Incomplete lockout',
      correction: 'Press all the way up until the arms are straight before the next rep.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const v = atEnds(rep, elbowAngle);
        if (!Number.isFinite(v)) return undefined;
        return judge.fault(155 - v, 15, 30, { evidence: 0, description: `The arms straightened only to about ${round(v)} deg at the top.` });
      },
      strength: { category: 'range_of_motion', name: 'Full lockout', description: 'Pressed to straight arms at the top.' },
    }),
    rule({
      id: 'dips-lean', category: 'posture', name: 'Excessive forward lean',
      correction: 'Keep the chest up: a slight forward lean works the chest, past about 40 deg the shoulders take the load.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = extreme(rep, leanInPicture(rep), 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 40, 5, 10, { evidence: index, description: `The torso leaned about ${round(value)} deg forward at the bottom.` });
      },
      // Not "controlled": the same rep may bounce at the bottom (tempo).
      strength: { category: 'posture', name: 'Upright torso', description: 'The torso stayed close to upright.' },
    }),
    bounceRule('dips'),
  ],
};
