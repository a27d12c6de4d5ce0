// Lunge (forward, reverse or split squat): same leg signal as the squat, judged on the front leg,
// the one whose knee bends most at the bottom.
import type { ExerciseDef, FrameCtx, RepView } from '../exercise.js';
import { joint, pairPoint, quantile, VISIBLE, type Side } from '../signals.js';
import { atPeak, clamp, extreme, kneeAngle, repYaw, round, sustained, torsoLean, upright, bounceRule, rule } from './common.js';
import { feetInPicture } from './in-picture.js';
import { bentKneeProgress, legProgress, standingHipHeight, thighProgress } from './squat.js';

/** The leg with the smaller knee angle at this frame (the front leg at the bottom of a lunge). */
export function frontSide(f: FrameCtx): Side | null {
  const l = kneeAngle(f, 'left'), r = kneeAngle(f, 'right');
  if (!Number.isFinite(l) && !Number.isFinite(r)) return null;
  if (!Number.isFinite(r)) return 'left';
  if (!Number.isFinite(l)) return 'right';
  return l <= r ? 'left' : 'right';
}

/**
 * The front (working) leg of a rep, one leg for the whole rep: the one whose knee is bent more at
 * the rep's bottom (its peak and the frames either side). Chosen frame by frame, the choice flips
 * near standing, where both knees read about straight, and side-on between the near leg and the
 * far one, whose knee the model only guesses.
 */
export function repFrontSide(rep: RepView): Side | null {
  // At the bottom the back knee drops toward the floor while the front knee stays about a shin
  // above it: the higher knee is the front one. Both knees bend about 90 deg at the bottom of a
  // split squat, so "bent more" was a coin toss that the facing direction turned (the shared split
  // squat, filmed mirrored, chose the other leg on every rep and lost "Front knee past the toes"
  // on all 11; the rear shin, near level, reads as a knee far past its ankle).
  const kneeY = (s: Side) => atPeak(rep, (f) => {
    const k = f.p[joint(s, 'knee')]!;
    return k.score >= VISIBLE && f.legLen > 0 ? k.y / f.legLen : NaN;
  });
  const [yl, yr] = [kneeY('left'), kneeY('right')];
  // Knees a tenth of a leg apart or more: clearly one above the other (a front view sees them level).
  if (Math.abs(yl - yr) >= 0.1) return yl < yr ? 'left' : 'right';
  const l = atPeak(rep, (f) => kneeAngle(f, 'left')), r = atPeak(rep, (f) => kneeAngle(f, 'right'));
  if (Number.isFinite(l) || Number.isFinite(r)) return !Number.isFinite(r) || l <= r ? 'left' : 'right';
  // The bottom unseen: the leg bent more over the rep.
  const low = (s: Side) => quantile(rep.frames.map((f) => kneeAngle(f, s)), 0.1);
  const [ql, qr] = [low('left'), low('right')];
  if (!Number.isFinite(ql) && !Number.isFinite(qr)) return null;
  return !Number.isFinite(qr) || ql <= qr ? 'left' : 'right';
}

/** Each thigh's level standing (squat.ts thighProgress, the low end of the clip's readings; 0 when unseen). */
export const standingThighs = (frames: FrameCtx[]) => ({
  thighL: quantile(frames.map((f) => thighProgress(f, 'left')), 0.1) || 0,
  thighR: quantile(frames.map((f) => thighProgress(f, 'right')), 0.1) || 0,
});

/** The more risen thigh's rise since its own standing level (`cal` from standingThighs): a lunge's front thigh, a side lunge's working one. */
export function risenThigh(f: FrameCtx, cal: { thighL?: number; thighR?: number }): number {
  const v = [thighProgress(f, 'left') - (cal.thighL ?? 0), thighProgress(f, 'right') - (cal.thighR ?? 0)].filter(Number.isFinite);
  return v.length ? Math.max(...v) : NaN;
}

