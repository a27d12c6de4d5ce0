// Shoulder press: the wrists travel from shoulder height to overhead. The signal blends wrist and
// elbow height above the shoulder in arm lengths: hands holding dumbbells end-on are often missed
// by the pose model, while the elbows, which travel from below to above the shoulder, stay seen.
import type { ExerciseDef, FrameCtx, RepView } from '../exercise.js';
import { joint, quantile, VISIBLE, type Side } from '../signals.js';
import { atPeak, extreme, onRepSide, round, sustained, upright, wristDrop, elbowAngle, rule } from './common.js';
import { handsInPicture, leanInPicture } from './in-picture.js';

/** Wrist height above the shoulders in arm lengths (negative below), mean of seen arms. */
export function wristRise(f: FrameCtx): number {
  const v = [-wristDrop(f, 'left'), -wristDrop(f, 'right')].filter(Number.isFinite);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

/** Elbow height above its shoulder in arm lengths: about -0.45 racked, +0.45 locked out. */
export function elbowRise(f: FrameCtx, s: Side): number {
  const sh = f.p[joint(s, 'shoulder')]!, el = f.p[joint(s, 'elbow')]!;
  if (Math.min(sh.score, el.score) < VISIBLE || !(f.armLen > 0)) return NaN;
  return (sh.y - el.y) / f.armLen;
}

/**
 * An unseen joint's least height above its shoulder in arm lengths when the pose model places it
 * above the picture (y < 0): it is at least at the top edge. NaN when it is placed anywhere else.
 */
function riseToEdge(f: FrameCtx, s: Side, j: 'elbow' | 'wrist'): number {
  const sh = f.p[joint(s, 'shoulder')]!, k = f.p[joint(s, j)]!;
  if (sh.score < VISIBLE || !(f.armLen > 0) || k.score >= VISIBLE || !(k.y < 0)) return NaN;
  return sh.y / f.armLen;
}

/**
 * Per arm: mean of wrist progress (0 at shoulder level, 1 at 0.8 above) and elbow progress.
 *
 * With `toEdge`, an arm with neither joint seen, gone over the picture's top, is read with its
 * elbow (else its wrist) at the edge (riseToEdge): a close phone (1.5 m, the shoulders near the top
 * of a landscape picture) loses the elbows and hands over the top of every press, and the rep read
 * NaN there split into a rise and a fall, each counted (the phone sweep, issue 20zh: 6 of 3, 14 of
 * 9, 21 of 12). The edge is the least height the joint can have, so the arm reads no higher than
 * it went; the model's guess of where it went is not read. Only where the arm reads nothing else:
 * a wrist flickering over the edge beside a seen elbow would switch the mean's mix frame to frame
 * (on the default camera a press from the side read 10 of 9).
 */
export function armPressProgress(f: FrameCtx, s: Side, toEdge = false): number {
  const v = [-wristDrop(f, s) / 0.8, (elbowRise(f, s) + 0.45) / 0.85].filter(Number.isFinite);
  if (v.length || !toEdge) return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
  const elbow = riseToEdge(f, s, 'elbow');
  return Number.isFinite(elbow) ? (elbow + 0.45) / 0.85 : riseToEdge(f, s, 'wrist') / 0.8;
}

export function pressProgress(f: FrameCtx, toEdge = false): number {
  const arms = (['left', 'right'] as const).map((s) => armPressProgress(f, s, toEdge)).filter(Number.isFinite);
  return arms.length ? arms.reduce((a, b) => a + b, 0) / arms.length : NaN;
}

export function wristImbalance(f: FrameCtx): number {
  const l = wristDrop(f, 'left'), r = wristDrop(f, 'right');
  return Number.isFinite(l) && Number.isFinite(r) ? Math.abs(l - r) : NaN;
}

/** Knee below the hip in torso lengths, on the better-seen knee: about 0.8 standing, under 0.4 seated. */
export function kneeDrop(f: FrameCtx): number {
  const [s] = (['left', 'right'] as const)
    .filter((side) => Math.min(f.p[joint(side, 'hip')]!.score, f.p[joint(side, 'knee')]!.score) >= VISIBLE)
    .sort((a, b) => f.p[joint(b, 'knee')]!.score - f.p[joint(a, 'knee')]!.score);
  if (!s || !(f.torsoLen > 0)) return NaN;
  return (f.p[joint(s, 'knee')]!.y - f.p[joint(s, 'hip')]!.y) / f.torsoLen;
}

/**
 * Seated through the rep: the thighs level, the knees within 0.4 torso lengths of the hips' height
 * (standing they hang about 0.8 below), on the median of the frames where a knee is seen.
 */
export function seated(rep: RepView): boolean {
  return quantile(rep.frames.map(kneeDrop), 0.5) < 0.4;
}

/**
 * The least rise of a press attempt in its own signal (ExerciseDef.minRise): a fifth of the way
 * from the rack to lock-out. 0.25 took the still sweep's held start from 7 to 4 of 63 but presses
 * done to 20% of the movement from 20 to 8 of 35 attempts found (issue 20zc).
 */
export const PRESS_MIN_RISE = 0.2;

/** Elbow angle at the top people call locked out, degrees. */
const LOCKOUT = 155;

/**
 * The reading's extreme (at `index`) is on the first or last of `values` and the reading was still
 * moving toward it there: the rep's frames end before the movement did, so the extreme seen is not
 * the one reached. A reading that held level into the edge is not cut off.
 */
export function cutOffStraightening(values: readonly number[], index: number): boolean {
  const last = values.length - 1;
  if (last < 1) return false;
  const v = values[index]!;
  return (index === last && values[last - 1]! < v) || (index === 0 && values[1]! < v);
}

export const shoulderPress: ExerciseDef = {
  id: 'shoulder-press',
  name: 'Shoulder press',
  description: 'Overhead press with dumbbells or a bar: from the shoulders to straight arms overhead and back, standing or seated.',
  recommendedAngle: 'front',
  angleAdvice: 'Film from the front at chest height to see both arms lock out evenly; a side view shows back arch and bar path.',
  filmingAdvice: 'Place the camera 2-3 m away at chest height with the hands overhead and the hips in frame.',
  signal: 'wrist and elbow height above the shoulders, in arm lengths, from the rack (0) to lock-out (1); an arm gone over the top of the picture, neither joint seen, read with its elbow at the edge (20zh)',
  // The thruster (thruster.ts) reads the press without the edge: its close takes were not looked at.
  progress: (f) => pressProgress(f, true),
  // A press lifts the hands at least a fifth of the way from the rack to lock-out (0.16 arm lengths,
  // about 10 cm) or it is a grip or rack being settled, not an attempt. Filmed from the side the
  // rack itself reads 0.5-0.7 (the elbows forward of the shoulders), and sway, breathing and
  // keypoint noise rise 0.1-0.3 over it where real reps rise 0.30 or more (issue 20zc,
  // bench/still-sweep.ts: the start held counted on 17 of 63 cameras, 7 with this floor).
  minRise: PRESS_MIN_RISE,
  progressSides: (f) => [armPressProgress(f, 'left', true), armPressProgress(f, 'right', true)],
  gate: (f) => upright(f, 35),
  gateDescription: 'standing or seated upright, torso within 35 deg of vertical',
  rules: [
    rule({
      id: 'press-lockout', category: 'range_of_motion', name: 'Incomplete lockout',
      correction: 'Press until the arms are fully straight with the weight over the middle of the head.',
      views: ['front', 'side', 'diagonal'],
      check(rep, judge) {
        // Hands that leave the picture at the top (close framing) are placed by the model's guess.
        if (!handsInPicture(rep)) return undefined;
        const elbow = onRepSide(rep, elbowAngle);
        const { value, index } = extreme(rep, elbow, 'max');
        if (!Number.isFinite(value)) return undefined;
        // A rep the clip ends on the way up (a set that starts and ends at the top, counted when
        // back there) reads its straightest on its last frame, still straightening: the arms may
        // have locked out a moment later. Bent there is no verdict; straight there is a lock-out.
        if (value < LOCKOUT && cutOffStraightening(rep.frames.map(elbow), index)) return undefined;
        const fault = judge.verdict(LOCKOUT - value, 10, 25);
        return fault && { ...fault, evidence: index, description: `The elbows straightened only to about ${round(value)} deg at the top.` };
      },
      strength: { category: 'range_of_motion', name: 'Full lockout', description: 'Arms straight overhead.' },
    }),
    rule({
      id: 'press-depth', category: 'range_of_motion', name: 'Short bottom position',
      correction: 'Lower the weight to shoulder height, about chin level, before pressing again.',
      views: ['front', 'side', 'diagonal'],
      check(rep, judge) {
        const ends = [rep.frames[0]!, rep.frames[rep.frames.length - 1]!].map(wristRise).filter(Number.isFinite);
        if (!ends.length) return undefined;
        const low = Math.min(...ends);
        const fault = judge.verdict(low - 0.35, 0.1, 0.2);
        return fault && { ...fault, evidence: 0, description: `The weight only came down to ${round(low * 100)}% of an arm length above the shoulders.` };
      },
      strength: { category: 'range_of_motion', name: 'Full descent', description: 'Weight lowered to the shoulders.' },
    }),
    rule({
      id: 'press-back-arch', category: 'posture', name: 'Leaning back',
      correction: 'Squeeze the glutes and brace the abs so the ribs stay down and the torso vertical.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // The lean held for more than one frame, not one frame's shoulder or hip keypoint slipping,
        // on frames whose shoulders and hips are inside the picture (a chest-up framing guesses the hips).
        // Seated against a backrest, the bench sets the torso's lean (a press bench's back is
        // inclined 10-20 deg): the fault is the lean the press adds to the rack position.
        const lean = leanInPicture(rep), onBench = seated(rep);
        const rack = onBench ? Math.min(...[rep.frames[0]!, rep.frames[rep.frames.length - 1]!].map(lean).filter(Number.isFinite)) : 0;
        if (!Number.isFinite(rack)) return undefined;
        const { value, index } = sustained(rep, (f) => lean(f) - rack, 'max');
        if (!Number.isFinite(value)) return undefined;
        const fault = judge.verdict(value - 15, 5, 12);
        return fault && { ...fault, evidence: index, description: onBench
          ? `The torso leaned about ${round(value)} deg further back than at the start of the press.`
          : `The torso leaned about ${round(value)} deg off vertical while pressing.` };
      },
      strength: { category: 'posture', name: 'Stacked torso', description: 'Ribs down, torso vertical.' },
    }),
    rule({
      id: 'press-uneven', category: 'symmetry', name: 'Uneven arms',
      correction: 'Press both arms at the same speed and finish them together.',
      views: ['front'],
      check(rep, judge) {
        if (!handsInPicture(rep)) return undefined;
        // At the top, the median of the peak frame and its neighbours: one frame's wrist is not the press.
        const v = atPeak(rep, wristImbalance);
        if (!Number.isFinite(v)) return undefined;
        const fault = judge.verdict(v - 0.15, 0.1, 0.2);
        return fault && { ...fault, evidence: rep.peak, description: `One hand finished ${round(v * 100)}% of an arm length lower than the other.` };
      },
      strength: { category: 'symmetry', name: 'Even press', description: 'Both arms moved together.' },
    }),
  ],
};
