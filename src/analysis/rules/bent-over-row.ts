// Bent-over row (barbell, or one dumbbell with a hand on a bench): the torso hinged forward and
// still, the hands pull from hanging to the lower ribs. The signal is each hand's distance from its
// shoulder in arm lengths (with the pose model's depth, so a pull toward a camera behind or in
// front still reads), blended with the elbow bend; each arm is also counted alone for one-arm rows.
import type { ExerciseDef, FrameCtx, RepView } from '../exercise.js';
import { joint, VISIBLE, type Side } from '../signals.js';
import { Z_SCALE } from '../pose.js';
import { elbowAngle, extreme, repSide, round, sideOn, rule } from './common.js';
import { maxOf, torsoTilt } from './body.js';
import { elbowAngle3d, handReach, meanFinite } from './reach.js';

/** One arm's pull: 0 hanging straight (hand an arm's length away, elbow open), 1 pulled in; both read in 3D (reach.ts). */
export function pullProgress(f: FrameCtx, s: Side): number {
  const bend = Math.min(elbowAngle(f, s), elbowAngle3d(f, s));
  return meanFinite([(1 - handReach(f, s)) / 0.5, (165 - bend) / 75]);
}

/**
 * The arm that pulled in this rep, one arm for the whole rep: the side facing the camera (repSide),
 * unless the other arm clearly pulled further (a one-arm row done with the far arm, where the near
 * arm hangs still with its elbow open: that is no short pull). Null when neither seen arm made the
 * pull the rep was counted on (the far arm pulled, hidden behind the body): not a guess. Frame by
 * frame the best-seen arm flips between the near one and the far one, whose elbow is guessed.
 */
export function pullingSide(rep: RepView): Side | null {
  const near = repSide(rep);
  if (!near) return null;
  const far: Side = near === 'left' ? 'right' : 'left';
  const peak = (s: Side) => maxOf(rep.frames.map((f) => pullProgress(f, s)));
  if (peak(far) > peak(near) + 0.3) return far;
  return !(peak(near) < rep.peakProgress - 0.3) ? near : null;
}

/** The elbow of the arm that pulled (pullingSide) on every frame of the rep. */
export function pullingElbow(rep: RepView): (f: FrameCtx) => number {
  const s = pullingSide(rep);
  return s ? (f) => elbowAngle(f, s) : () => NaN;
}

/**
 * The torso's hinge from the legs' line in 3D, degrees: the angle between ankles -> hips and hips ->
 * shoulders (midpoints, with the model's depth at its own scale). Both lines turn with the camera's
 * pitch, so a phone above or below reads the same; NaN unless both sides of all three are seen
 * with depth (the knees stand in for unseen ankles: issue 20zh). Square-on, a hinge toward or
 * away from the camera keeps the torso's length in the picture (torsoTilt reads it against the
 * torso's own recent length, which is just as short), and
 * the row filmed from the front or behind was never in its posture (the pinhole sweep,
 * bench/camera-sweep.ts: no attempt found).
 */
export function hingeFromLegs(f: FrameCtx): number {
  const at = (j: 'shoulder' | 'hip' | 'knee' | 'ankle') => {
    const l = f.p[joint('left', j)]!, r = f.p[joint('right', j)]!;
    if (Math.min(l.score, r.score) < VISIBLE || l.z === undefined || r.z === undefined) return null;
    return [(l.x + r.x) / 2, (l.y + r.y) / 2, (l.z + r.z) / 2 / Z_SCALE] as const;
  };
  // With the ankles out of the picture (a phone 1.5 m away cuts the shins off), the thighs' line:
  // a row's soft knees lean the thighs back from the knees, which reads a little more hinge than
  // the legs' line would, and a body standing tall still reads none.
  const sh = at('shoulder'), hip = at('hip'), an = at('ankle') ?? at('knee');
  if (!sh || !hip || !an) return NaN;
  const legs = [hip[0] - an[0], hip[1] - an[1], hip[2] - an[2]], torso = [sh[0] - hip[0], sh[1] - hip[1], sh[2] - hip[2]];
  const n = Math.hypot(...legs) * Math.hypot(...torso);
  if (!(n > 0)) return NaN;
  return (Math.acos(Math.max(-1, Math.min(1, (legs[0]! * torso[0]! + legs[1]! * torso[1]! + legs[2]! * torso[2]!) / n))) * 180) / Math.PI;
}