/**
 * A lunge's knee evidence: the more bent knee in the picture (squat.ts bentKneeProgress), or where
 * no knee angle is read (the ankles out of the picture) the more risen thigh's rise since standing
 * (`riseAtFull` reads 1). squat.ts legProgress falls back on the best-seen thigh instead, and in a
 * lunge or a side lunge that is as often the back or trailing leg's, which barely rises: a side lunge
 * filmed with the shins cut off read 0.27 of full on every rep and counted 0 of 5. The rise since
 * standing, each thigh from its own level: a phone above looking down draws a standing thigh
 * shortened as if risen (0.68 of level standing, 2 m up and 1.5 m away, the other thigh 0.04), so
 * one shared level read a frame at rest with a knee lost as a whole rep.
 *
 * Tried: the thigh wherever it reads more than the knee (as squat.ts kneeOrThighProgress). Square-on
 * it counted the side lunge from behind near the floor (the knee bending away reads 147-161 deg at
 * 87), but the thigh's rise in the picture carries the camera's pitch (a knee going away from a
 * camera above is drawn higher): a side lunge to a third of its depth read 0.61 of full from behind
 * 10 deg above and counted as a full rep, and a shallow lunge 0.48 (first-nine-faults "shallow").
 */
export const kneeElseRisenThigh = (riseAtFull: number) => (f: FrameCtx, cal: { thighL?: number; thighR?: number }): number => {
  const k = bentKneeProgress(f);
  return Number.isFinite(k) ? k : risenThigh(f, cal) / riseAtFull;
};

/** Horizontal distance the front knee is ahead of its ankle, in shin lengths (side view). */
export function kneeTravel(f: FrameCtx, side?: Side | null): number {
  const s = side ?? frontSide(f);
  if (!s) return NaN;
  const hip = f.p[joint(s, 'hip')]!, knee = f.p[joint(s, 'knee')]!, ankle = f.p[joint(s, 'ankle')]!;
  if (Math.min(hip.score, knee.score, ankle.score) < VISIBLE) return NaN;
  const shin = Math.hypot(knee.x - ankle.x, knee.y - ankle.y);
  // "Ahead" is the direction the thigh points from the hip to the knee.
  const forward = Math.sign(knee.x - hip.x) || 1;
  return shin > 0 ? ((knee.x - ankle.x) * forward) / shin : NaN;
}

export const frontKneeAngle = (f: FrameCtx, side?: Side | null) => {
  const s = side ?? frontSide(f);
  return s ? kneeAngle(f, s) : NaN;
};

/**
 * From this yaw (true degrees, common.ts repYaw) on, the front knee's angle is judged: the leg's
 * plane seen within 35 deg of flat (cos 35 = 0.82; push-up.ts HEAD_SIDE_YAW judges the neck from 60).
 */
export const LUNGE_SIDE_YAW = 55;

/** The front thigh rises from about vertical to level at the bottom of a full lunge. */
const lungeKnee = kneeElseRisenThigh(1);

/** The hips' height over one ankle, in leg lengths (common.ts hipHeight reads the ankles' midpoint, or the one seen). */
function hipOver(f: FrameCtx, s: Side): number {
  const hip = pairPoint(f.p, 'hip'), ankle = f.p[joint(s, 'ankle')]!;
  if (!hip || ankle.score < VISIBLE || !(f.legLen > 0)) return NaN;
  return (ankle.y - hip.y) / f.legLen;
}

/** Each ankle's standing level under the hips (the high end of the clip's readings, as squat.ts standingHipHeight). */
export const standingOverAnkles = (frames: FrameCtx[]) => {
  // Under 0.4 of a leg the ankle is not drawn under the hips (looking steeply down, a back foot
  // pointing away is drawn up beside the hips): that ankle's drop goes unread, not clamped.
  const level = (s: Side) => { const q = quantile(frames.map((f) => hipOver(f, s)), 0.9); return q >= 0.4 ? Math.min(q, 1.2) : NaN; };
  return { standL: level('left'), standR: level('right') };
};

/**
 * The hips' drop from standing, 1 at full (`depthAtFull` leg lengths), read over each ankle against
 * that ankle's own standing level and averaged over the ankles seen. In a split stance the back heel
 * is up and, filmed from above, the back foot is drawn well above the front one, so the hips'
 * height over the ankles' midpoint (common.ts hipHeight) jumps 0.25-0.3 of a leg when one ankle is
 * lost for a frame and the other is read alone: standing still, that counted 6-12 reps from a front
 * diagonal 2 m up (issue 20w's still sweep). Each side against its own level, losing one moves the
 * signal only by the difference of the two drops.
 */
export function lungeHipDrop(f: FrameCtx, cal: { standL?: number; standR?: number }, depthAtFull: number): number {
  const v = [1 - hipOver(f, 'left') / (cal.standL ?? NaN), 1 - hipOver(f, 'right') / (cal.standR ?? NaN)].filter(Number.isFinite);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length / depthAtFull : NaN;
}

