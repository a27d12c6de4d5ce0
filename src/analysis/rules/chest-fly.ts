// Chest fly (cable crossover, pec deck, dumbbell fly): arms slightly bent and fixed, the hands
// sweep from wide open to together in front of the chest and back. The signal is the gap between
// the hands in arm lengths (with depth, so a fly seen from the side still reads) against the open
// position of the surrounding seconds: 0 open, 1 with the gap closed by 70% of that. A set whose
// hands leave the picture (a phone 1.5 m away cuts off the open arms) is read on the elbows.
import type { Calibration, ExerciseDef, FrameCtx } from '../exercise.js';
import { joint, quantile, VISIBLE } from '../signals.js';
import { elbowAngle, extreme, onRepSide, over, round, rule } from './common.js';
import { leanInPicture } from './in-picture.js';
import { perFrame, rollingLevel, storePerFrame } from './body.js';
import { dist3, handGap } from './reach.js';

/** Shoulder to elbow (with depth) on both sides, pixels: the upper arms' mean; NaN unless both shoulders and both elbows are seen. */
function upperArms(f: FrameCtx): number {
  const j = (s: 'left' | 'right', n: 'shoulder' | 'elbow') => f.p[joint(s, n)]!;
  if (Math.min(j('left', 'shoulder').score, j('right', 'shoulder').score, j('left', 'elbow').score, j('right', 'elbow').score) < VISIBLE) return NaN;
  return (dist3(j('left', 'shoulder'), j('left', 'elbow')) + dist3(j('right', 'shoulder'), j('right', 'elbow'))) / 2;
}

/** Elbow to elbow (with depth) in the frame's own upper-arm lengths: about 3 open, under 1 squeezed. */
export function elbowGap(f: FrameCtx): number {
  const u = upperArms(f);
  return u > 0 ? dist3(f.p[joint('left', 'elbow')]!, f.p[joint('right', 'elbow')]!) / u : NaN;
}

/** Shoulder to shoulder (with depth) in the frame's own upper-arm lengths. */
function shoulderSpan(f: FrameCtx): number {
  const u = upperArms(f);
  return u > 0 ? dist3(f.p[joint('left', 'shoulder')]!, f.p[joint('right', 'shoulder')]!) / u : NaN;
}

/**
 * The hand's reach from its shoulder in upper-arm lengths with the fly's soft bend: the forearm and
 * hand about 0.85-0.9 of the upper arm, the elbow bent 15-20 deg.
 */
const REACH = 1.8;

/**
 * Share of the frames with both elbows seen on which the hands must be seen for the fly to be read
 * on them. A phone 1.5 m away (portrait) cuts off the hands of the open arms on most frames; their
 * open gap, the signal's reference, is then never seen, and the set was not counted (0 of 4-12).
 */
const HANDS_SEEN = 0.8;

/**
 * How far the hands have closed (the hand signal's closure, 1 - gap / open), read on the elbows.
 * With the arm's bend fixed, each upper arm at angle a from the shoulder line puts the elbows
 * S + 2 cos(a) and the hands S + 2 R cos(a) apart (S the shoulder span, R the hand's reach, in
 * upper arms; the depth in): the same turn closes the elbows' gap by 2 (1 - cos a) / (S + 2) of its
 * open width, the hands' by 2 R (1 - cos a) / (S + 2 R). So the hands' closure is the elbows' times
 * R (S + 2) / (S + 2 R), with S the person's own span over the set.
 */
export function handClosureFromElbows(f: FrameCtx, open: number, span: number): number {
  return ((1 - elbowGap(f) / open) * REACH * (span + 2)) / (span + 2 * REACH);
}

