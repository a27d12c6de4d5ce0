// Overhead triceps extension (one dumbbell in both hands, a cable or an EZ bar): the upper arms
// point up beside the head and stay there, the forearms lower the weight behind the head and
// extend back to straight arms. The signal is the hands' height over the elbows in forearm lengths,
// a vertical distance that reads the same from the front, the side or behind.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { joint, VISIBLE, type Side } from '../signals.js';
import { atEnds, atPeak, elbowAngle, onRepSide, round, squareOn, rule } from './common.js';
import { handsInPicture } from './in-picture.js';
import { dropBelowShoulder, meanOf } from './body.js';
import { elbowAngle3d, elbowFlare } from './reach.js';

/** Wrist above its elbow in forearm lengths (0.47 of the arm): 1 straight up, negative behind the head. */
export function handOverElbow(f: FrameCtx, s: Side): number {
  const el = f.p[joint(s, 'elbow')]!, wr = f.p[joint(s, 'wrist')]!;
  if (Math.min(el.score, wr.score) < VISIBLE || !(f.armLen > 0)) return NaN;
  return (el.y - wr.y) / (0.47 * f.armLen);
}

/** 0 arms straight overhead, 1 with the hands about half a forearm below the elbows. */
export const extensionDepth = (f: FrameCtx, s: Side) => (0.95 - handOverElbow(f, s)) / 1.3;

/**
 * The same depth read from the elbow's 3D angle (reach.ts elbowAngle3d, the model's depth at its
 * own scale): 0 at 175 deg, 1 at 70 (the forearm 110 deg from the upright upper arm, where the
 * picture's reading is full too).
 */
export const extensionDepth3d = (f: FrameCtx, s: Side) => (175 - elbowAngle3d(f, s)) / 105;

/**
 * One arm's depth: the deeper of the picture's and the 3D reading. The hands' height over the
 * elbows is a vertical distance only in a level view: with the phone below the raised arms (on the
 * floor, 1.5 m away) or above them, the forearm lowered behind the head swings along the line of
 * sight and the picture draws it rising first (0.71 -> 1.27 -> 0.66 of a forearm from behind on the
 * floor: never past a fifth of a rep, 0 of 5 counted), while its 3D angle bends 176 -> 73 deg
 * from every camera. The 3D reading alone is not trusted to show a bend the picture does not: the
 * model's depth of an elbow and a wrist is the least sure it gives (the rows' elbow, reach.ts
 * elbowAngle3d, reads the same way).
 */
export const armDepth = (f: FrameCtx, s: Side) => {
  const a = extensionDepth(f, s), b = extensionDepth3d(f, s);
  if (!Number.isFinite(a)) return overheadDepth(f, s);
  return Number.isFinite(b) ? Math.max(a, b) : a;
};

/**
 * The depth of an arm whose hand the model only guesses (under VISIBLE) above its seen elbow: the
 * hand gone out of the top of the picture, over a raised upper arm, is the extended half of the rep.
 * A picture cut at the forehead (the sweep's crop 'top', a phone held too low or too close) sees
 * the wrists only through the bottom of each rep, under half the gated frames; without this the
 * count fell back to the whole-body movement (pipeline.ts READABLE), where the upper arms hold still
 * and only noise moves: 0 of 5, 25 of 12. Read where the model places the hand, and only above the
 * elbow: a hand guessed below it may be one hidden behind the head at the bottom (from the front),
 * which says nothing of its height; and never the 3D angle, whose depth is the least sure the model
 * gives even for joints it sees.
 */
export function overheadDepth(f: FrameCtx, s: Side): number {
  const el = f.p[joint(s, 'elbow')]!, wr = f.p[joint(s, 'wrist')]!;
  if (el.score < VISIBLE || wr.score >= VISIBLE || !(f.armLen > 0)) return NaN;
  const over = (el.y - wr.y) / (0.47 * f.armLen);
  return over > 0 ? Math.max(0, (0.95 - over) / 1.3) : NaN;
}

const elbowsUp = (f: FrameCtx) => (['left', 'right'] as const).some((s) => dropBelowShoulder(f, s, 'elbow') < 0);

export const overheadTricepExtension: ExerciseDef = {
  id: 'overhead-tricep-extension',
  name: 'Overhead triceps extension',
  description: 'Seated or standing overhead triceps extension with a dumbbell held in both hands (or a cable or EZ bar): upper arms up beside the head and still, lower the weight behind the head until the elbows are bent past 90 deg, then extend to straight arms. Film from the side at head height, 2-3 m away, with the weight at its highest and the hips in frame.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at head height: the depth behind the head and the lockout are clearest there; from the front or behind the count and the elbow flare read.',
  filmingAdvice: 'Place the camera 2-3 m away at head height with the raised weight, the elbows and the hips in frame.',
  signal: 'hands above the elbows in forearm lengths: 0.95 (straight overhead) down to -0.35 = full range, or the elbow\'s 3D angle 175 down to 70 deg where that reads deeper; a hand gone out of the top of the picture read where the model places it while above its elbow; both arms averaged',
  progress: (f) => meanOf([armDepth(f, 'left'), armDepth(f, 'right')]),
  gate: elbowsUp,
  gateDescription: 'elbows above the shoulders',
  rules: [
    rule({
      id: 'ote-depth', category: 'range_of_motion', name: 'Shallow lowering',
      correction: 'Lower the weight behind the head until the elbows bend past 90 deg.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const v = atPeak(rep, onRepSide(rep, elbowAngle));
        if (!Number.isFinite(v)) return undefined;
        return judge.fault(v - 95, 15, 30, { evidence: rep.peak, description: `The elbows bent only to about ${round(v)} deg behind the head.` });
      },
      strength: { category: 'range_of_motion', name: 'Full stretch', description: 'Lowered the weight deep behind the head.' },
    }),
    rule({
      id: 'ote-lockout', category: 'range_of_motion', name: 'Incomplete extension',
      correction: 'Straighten the arms fully overhead at the top of every rep.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // Hands overhead at the picture's edge are placed by the model's guess.
        if (!handsInPicture(rep)) return undefined;
        const v = atEnds(rep, elbowAngle);
        if (!Number.isFinite(v)) return undefined;
        return judge.fault(150 - v, 15, 30, { evidence: 0, description: `The arms straightened only to about ${round(v)} deg overhead.` });
      },
      strength: { category: 'range_of_motion', name: 'Full lockout', description: 'Straightened the arms overhead.' },
    }),
    rule({
      id: 'ote-elbow-flare', category: 'technique', name: 'Elbows flaring out',
      correction: 'Keep the elbows pointing up and close to the head; let only the forearms move.',
      views: ['front'],
      check(rep, judge) {
        // A width across the picture: true only square-on (a back view is named back at any yaw).
        if (!squareOn(rep)) return undefined;
        const v = atPeak(rep, elbowFlare);
        if (!Number.isFinite(v)) return undefined;
        // Elbows spread wider than 1.4 shoulder widths at the bottom of the rep.
        return judge.fault(v - 1.4, 0.2, 0.4, { evidence: rep.peak, description: `At the bottom the elbows were ${v.toFixed(1)} shoulder widths apart.` });
      },
      strength: { category: 'technique', name: 'Elbows in', description: 'The elbows stayed close to the head.' },
    }),
  ],
};
