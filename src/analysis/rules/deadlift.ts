// Deadlift (barbell, kettlebell, Romanian): a hip hinge from standing tall down to the weight and
// back. The signal blends how far the torso tilts from vertical and how far the shoulders drop
// toward the ankles, both read from vertical distances in the person's own torso and leg lengths,
// so the hinge reads the same from the side, a diagonal or the front (a torso bending toward the
// camera keeps its vertical extent). Standing tall is rest: each rep is down to the weight and up
// to lockout, which is how a set that starts standing (kettlebell, Romanian) is counted.
import type { Calibration, ExerciseDef, FrameCtx, RepView } from '../exercise.js';
import { joint, pairPoint, quantile, VISIBLE } from '../signals.js';
import { extreme, hipAngle, kneeAngle, onRepSide, over, round, rule, type RuleSpec } from './common.js';
import { facing, minOf, perFrame, relativeTilt, rollingLevel, shoulderHeight, storePerFrame, torsoUprightness } from './body.js';

/** Torso tilt at which the hinge is full (a kettlebell or conventional pull reaches 55-65). */
const FULL_TILT = 55;
/** Shoulder drop toward the ankles, in leg lengths, at a full hinge (about 0.55-0.6 measured). */
const FULL_DROP = 0.5;

/**
 * The shoulders' drop over the knees at a full hinge, in thigh lengths: FULL_DROP's half leg, the
 * shin about as long as the thigh (both about 0.245 of the height), so one thigh.
 */
const FULL_DROP_THIGHS = 2 * FULL_DROP;

/**
 * Share of the frames on which the ankles must be seen for the drop to be read over them. A phone
 * 1.5 m away cuts off the feet (the shoulders' drop toward the ankles was then unread, and the
 * hinge rested on the torso's tilt alone, which the front and the diagonals foreshorten: 6 of 11,
 * 17 of 11); the knees, which stay nearly still in a hinge, stand in for them.
 */
const FEET_SEEN = 0.5;

/** The shoulders over the knees (vertical), in thigh lengths: about 2.2 standing. */
function shoulderOverKnees(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), kn = pairPoint(f.p, 'knee');
  return sh && kn && f.thighLen > 0 ? (kn.y - sh.y) / f.thighLen : NaN;
}

/**
 * Standing references around each frame (the high end of a few seconds either side): shoulder
 * height over the ankles and torso uprightness. Rolling, so a hand-held camera that tilts during
 * the set moves the references with it.
 */
export function hingeCalibration(frames: FrameCtx[]): Calibration {
  const cal: Calibration = {};
  const feet = frames.filter((f) => Number.isFinite(shoulderHeight(f))).length;
  const knees = frames.filter((f) => Number.isFinite(shoulderOverKnees(f))).length;
  if (feet < FEET_SEEN * frames.length && knees > feet) {
    cal.overKnees = 1;
    storePerFrame(cal, 'standing', frames, rollingLevel(frames, shoulderOverKnees, 0.9, 1.4, 3.5, 2.2));
  } else storePerFrame(cal, 'standing', frames, rollingLevel(frames, shoulderHeight, 0.9, 1.1, 2, 1.55));
  // Above 1 when the torso length itself is underestimated: filmed from the front, a set of deep
  // hinges shows the torso foreshortened most of the time.
  storePerFrame(cal, 'upright', frames, rollingLevel(frames, torsoUprightness, 0.9, 0.6, 1.5, 0.95));
  return cal;
}

/** Torso tilt from this rep's most upright frame (the rep starts and ends standing). */
export function repTilt(rep: RepView): (f: FrameCtx) => number {
  const upright = Math.min(1.5, Math.max(0.6, Math.max(...rep.frames.map(torsoUprightness).filter(Number.isFinite), 0)));
  return (f) => relativeTilt(f, upright);
}

