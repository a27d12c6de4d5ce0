// Squat: the hips shifting to one side (a lateral or weight shift), from the front and the back.
// The pelvis moves toward one foot on the way down or up and the weight goes onto that leg: what a
// coach sees from in front of or behind the lifter, and what a side-on camera cannot show at all
// (the shift is across its line of sight).
import type { FrameCtx, RepView } from '../exercise.js';
import { KP } from '../pose.js';
import { quantile, VISIBLE } from '../signals.js';
import { acrossBody, focalOf } from './squat-level.js';
import { repYaw, round, rule, sustained } from './common.js';
import { DIAGONAL_YAW, facing } from '../view.js';

/**
 * The shift, in the person's own hip widths (the distance between the hip keypoints), at which a
 * coach calls it. Between the hip joints' centres an adult measures 16-20 cm. A squat done evenly
 * still sways the pelvis a centimetre or two across the feet (the weight is never split exactly),
 * and the hip keypoints wobble about as much on their own (0.055 hip widths of standard error on
 * the tuning reps): together up to a fifth of a hip width, 3-4 cm, below what an eye picks out. A
 * shift people name is the pelvis visibly off the middle, the weight on one leg: 5-8 cm, a third
 * of a hip width and more. The limit sits between: a quarter of a hip width, about 4-5 cm.
 */
export const HIP_SHIFT_LIMIT = 0.25;
/** Moderate from a further 0.1 hip width (a third of a hip width past the middle: 6-7 cm), major from 0.25 (half a hip width). */
const MODERATE = 0.1, MAJOR = 0.25;

/**
 * A frame stands at the rep's top with its hips this share of the highest the rep held them above
 * the feet: a knee bent 15 deg lowers the hips about 1.5%.
 */
const STANDING_HEIGHT = 0.98;

/** Feet planted for a squat keep their span; a span that changes by this ratio is ankles the model lost (or a step). */
const FEET_SPAN_CHANGE = 1.3;

/**
 * Position along the person's own left-right axis (from the left hip to the right hip) in 3D
 * (squat-level.ts acrossBody: the hips' travel back as they sink, toward or away from the camera,
 * does not cross it); null where a hip is unseen or the model gives no depth. Across the picture
 * instead, that travel crosses it by the sine of the body's turn: a good back squat turned 4 deg
 * read a shift of 0.75 hip widths, good front squats 0.25-0.29, and a synthetic squat filmed from a
 * 45 deg rear diagonal whose yaw the shoulders' span could not read (no depth) 0.3.
 */
function leftRight(f: FrameCtx): ((k: number) => number) | null {
  const lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
  return Math.min(lh.score, rh.score) < VISIBLE ? null : acrossBody(f);
}

/** The feet's pair: the ankles, or the heels where an ankle is unseen. */
function feetPair(f: FrameCtx): [number, number] | null {
  for (const [l, r] of [[KP.leftAnkle, KP.rightAnkle], [KP.leftHeel, KP.rightHeel]] as const) {
    const a = f.p[l], b = f.p[r];
    if (a && b && Math.min(a.score, b.score) >= VISIBLE) return [l, r];
  }
  return null;
}

/**
 * The hips' midpoint's offset from the feet's midpoint along the body's left-right axis, and the
 * hip width along it, the feet's span and the hips' height above the feet, pixels (positive toward
 * the person's right); null where hips or feet are unseen.
 */
function offsetAndWidth(f: FrameCtx): { offset: number; width: number; feet: number; height: number } | null {
  const x = leftRight(f), feet = feetPair(f);
  if (!x || !feet) return null;
  const hips = (x(KP.leftHip) + x(KP.rightHip)) / 2, mid = (x(feet[0]) + x(feet[1])) / 2;
  const width = Math.abs(x(KP.rightHip) - x(KP.leftHip)), span = Math.abs(x(feet[1]) - x(feet[0]));
  // How high the hips stand over the feet, in the picture: only compared within the rep.
  const height = (f.p[feet[0]]!.y + f.p[feet[1]]!.y - f.p[KP.leftHip]!.y - f.p[KP.rightHip]!.y) / 2;
  return [hips, mid, width, span, height].every(Number.isFinite) ? { offset: hips - mid, width, feet: span, height } : null;
}

/**
 * How far the hips moved sideways over a rep against where they stood at its top, in the person's
 * own hip widths (signed: positive toward the person's right), per frame, and the rep's standing
 * offset. Against the standing offset, so a stance a little off centre or a camera not square to the
 * person reads zero. Null where the rep gives no standing frame, no steady feet or no hip width.
 */
export function hipShift(rep: RepView): { at: (i: number) => number } | null {
  const read = rep.frames.map(offsetAndWidth);
  const width = quantile(read.map((r) => r?.width ?? NaN), 0.5);
  const spans = read.map((r) => r?.feet ?? NaN).filter(Number.isFinite);
  if (!(width > 0) || spans.length < 3 || !(quantile(spans, 0.95) <= FEET_SPAN_CHANGE * quantile(spans, 0.05))) return null;
  // Standing at the rep's top: the frames whose hips stand within STANDING_HEIGHT of the highest
  // the rep held them over the feet (its 95th percentile), or else its three highest. The rep's
  // signal cannot pick them: it counts the knee bend from 170 deg, so it reads rest while the
  // knees bend the first 10-15 deg and a shift may have begun.
  const height = read.map((r) => r?.height ?? NaN);
  const tallest = quantile(height, 0.95);
  const order = height.map((_, i) => i).filter((i) => Number.isFinite(height[i])).sort((a, b) => height[b]! - height[a]!);
  const top = order.filter((i, n) => n < 3 || height[i]! >= STANDING_HEIGHT * tallest).map((i) => read[i]);
  const ref = quantile(top.map((r) => (r && r.width > 0 ? r.offset / r.width : NaN)), 0.5);
  if (!Number.isFinite(ref)) return null;
  // Each frame's offset in that frame's own hip width: the hips travel back as they sink, away from
  // a camera in front (toward one behind), and are drawn smaller (larger) by perspective; one width
  // for the whole rep read a third of a hip width as a quarter from 3 m in front.
  return { at: (i) => (read[i] && read[i]!.width > 0 ? read[i]!.offset / read[i]!.width - ref : NaN) };
}