export const lunge: ExerciseDef = {
  id: 'lunge',
  name: 'Lunge',
  description: 'Forward, reverse or split-stance lunge: the back knee drops toward the floor while the front thigh reaches parallel.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at hip height so both knees, the front shin and the torso are visible.',
  filmingAdvice: 'Place the camera side-on at hip height, 2-4 m away, with the whole body and both feet in frame.',
  signal: 'mean of front-knee flexion and hip drop toward the ankles (relative to the standing height)',
  calibrate: (frames) => ({ standing: standingHipHeight(frames), ...standingThighs(frames), ...standingOverAnkles(frames) }),
  progress: (f, cal) => legProgress(f, cal.standing!, 0.42, (g) => lungeKnee(g, cal), (g) => lungeHipDrop(g, cal, 0.42)),
  gate: (f) => upright(f, 50, true),
  gateDescription: 'torso within 50 deg of vertical',
  rules: [
    rule({
      id: 'lunge-depth', category: 'range_of_motion', name: 'Lunge depth',
      correction: 'Lower until the front thigh is parallel to the floor and the back knee nearly touches it.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // The knee's angle in the picture is its own only with the leg's plane seen near flat: a
        // clean lunge (front knee 90 deg, test/analysis/first-nine-faults.unit) read 111-121 deg
        // from a 30 deg diagonal, 98-109 from 45 and up to 106 from 50 with the camera 10 deg down
        // (foreshortened by the sine of the yaw, the height adding its own), past the 105 limit;
        // 96-103 from 55, 95-101 from 60. Nearer the front the depth goes unjudged ("not
        // checked"): a lunge stopping 35 deg short of parallel is then not even a partial
        // repetition to the counter.
        if (repYaw(rep) < LUNGE_SIDE_YAW) return undefined;
        const front = repFrontSide(rep);
        const { value, index } = extreme(rep, (f) => frontKneeAngle(f, front), 'min');
        if (!Number.isFinite(value)) return undefined;
        const fault = judge.verdict(value - 105, 10, 20);
        return fault && { ...fault, evidence: index, description: `The front knee bent only to about ${round(value)} deg.` };
      },
      strength: { category: 'range_of_motion', name: 'Deep lunge', description: 'Front thigh reached parallel.' },
    }),
    rule({
      id: 'lunge-knee-travel', category: 'alignment', name: 'Front knee past the toes',
      correction: 'Take a longer stance and drop the hips straight down so the front shin stays near vertical.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // The knee's travel is read against the ankle: a framing that cuts the feet off guesses it.
        if (!feetInPicture(rep)) return undefined;
        const front = repFrontSide(rep);
        // As far forward as the knee stayed for more than one frame: one frame's knee keypoint
        // jumping ahead is not the knee travelling (common.ts sustained).
        const { value, index } = sustained(rep, (f) => kneeTravel(f, front), 'max');
        if (!Number.isFinite(value)) return undefined;
        // A foot is about 0.6 shin lengths long: beyond 0.75 the knee is clearly past the toes.
        const limit = 0.75;
        const fault = judge.verdict(value - limit, 0.1, 0.25);
        return fault && { ...fault, evidence: index, description: `The front knee travelled ${round(clamp(value, 0, 2) * 100)}% of a shin length ahead of the ankle.` };
      },
      strength: { category: 'alignment', name: 'Stable front shin', description: 'Front knee stayed over the foot.' },
    }),
    rule({
      id: 'lunge-torso', category: 'posture', name: 'Torso leaning forward',
      correction: 'Keep the chest tall and the shoulders stacked over the hips as you lower.',
      // Not from the front: a torso leaning toward the camera keeps its angle in the picture, so a
      // front view would pass any lean (and report "Tall torso") without seeing it.
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = sustained(rep, torsoLean, 'max');
        if (!Number.isFinite(value)) return undefined;
        // Some forward lean is normal in a lunge; past 30 deg the load shifts off the legs.
        const fault = judge.verdict(value - 30, 8, 15);
        return fault && { ...fault, evidence: index, description: `The torso leaned about ${round(value)} deg from vertical.` };
      },
      strength: { category: 'posture', name: 'Tall torso', description: 'Torso stayed upright.' },
    }),
    bounceRule('lunge'),
  ],
};