export function hingeProgress(f: FrameCtx, cal: Calibration): number {
  const tilt = relativeTilt(f, perFrame(cal, 'upright', f)) / FULL_TILT;
  const drop = cal.overKnees
    ? (perFrame(cal, 'standing', f) - shoulderOverKnees(f)) / FULL_DROP_THIGHS
    : (perFrame(cal, 'standing', f) - shoulderHeight(f)) / FULL_DROP;
  const v = [tilt, drop].filter(Number.isFinite);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

/**
 * On the feet: knees well above the ankles (not kneeling) and hips well above the ankles (not
 * sitting on the floor), so setting the weight down from a kneel or stretching between sets does
 * not read as a hinge. An unseen leg does not veto (the signal then rests on the torso).
 */
export function onFeet(f: FrameCtx): boolean {
  const hip = pairPoint(f.p, 'hip'), knee = pairPoint(f.p, 'knee'), ankle = pairPoint(f.p, 'ankle');
  if (!ankle || !(f.legLen > 0)) return true;
  if (knee && (ankle.y - knee.y) / f.legLen < 0.25) return false;
  return !hip || (ankle.y - hip.y) / f.legLen > 0.35;
}

/** Frames from the rep's deepest point to its end: the way back up to lockout. */
export const upPhase = (rep: RepView) => ({ ...rep, frames: rep.frames.slice(rep.peak), peak: 0 });

/** Which way the lifter faces at the bottom (+1/-1 along x), 0 when it cannot be told. */
export const repFacing = (rep: RepView) => facing(rep.frames[rep.peak]!);

/**
 * How far each hand moved forward of its ankle since the start of the rep (standing, hands at the
 * thighs), in leg lengths along the facing direction `dir`; the smaller of the two hands. Relative
 * to the start so that a diagonal view, where the stance width also shows as an x offset between
 * a wrist and its ankle, reads the same as a side view.
 */
export function handsAheadFrom(rep: RepView, dir: number): (f: FrameCtx) => number {
  const ahead = (f: FrameCtx, s: 'left' | 'right') => {
    const w = f.p[joint(s, 'wrist')]!, a = f.p[joint(s, 'ankle')]!;
    return dir && f.legLen > 0 && Math.min(w.score, a.score) >= VISIBLE ? ((w.x - a.x) * dir) / f.legLen : NaN;
  };
  const start = (s: 'left' | 'right') => quantile(rep.frames.slice(0, 3).map((f) => ahead(f, s)), 0.5);
  const base = { left: start('left'), right: start('right') };
  return (f) => minOf([ahead(f, 'left') - base.left, ahead(f, 'right') - base.right]);
}

/** Torso angle behind vertical in degrees (positive = leaning back), facing `dir`. */
export function leanBack(f: FrameCtx, dir: number): number {
  const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip');
  if (!dir || !sh || !hip) return NaN;
  return (Math.atan2((hip.x - sh.x) * dir, hip.y - sh.y) * 180) / Math.PI;
}

/**
 * The weight drifting forward, away from the legs (the hands' lead over the rep's 90th percentile,
 * in leg lengths): the same fault and limit for every hinge, only the advice differs.
 */
export const handsDrift: RuleSpec['check'] = (rep, judge) => {
  const dir = repFacing(rep);
  if (!dir) return undefined;
  const { value, index } = over(rep, handsAheadFrom(rep, dir), 0.9);
  if (!Number.isFinite(value)) return undefined;
  return judge.fault(value - 0.25, 0.1, 0.2, { evidence: index, description: `The hands drifted ${round(value * 100)}% of a leg length forward, away from the legs.` });
};

export const deadlift: ExerciseDef = {
  id: 'deadlift',
  name: 'Deadlift',
  description: 'Barbell, dumbbell or kettlebell deadlift: hinge at the hips with a flat back to lower the weight along the legs, then drive the hips forward to stand tall.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at hip height: the hinge depth, the knee bend, the path of the weight along the legs and the lockout are clearest there. A diagonal view also works; from the front only the count and the lockout can be judged.',
  filmingAdvice: 'Place the camera 2-4 m away at hip height, side-on, with the whole body, the weight and the floor in frame for the whole set.',
  signal: 'mean of torso tilt from vertical (0 to 55 deg, against the standing uprightness of the surrounding seconds) and shoulder drop toward the ankles (0 to 0.5 leg lengths below the standing height of the surrounding seconds), both from vertical distances',
  calibrate: hingeCalibration,
  progress: hingeProgress,
  gate: onFeet,
  gateDescription: 'on the feet: knees at least a quarter and hips at least a third of a leg length above the ankles (not kneeling or sitting)',
  rules: [
    rule({
      id: 'deadlift-lockout', category: 'range_of_motion', name: 'Incomplete lockout',
      correction: 'Finish every rep standing tall: drive the hips forward until they are straight under the shoulders and squeeze the glutes.',
      views: ['side', 'diagonal', 'front'],
      readsReturn: true,
      check(rep, judge) {
        const up = upPhase(rep);
        if (rep.view !== 'front') {
          const { value, index } = extreme(up, onRepSide(rep, hipAngle), 'max');
          if (Number.isFinite(value)) {
            return judge.fault(160 - value, 10, 25, { evidence: rep.peak + index, description: `At the top the hips opened only to about ${round(value)} deg; they did not reach full extension.` });
          }
        }
        const { value, index } = extreme(up, repTilt(rep), 'min');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 20, 10, 25, { evidence: rep.peak + index, description: `At the top the torso was still tilted about ${round(value)} deg forward.` });
      },
      strength: { category: 'range_of_motion', name: 'Full lockout', description: 'Stood tall with the hips extended at the top.' },
    }),
    rule({
      id: 'deadlift-squatting', category: 'technique', name: 'Squatting the weight up',
      correction: 'Push the hips back rather than down: shins nearly vertical, knees softly bent, the torso hinging forward.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // The deepest knee bend of the rep (a low quantile, robust to a one-frame slip).
        const { value, index } = over(rep, onRepSide(rep, kneeAngle), 0.1);
        if (!Number.isFinite(value)) return undefined;
        // A kettlebell deadlift bends the knees more than a Romanian one: clean kettlebell reps
        // read 95-120 deg; below 90 the thighs pass parallel, which is a squat.
        return judge.fault(90 - value, 10, 20, { evidence: index, description: `The knees bent to about ${round(value)} deg at the bottom: a squat rather than a hip hinge.` });
      },
      strength: { category: 'technique', name: 'Hip hinge', description: 'The hips moved back while the knees stayed softly bent.' },
    }),
    rule({
      id: 'deadlift-weight-drift', category: 'technique', name: 'Weight drifting away from the legs',
      correction: 'Keep the weight close: drag it along the thighs and shins so it stays over the middle of the foot.',
      views: ['side', 'diagonal'],
      check: handsDrift,
      strength: { category: 'technique', name: 'Weight close', description: 'The weight stayed over the middle of the foot.' },
    }),
    rule({
      id: 'deadlift-lean-back', category: 'posture', name: 'Leaning back at the top',
      correction: 'Stop when the hips are straight and the torso is vertical; do not lean back or arch the lower back to finish.',
      views: ['side', 'diagonal'],
      readsReturn: true,
      check(rep, judge) {
        const dir = repFacing(rep);
        if (!dir) return undefined;
        const up = upPhase(rep);
        const { value, index } = extreme(up, (f) => leanBack(f, dir), 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 12, 6, 12, { evidence: rep.peak + index, description: `At lockout the torso leaned about ${round(value)} deg back past vertical.` });
      },
      strength: { category: 'posture', name: 'Stacked lockout', description: 'Finished with the torso vertical, not leaning back.' },
    }),
  ],
};