export const chestFly: ExerciseDef = {
  id: 'chest-fly',
  name: 'Chest fly',
  description: 'Cable crossover, pec-deck or dumbbell fly: elbows softly bent and fixed, sweep the hands from wide open to together in front of the chest, then open under control until the chest stretches. Film from the front at chest height, 2-3 m away, with both hands at their widest in frame.',
  recommendedAngle: 'front',
  angleAdvice: 'Film from the front at chest height: how far the hands open and meet, and the elbow bend, are clearest there; from the side the count still reads.',
  filmingAdvice: 'Place the camera 2-3 m away at chest height, facing the person, with both hands at their widest, the head and the hips in frame.',
  signal: 'hand gap (with depth) against the open gap of the surrounding seconds: 0 open, 1 at 70% closed',
  calibrate(frames) {
    const elbows = frames.filter((f) => Number.isFinite(elbowGap(f)));
    const hands = elbows.filter((f) => Number.isFinite(handGap(f))).length;
    if (elbows.length && hands < HANDS_SEEN * elbows.length) {
      // The person's own span, and the elbows' open gap, measured where the elbows are seen.
      const cal = storePerFrame({ byElbows: 1, span: quantile(elbows.map(shoulderSpan), 0.5) }, 'open', frames, rollingLevel(frames, elbowGap, 0.9, 1, 6, 3));
      return cal;
    }
    return storePerFrame({}, 'open', frames, rollingLevel(frames, handGap, 0.9, 0.8, 3, 1.8));
  },
  progress: (f: FrameCtx, cal: Calibration) => cal.byElbows
    ? handClosureFromElbows(f, perFrame(cal, 'open', f), cal.span!) / 0.7
    : (perFrame(cal, 'open', f) - handGap(f)) / (0.7 * perFrame(cal, 'open', f)),
  // Sitting or standing; the fly itself sets no posture beyond a torso off the floor. The elbows
  // stand in for hands the picture cuts off (see HANDS_SEEN).
  gate: (f) => Number.isFinite(handGap(f)) || Number.isFinite(elbowGap(f)),
  gateDescription: 'both hands seen, or both elbows',
  rules: [
    rule({
      id: 'fly-squeeze', category: 'range_of_motion', name: 'Hands not meeting',
      correction: 'Bring the hands together in front of the chest and squeeze for a moment.',
      views: ['front', 'diagonal'],
      check(rep, judge) {
        return judge.fault(0.9 - rep.peakProgress, 0.15, 0.3, { evidence: rep.peak, description: `The hands closed about ${round(rep.peakProgress * 100)}% of the way together.` });
      },
      strength: { category: 'range_of_motion', name: 'Full squeeze', description: 'Brought the hands together.' },
    }),
    rule({
      id: 'fly-pressing', category: 'technique', name: 'Pressing instead of flying',
      correction: 'Keep the elbow bend fixed and slight; bending and straightening the arms turns the fly into a press.',
      views: ['front', 'diagonal', 'side'],
      check(rep, judge) {
        // The elbow's range over the rep: a fly holds it, a press opens and closes it.
        const elbow = onRepSide(rep, elbowAngle);
        const hi = over(rep, elbow, 0.9), lo = over(rep, elbow, 0.1);
        if (!Number.isFinite(hi.value) || !Number.isFinite(lo.value)) return undefined;
        const range = hi.value - lo.value;
        return judge.fault(range - 45, 15, 30, { evidence: lo.index, description: `The elbows bent and straightened through about ${round(range)} deg during the rep.` });
      },
      strength: { category: 'technique', name: 'Fixed elbows', description: 'Held the elbow bend through the sweep.' },
    }),
    rule({
      id: 'fly-swing', category: 'posture', name: 'Body swinging',
      correction: 'Keep the torso still; the arms alone sweep the handles together.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const lean = leanInPicture(rep), max = extreme(rep, lean, 'max'), min = extreme(rep, lean, 'min');
        if (!Number.isFinite(max.value) || !Number.isFinite(min.value)) return undefined;
        const swing = max.value - min.value;
        return judge.fault(swing - 12, 6, 12, { evidence: max.index, description: `The torso rocked through about ${round(swing)} deg during the rep.` });
      },
      strength: { category: 'posture', name: 'Still torso', description: 'The torso stayed still.' },
    }),
  ],
};
