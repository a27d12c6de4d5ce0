// Romanian deadlift: a hip hinge from standing with the knees almost straight; the weight slides
// down the thighs to about mid-shin and the hips drive forward to stand. Counted on the deadlift's
// hinge signal (torso tilt and shoulder drop against the standing references of the surrounding
// seconds); what differs is the form: the knees must stay soft, not bend into a squat.
import type { ExerciseDef } from '../exercise.js';
import { extreme, kneeAngle, onRepSide, over, round, rule } from './common.js';
import { deadlift, handsDrift, hingeCalibration, hingeProgress, onFeet, repFacing, repTilt, upPhase } from './deadlift.js';

export const romanianDeadlift: ExerciseDef = {
  id: 'romanian-deadlift',
  name: 'Romanian deadlift',
  description: 'Barbell or dumbbell Romanian deadlift: knees softly bent and still, push the hips back until the torso tilts well forward with the weight along the thighs, then drive the hips forward to stand tall. Film from the side at hip height, 2-4 m away, with the whole body and the weight in frame.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at hip height: the knee bend, the hinge depth and the path of the weight are clearest there. A diagonal works too; from the front or the back only the count and the lockout can be judged.',
  filmingAdvice: deadlift.filmingAdvice,
  signal: deadlift.signal,
  calibrate: hingeCalibration,
  progress: hingeProgress,
  gate: onFeet,
  gateDescription: deadlift.gateDescription,
  rules: [
    rule({
      id: 'rdl-hinge-depth', category: 'range_of_motion', name: 'Shallow hinge',
      correction: 'Push the hips further back until the torso is at least 45 deg forward and the weight passes the knees.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        // Tilt from this rep's own standing posture, so a camera above or below reads the same.
        const { value, index } = extreme(rep, repTilt(rep), 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(45 - value, 10, 20, { evidence: index, description: `The torso tilted only about ${round(value)} deg forward at the bottom.` });
      },
      strength: { category: 'range_of_motion', name: 'Full hinge', description: 'Hinged deep with the weight past the knees.' },
    }),
    rule({
      id: 'rdl-knee-bend', category: 'technique', name: 'Knees bending into a squat',
      correction: 'Keep a soft, fixed knee bend: the hips move back, the knees do not travel down or forward.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = over(rep, onRepSide(rep, kneeAngle), 0.1);
        if (!Number.isFinite(value)) return undefined;
        // A Romanian deadlift keeps the knees at 140-170 deg; below 130 it is a conventional pull.
        return judge.fault(130 - value, 15, 30, { evidence: index, description: `The knees bent to about ${round(value)} deg at the bottom.` });
      },
      strength: { category: 'technique', name: 'Soft, fixed knees', description: 'The knees stayed softly bent while the hips hinged.' },
    }),
    rule({
      id: 'rdl-weight-drift', category: 'technique', name: 'Weight drifting away from the legs',
      correction: 'Slide the weight down the thighs; keep it touching or close to the legs all the way.',
      views: ['side', 'diagonal'],
      check: handsDrift,
      strength: { category: 'technique', name: 'Weight close', description: 'The weight stayed along the legs.' },
    }),
    rule({
      id: 'rdl-lockout', category: 'range_of_motion', name: 'Incomplete lockout',
      correction: 'Finish every rep standing tall with the hips fully forward.',
      views: ['side', 'diagonal', 'front'],
      readsReturn: true,
      check(rep, judge) {
        const up = upPhase(rep);
        const { value, index } = extreme(up, repTilt(rep), 'min');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 20, 10, 25, { evidence: rep.peak + index, description: `At the top the torso was still tilted about ${round(value)} deg forward.` });
      },
      strength: { category: 'range_of_motion', name: 'Full lockout', description: 'Stood tall at the top of every rep.' },
    }),
  ],
};