const bothArms = (f: FrameCtx) => {
  const v = [pullProgress(f, 'left'), pullProgress(f, 'right')].filter(Number.isFinite);
  return v.length ? Math.max(...v) : NaN;
};

/**
 * A wrist seen under this confidence is placed, not seen: at the top of a row filmed from behind or
 * a rear diagonal the model gives the hand hidden by the torso 0.3-0.5 (and at the wrong place) or
 * under 0.3, depending on which way the person faces; a hand in view reads 0.8-1.
 */
const SURE = 0.5;

export const bentOverRow: ExerciseDef = {
  id: 'bent-over-row',
  name: 'Bent-over row',
  description: 'Barbell or dumbbell bent-over row, two arms or one arm with a hand on a bench: hinge the torso forward and keep it still, pull the weight from straight arms to the lower ribs, lower it under control. Film from the side or a diagonal at hip height, 2-3 m away, with the whole body and the weight in frame.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at hip height: the torso angle, the elbow path and how far the weight comes up are clearest there; a diagonal also works, and from the front or back only the count and the torso rise can be judged.',
  filmingAdvice: 'Place the camera 2-3 m away at hip height, side-on, with the head, hands, hips and feet in frame.',
  signal: 'hand distance from the shoulder (1 to 0.5 arm lengths, with depth) blended with the elbow bend (165 to 90 deg), on the arm that pulls higher',
  progress: bothArms,
  progressSides: (f) => [pullProgress(f, 'left'), pullProgress(f, 'right')],
  guessed: (f) => Math.max(f.p[joint('left', 'wrist')]!.score, f.p[joint('right', 'wrist')]!.score) < SURE,
  // Hinged forward. Not "on the feet": a one-arm row kneels on a bench with one leg, and the
  // torso turns with the pull, so a fifteen-degree tilt is all that is asked (standing tall is out).
  // The hinge from the legs' line in 3D lets in a hinge the picture foreshortens (square-on).
  gate: (f) => !(torsoTilt(f) < 15) || hingeFromLegs(f) >= 15,
  gateDescription: 'torso hinged at least 15 deg forward (standing, or with one knee and hand on a bench)',
  rules: [
    rule({
      id: 'row-range', category: 'range_of_motion', name: 'Short pull',
      correction: 'Pull until the elbow passes the torso and the weight touches the lower ribs.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // Off the side the elbow angle foreshortens; the pull's own progress (hand toward the
        // shoulder with depth) judges the range there instead. Side-on is the rep's own yaw too
        // (sideOn), as for the other rules that need the sagittal plane seen flat.
        if (!sideOn(rep)) {
          return judge.fault(0.6 - rep.peakProgress, 0.15, 0.3, { evidence: rep.peak, description: `The weight came up about ${round(rep.peakProgress * 100)}% of a full pull.` });
        }
        const { value, index } = extreme(rep, pullingElbow(rep), 'min');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 100, 15, 30, { evidence: index, description: `The elbow bent only to about ${round(value)} deg at the top of the pull.` });
      },
      strength: { category: 'range_of_motion', name: 'Full pull', description: 'Pulled the weight all the way to the torso.' },
    }),
    rule({
      id: 'row-torso-rise', category: 'posture', name: 'Torso rising to pull',
      correction: 'Keep the torso still at the same angle; lighten the weight rather than standing up into each pull.',
      // Only side-on: from a diagonal or the front, a one-arm row's torso turning with the pull
      // changes the shoulders' height just as a torso rising would.
      views: ['side'],
      check(rep, judge) {
        // Against the rep's own start: the tilt the person set, not a fixed angle.
        const start = torsoTilt(rep.frames[0]!);
        const { value, index } = extreme(rep, torsoTilt, 'min');
        if (!Number.isFinite(start) || !Number.isFinite(value)) return undefined;
        const rise = start - value;
        return judge.fault(rise - 15, 8, 15, { evidence: index, description: `The torso rose about ${round(rise)} deg during the pull.` });
      },
      strength: { category: 'posture', name: 'Still torso', description: 'The torso held its angle through the pull.' },
    }),
    rule({
      id: 'row-hinge', category: 'posture', name: 'Torso too upright',
      correction: 'Hinge further: torso at about 45 deg or lower so the pull works the back, not the shoulders.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const { value, index } = extreme(rep, torsoTilt, 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(35 - value, 5, 10, { evidence: index, description: `The torso was only about ${round(value)} deg forward of vertical.` });
      },
      strength: { category: 'posture', name: 'Hinged position', description: 'Held a hinged torso through the set.' },
    }),
  ],
};