/**
 * How far the picture's perspective can have drawn a shift smaller than it was, in the person's
 * own hip widths, at frame `i` whose shift reads `signed` (issue 16zi). A squat sends the hips back
 * as they sink (behind the ankles by about half a thigh length at parallel: the thigh's length
 * back, less the shin's 30-40 deg forward), away from a phone in front and toward one behind. A
 * picture draws a point that moves away from it nearer its centre, by its distance from the centre
 * times that travel over the focal length (view.ts `unprojected`). With the person off the
 * picture's centre the hips are therefore drawn moving toward it (in front) or away from it
 * (behind), across the hip line: a shift of a third of a hip width away from the centre read 0.22-0.24
 * from phones in front with the person half-way to the picture's edge (0.33 centred), under the
 * 0.25 limit, and was praised. Read from the geometry and the person's own lengths, not the pose
 * model's depth: that depth un-projecting every joint faulted a good clip (16zc), and drawing the
 * hips at their standing depth with it read good tuning squats 0.30-0.67. The lens is the
 * narrowest a phone has (squat-level.ts PHONE_LENS), the least perspective a phone puts in. Zero
 * where the shift reads the other way (perspective then drew it larger), without a picture size or
 * a face read in front or behind.
 */
function hiddenByPerspective(rep: RepView, i: number, signed: number): number {
  const f = rep.frames[i], picture = rep.picture, face = quantile(rep.frames.map(facing), 0.5);
  if (!f || !picture || !(Math.abs(face) > 0) || !(signed !== 0)) return 0;
  const lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
  const line = [rh.x - lh.x, rh.y - lh.y], width = Math.hypot(line[0]!, line[1]!);
  if (!(width > 0) || !(f.thighLen > 0)) return 0;
  // The hips' distance from the picture's centre along the hip line as drawn (toward the person's right: positive).
  const off = (((lh.x + rh.x) / 2 - picture.width / 2) * line[0]! + ((lh.y + rh.y) / 2 - picture.height / 2) * line[1]!) / width;
  // In front the hips are drawn toward the centre: a shift away from it reads smaller. Behind, the other way round.
  const smaller = face > 0 ? Math.sign(signed) === Math.sign(off) : Math.sign(signed) !== Math.sign(off);
  if (!smaller) return 0;
  const focal = focalOf(picture);
  return (Math.abs(off) * HIPS_BACK * f.thighLen) / focal / width;
}

/** How far the hips travel back from over the ankles at the bottom of a squat, in thigh lengths: hiddenByPerspective. */
const HIPS_BACK = 0.5;

export const squatHipShift = rule({
  id: 'squat-hip-shift', category: 'stability', name: 'Hips shifting to one side',
  correction: 'Keep the weight even on both feet: sit straight down between the heels, and push the floor away with both legs equally on the way up.',
  // A sideways shift is across the line of sight of a camera in front or behind (judgedFrom: the
  // back with the front); side-on it is along it, and from a diagonal the hips' travel back as
  // they sink crosses the picture as a shift would.
  views: ['front'],
  check(rep, judge) {
    // A person filmed from behind is named back at any yaw (view.ts): turned past where a front view
    // is named a diagonal, the shift is not checked from behind either.
    if (!(repYaw(rep) < DIAGONAL_YAW)) return undefined;
    const shift = hipShift(rep);
    if (!shift || !rep.progress) return undefined;
    // Through the lower half of the rep (the descent, the bottom and the rise past half the
    // signal's peak), where the legs bear the load and the weight moves; held for two frames, so a
    // keypoint's one-frame jump is not a shift.
    const p = rep.progress;
    const index = new Map(rep.frames.map((f, i) => [f, i]));
    const at = (f: FrameCtx) => shift.at(index.get(f)!);
    const worst = sustained(rep, (f) => Math.abs(at(f)), 'max', (_, i) => (p[i] ?? NaN) >= 0.5 * rep.peakProgress);
    if (!Number.isFinite(worst.value)) return undefined;
    // A pass the picture's perspective may have made: not checked (hiddenByPerspective).
    if (worst.value <= HIP_SHIFT_LIMIT && worst.value + hiddenByPerspective(rep, worst.index, shift.at(worst.index)) > HIP_SHIFT_LIMIT) return undefined;
    const toward = shift.at(worst.index) > 0 ? 'right' : 'left';
    return judge.fault(worst.value - HIP_SHIFT_LIMIT, MODERATE, MAJOR, {
      evidence: worst.index,
      description: `In the lower half of the rep the hips moved ${round(worst.value * 100)}% of a hip width toward the ${toward} foot, the weight going onto that leg.`,
    });
  },
  strength: { category: 'stability', name: 'Weight even on both feet', description: 'The hips stayed centred over the feet.' },
});
