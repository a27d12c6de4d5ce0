// Squat: the rep signal blends knee bend and hip drop, because knee angle is exact from the side
// but foreshortened from the front, while the hip's drop toward the ankles reads from any angle.
import type { ExerciseDef, Finding, FrameCtx, RepView } from '../exercise.js';
import { KP } from '../pose.js';
import { facing } from '../view.js';
import { bestSide, dist, joint, onBestSide, quantile, VISIBLE, type Side } from '../signals.js';
import { headTurn } from './squat-head.js';
import { acrossBody, dist3d, floorAngle, hipYaw, kneesAtAnkleDepth, repPitch, thighDrop, thighLength3d, unprojectedAboutHips } from './squat-level.js';
import { squatHipShift } from './squat-shift.js';
import { inPicture, jointsInPicture, repInPicture } from './in-picture.js';
import { atPeak, clamp, DEPTH_HELD_S, heldFor, hipHeight, kneeAngle, repSide, repYaw, round, seenOn, squareOn, sustained, torsoLean, upright, bounceRule, graded, rule } from './common.js';

/** Knee bend progress: 170 deg standing -> 0, 90 deg (about parallel from the side) -> 1. */
export const kneeProgress = (f: FrameCtx) => (170 - kneeAngle(f)) / 80;

/** The same on the more bent knee: lunges bend one leg more than the other, and the best-seen side may be the straight one. */
export function bentKneeProgress(f: FrameCtx): number {
  const v = [kneeAngle(f, 'left'), kneeAngle(f, 'right')].filter(Number.isFinite);
  return v.length ? (170 - Math.min(...v)) / 80 : NaN;
}

/** Standing hip height of this clip: the high end of the observed hip heights. */
export function standingHipHeight(frames: FrameCtx[]): number {
  return clamp(quantile(frames.map(hipHeight), 0.9), 0.6, 1.1) || 0.9;
}

/**
 * How far the knee has come up toward the hip's height, in thigh lengths: 0 standing (knee a
 * thigh below the hip), 1 with the thigh level. It reads from any side, because a thigh pointing
 * at the camera shortens vertically just as a level one does, and it needs only hips and knees:
 * the signal of a squat filmed close up with the feet out of frame.
 */
export function thighProgress(f: FrameCtx, side?: Side | null): number {
  // The rules pass the rep's side (repSide); the counter reads the best-seen side of each frame.
  if (!side) return onBestSide(f.p, ['hip', 'knee'], (s) => thighProgress(f, s));
  if (!(f.thighLen > 0) || !seenOn(f, side, ['hip', 'knee'])) return NaN;
  const hip = f.p[joint(side, 'hip')]!, knee = f.p[joint(side, 'knee')]!;
  return (1 - (knee.y - hip.y) / f.thighLen) / 0.9;
}

/**
 * The knee's evidence of a squat from any side: the knee angle, or the thigh's rise toward level
 * where that reads more. Filmed from the front or a diagonal, knees travelling toward the camera
 * leave hip, knee and ankle nearly in line in the picture (a good squat to 77% of parallel read a
 * knee of 173 deg at a diagonal), so the angle alone halved the rep's depth and a full squat
 * counted as partial; the thigh's rise does not foreshorten that way.
 */
export function kneeOrThighProgress(f: FrameCtx): number {
  const k = kneeProgress(f), t = thighProgress(f);
  if (!Number.isFinite(k)) return t;
  if (!Number.isFinite(t)) return k;
  // Standing and in the first part of the descent the knee angle alone, as before (the rest level
  // the counter measures from does not move); the thigh takes over as it nears level, smoothly.
  const w = clamp((t - 0.3) / 0.4, 0, 1);
  return k + w * Math.max(0, t - k);
}

/** Mean of the knee and hip-drop progress, each where seen. `depthAtFull` is hip drop at 1. */
export function legProgress(
  f: FrameCtx, standing: number, depthAtFull: number, knee = kneeProgress,
  // The hips' drop from standing, 1 at full: over the ankles' midpoint here; the lunge reads it over each ankle (lunge.ts lungeHipDrop).
  hipDrop = (g: FrameCtx) => (1 - hipHeight(g) / standing) / depthAtFull,
): number {
  const hipP = hipDrop(f);
  const kneeP = knee(f);
  // The knee bend is the primary evidence: a hip that seems to drop while no knee is seen bending
  // is a keypoint slip (a bar or plate hiding the legs), not a squat. With the ankles out of frame
  // the thigh's rise toward level is that evidence.
  if (!Number.isFinite(kneeP)) return thighProgress(f);
  return Number.isFinite(hipP) ? (hipP + kneeP) / 2 : kneeP;
}

/** Knee spread over ankle spread (front view); below 1 the knees sit inside the feet. */
export function kneeToAnkleWidth(f: FrameCtx): number {
  const lk = f.p[KP.leftKnee]!, rk = f.p[KP.rightKnee]!, la = f.p[KP.leftAnkle]!, ra = f.p[KP.rightAnkle]!;
  if (Math.min(lk.score, rk.score, la.score, ra.score) < VISIBLE) return NaN;
  // Along the body's left-right axis where the model gives depth (squat-level.ts acrossBody), else across the picture.
  const x = acrossBody(f) ?? ((k: number) => f.p[k]!.x);
  const ankles = Math.abs(x(KP.leftAnkle) - x(KP.rightAnkle));
  return ankles > 0 ? Math.abs(x(KP.leftKnee) - x(KP.rightKnee)) / ankles : NaN;
}

/**
 * How far the more collapsed knee sits inside its own ankle, toward the midline, in shin lengths
 * (front view). Per leg, so a single knee caving in is caught even when the other tracks well.
 */
export function kneeCollapse(f: FrameCtx): number {
  const legs = [[KP.leftKnee, KP.leftAnkle], [KP.rightKnee, KP.rightAnkle]] as const;
  if (legs.some(([, a]) => f.p[a]!.score < VISIBLE)) return NaN;
  // Along the body's left-right axis and against the shin's 3D length where the model gives depth
  // (squat-level.ts): the knees' forward travel then moves neither, whatever the camera's yaw and pitch.
  const across = acrossBody(f);
  const x = across ?? ((k: number) => f.p[k]!.x);
  const shinOf = (k: number, a: number) => (across ? dist3d(f, k, a) : dist(f.p[k]!, f.p[a]!));
  const midX = (x(KP.leftAnkle) + x(KP.rightAnkle)) / 2;
  const v = legs.map(([k, a]) => {
    if (f.p[k]!.score < VISIBLE) return NaN;
    const shin = shinOf(k, a);
    const inward = Math.sign(midX - x(a)) || 1;
    return shin > 0 ? ((x(k) - x(a)) * inward) / shin : NaN;
  }).filter(Number.isFinite);
  return v.length ? Math.max(...v) : NaN;
}

/**
 * Dynamic valgus (front view): how far the knees narrow while driving up out of the bottom. The
 * knee spread (over the ankle spread) through the middle of the ascent, against its value at the
 * bottom; knees that track the toes keep about 90% of it, knees that cave in drop toward 75%.
 * Relative to the rep's own bottom, so stance width and distance to the camera do not matter.
 */
export function kneesNarrowOnTheWayUp(rep: RepView): { ratio: number; index: number } | null {
  const p = rep.progress;
  if (!p || !rep.valid) return null;
  const pk = rep.peak, top = rep.peakProgress;
  const bottom = quantile([pk - 1, pk, pk + 1].map((i) => (rep.frames[i] ? kneeToAnkleWidth(rep.frames[i]!) : NaN)), 0.5);
  if (!(bottom > 0)) return null;
  const mid: { v: number; i: number }[] = [];
  rep.frames.forEach((f, i) => {
    if (i > pk && p[i]! >= 0.4 * top && p[i]! <= 0.75 * top) {
      const v = kneeToAnkleWidth(f);
      if (Number.isFinite(v)) mid.push({ v, i });
    }
  });
  if (mid.length < 2) return null;
  const ratio = quantile(mid.map((m) => m.v), 0.5) / bottom;
  const worst = mid.reduce((a, b) => (b.v < a.v ? b : a));
  return { ratio, index: worst.i };
}

/** How far the ankles rose above their height at the start of the rep, in leg lengths. */
export function heelRise(f: FrameCtx, startAnkleY: number): number {
  const la = f.p[KP.leftAnkle]!, ra = f.p[KP.rightAnkle]!;
  const ys = [la, ra].filter((k) => k.score >= VISIBLE).map((k) => k.y);
  if (!ys.length || !(f.legLen > 0)) return NaN;
  return (startAnkleY - Math.max(...ys)) / f.legLen;
}

/** Height in the picture of the lower of two seen keypoints (y grows downward); NaN if neither is seen. */
function lowerOf(f: FrameCtx, a: number, b: number): number {
  const ys = [f.p[a], f.p[b]].filter((k) => k && k.score >= VISIBLE).map((k) => k!.y);
  return ys.length ? Math.max(...ys) : NaN;
}

export const ankleY = (f: FrameCtx) => lowerOf(f, KP.leftAnkle, KP.rightAnkle);
export const toeY = (f: FrameCtx) => lowerOf(f, KP.leftToe, KP.rightToe);

/**
 * How far the toe tips moved up or down in the picture from the rep's start (median of its first
 * three frames) to its bottom, in leg lengths. The toes stay on the floor whether or not the heels
 * lift, so this is what moved besides the heels: a hand-held camera tilting, or foot keypoints the
 * model is not tracking. NaN when the toes are not seen.
 */
export function toeTravel(rep: RepView): number {
  const start = quantile(rep.frames.slice(0, 3).map(toeY), 0.5);
  return Math.abs(atPeak(rep, (f) => (f.legLen > 0 ? (start - toeY(f)) / f.legLen : NaN)));
}

/**
 * How much the ankles' span changed over the rep, as the ratio of its widest to its narrowest
 * (5th to 95th percentile) reading: feet planted for a squat keep their span, so a span that
 * changes says the ankle keypoints are not tracked (or the person stepped) and widths read
 * against it mean nothing. NaN with fewer than three frames where both ankles are seen.
 */
export function ankleSpanChange(rep: RepView): number {
  const spans = rep.frames.map((f) => {
    const la = f.p[KP.leftAnkle]!, ra = f.p[KP.rightAnkle]!;
    return Math.min(la.score, ra.score) >= VISIBLE ? Math.abs(la.x - ra.x) : NaN;
  }).filter(Number.isFinite);
  const lo = quantile(spans, 0.05);
  return spans.length >= 3 && lo > 0 ? quantile(spans, 0.95) / lo : NaN;
}

/** How far the hip sits below the knee, in thigh lengths (0 = thigh level, negative above). */
export function hipBelowKnee(f: FrameCtx, side?: Side | null): number {
  const s = side ?? bestSide(f.p, ['hip', 'knee']);
  if (!s || !(f.thighLen > 0) || !seenOn(f, s, ['hip', 'knee'])) return NaN;
  return (f.p[joint(s, 'hip')]!.y - f.p[joint(s, 'knee')]!.y) / f.thighLen;
}

/** Shin tilt forward from vertical, degrees, on `side` or else the best-seen leg. */
export function shinTilt(f: FrameCtx, side?: Side | null): number {
  const s = side ?? bestSide(f.p, ['knee', 'ankle']);
  if (!s || !seenOn(f, s, ['knee', 'ankle'])) return NaN;
  const k = f.p[joint(s, 'knee')]!, a = f.p[joint(s, 'ankle')]!;
  return (Math.atan2(Math.abs(k.x - a.x), a.y - k.y) * 180) / Math.PI;
}

/** How far the knee is ahead of the toe tip (heel-to-toe direction), in shin lengths. */
export function kneePastToes(f: FrameCtx, side?: Side | null): number {
  const s = side ?? bestSide(f.p, ['knee', 'ankle']);
  if (!s || !seenOn(f, s, ['knee', 'ankle'])) return NaN;
  const knee = f.p[joint(s, 'knee')]!, ankle = f.p[joint(s, 'ankle')]!;
  const toe = f.p[s === 'left' ? KP.leftToe : KP.rightToe]!, heel = f.p[s === 'left' ? KP.leftHeel : KP.rightHeel]!;
  if (Math.min(toe.score, heel.score) < VISIBLE) return NaN;
  const shin = Math.hypot(knee.x - ankle.x, knee.y - ankle.y);
  const forward = Math.sign(toe.x - heel.x) || 1;
  return shin > 0 ? ((knee.x - toe.x) * forward) / shin : NaN;
}

/**
 * Heels lifting: the ankles' rise, in leg lengths. The ankle keypoint wanders a few hundredths of a
 * leg length at the bottom of a squat with flat feet; a tenth (about 9 cm) is a heel clearly off the floor.
 */
const HEEL_RISE_LIMIT = 0.1;

/**
 * How much of a squatting thigh's length points toward the camera over a rep: none on a rep whose
 * face is not turned to the camera (filmed from behind the thigh points away, and a camera above
 * then reads it deeper, not shallower; unsure, nothing is allowed), else the cosine of the
 * camera's yaw to the hips read in 3D (`hipYaw`: a rep named side 50-65 deg from square-on still
 * points its thighs at the camera by 0.4-0.6). Without depth, the cosine of the view's yaw
 * (`repYaw`) and none on a rep named side, or from the rep's view name where no yaw is read.
 * `facingCamera`: as if the face were turned to the camera, whatever it reads.
 */
export function thighTowardCamera(rep: RepView, facingCamera = false): number {
  if (!facingCamera && !(quantile(rep.frames.map(facing), 0.5) > 0)) return 0;
  const hips = hipYaw(rep);
  if (Number.isFinite(hips)) return Math.max(0, Math.cos((hips * Math.PI) / 180));
  if (rep.view === 'side') return 0;
  const yaw = repYaw(rep);
  if (Number.isFinite(yaw)) return Math.max(0, Math.cos((yaw * Math.PI) / 180));
  return rep.view === 'front' ? 1 : rep.view === 'diagonal' ? Math.SQRT1_2 : 0;
}

/**
 * The thigh's rise read from the front is shallower than from the side. Side-on a thigh lies
 * across the line of sight and its level is read as it is. From the front it points at the camera,
 * and two things put the knee, nearer to it, lower in the picture than the hip: a camera above the
 * hips (a level thigh reads sin(pitch) of its length below level), and perspective (the squatting
 * hips sit below the picture's centre, and a nearer point there is drawn further from it: a
 * parallel squat filmed from the hips' height 4 m away reads 0.96 of parallel, 2 m away 0.80,
 * where side-on it reads 1.10). The pitch is taken out where the model gives depth (thighLevel,
 * squat-level.ts); perspective is not (it needs the lens's focal length). The one clip that films
 * the same person's squats from both sides reads them 0.15 shallower facing the camera before the
 * pitch is taken out (mrpose_airsquat_front_side: 1.03-1.12 of parallel against 1.20-1.29
 * side-on) and 0.13 after (1.15-1.26 against 1.29-1.37; its camera looks 10-16 deg down). So a
 * shallow verdict from the front allows for that much, in proportion to how far the thigh points
 * at the camera; from behind perspective reads the thigh deeper and nothing is allowed.
 */
export const FRONT_DEPTH_ALLOWANCE = 0.15;

/**
 * The thigh's rise toward level over a rep, as thighProgress reads it (0 standing, 1 level), but
 * against the floor's vertical in 3D with the camera's pitch taken out (squat-level.ts), on the
 * rep's side; null where the model gives no depth or the rep no standing frames to read the pitch on.
 */
export function thighLevel(rep: RepView): ((f: FrameCtx) => number) | null {
  const side = repSide(rep);
  // The whole leg's standing line where the ankles are seen, else the thigh's (squat-level.ts thighPitch).
  const pitch = side ? repPitch(rep, side) : NaN;
  if (!side || !Number.isFinite(pitch)) return null;
  const len = thighLength3d(rep, side);
  return (f) => (1 - thighDrop(f, side, pitch, len)) / 0.9;
}

/**
 * How much further the torso leaned in the first half of the rise than it did at the bottom,
 * degrees: what the hips rising before the chest ("good-morning squat") does, the knees
 * straightening and the hips going up and back while the shoulders stay down, so the back tips
 * toward level. Read on what the lean held for two frames between the bottom and the moment the
 * rep's signal is back to half its peak, against the lean at the bottom (atPeak); NaN without the
 * rep's signal or a seen torso there.
 */
export function leanOutOfTheBottom(rep: RepView): { value: number; index: number; end: number } {
  const p = rep.progress, bottom = atPeak(rep, torsoLean);
  if (!p || !Number.isFinite(bottom)) return { value: NaN, index: rep.peak, end: rep.peak };
  let end = rep.peak + 1;
  while (end < p.length && (p[end] ?? NaN) >= 0.5 * rep.peakProgress) end++;
  const rise = sustained(rep, torsoLean, 'max', (_, i) => i > rep.peak && i < end);
  return { value: rise.value - bottom, index: rise.index, end };
}

/**
 * The lean gained out of the bottom at which the hips have risen first: a fifth of a torso length
 * more than the shoulders from a 40 deg lean tips the back about 15 deg further. Clean squats of
 * every tuning source, side-on and diagonal, from bodyweight to barbell, gain 0-5 deg (the back
 * keeps its angle or rises with the hips): the limit is three times that, not a fitted value; no
 * tuning clip is labelled with this fault, so how many it catches is not shown.
 */
const LEAN_GAINED_LIMIT = 15;

/**
 * Knees caving in reads widths against the ankles' span, and faults the knees at 15% inside it: a
 * span that itself changes by twice that over the rep (0.06-0.18 on square-on reps of steady feet)
 * can make or hide the fault, so the rule does not judge it.
 */
const ANKLE_SPAN_CHANGE_LIMIT = 1.3;

/**
 * The head dropped toward the chest, deg of flexion on the torso beyond the angle it held standing
 * (squat-head.ts). Coaches ask for the neck in line with the back, the gaze following the torso
 * down to the floor a few metres ahead (0 here), or a slight chin tuck ("packed neck", about 10
 * deg); the neck's whole flexion range is about 45-50 deg, the chin on the chest. Past 20, twice the
 * tuck and under half the range, the head hangs; 40, in the major band, is the chin on the chest.
 * Good squats of every tuning source, side-on and diagonal, read -41 to +5 (a level gaze reads
 * minus the torso's lean).
 */
const HEAD_DROP_LIMIT = 20;

/**
 * The head tipped back to look up, deg its line rose beyond where it stood. Keeping the eyes on a
 * point at standing eye height (a mirror, a mark on the wall 1.5-2 m ahead) while the hips drop
 * about half a metre raises the gaze 14-18 deg, and "eyes forward" is a cue many coaches give; at a
 * squat's 40-50 deg of lean, 30 deg more is 70-80 deg of neck extension against the torso, the end
 * of its range: the head cranked back toward the ceiling. Good squats of every tuning source,
 * side-on and diagonal, read -19 to +17.
 */
const HEAD_UP_LIMIT = 30;

/**
 * The head tipped back read against the back as well (issue 16zc): a body that leans further
 * (long femurs lean 52 deg where the figure leans 40) carries the same neck extension with a lower
 * gaze, so the gaze alone read a long-femur squat looking up with the figure's 85 deg of extension
 * as 28-33 deg raised, either side of HEAD_UP_LIMIT. The head is tipped back too where the gaze
 * rose past HEAD_UP_GAZE (beyond the 14-18 deg a gaze held on a mirror rises, and past every good
 * tuning squat's +17) with the head's line 70 deg or more back against the torso (read: standing
 * gaze minus the gaze plus the lean gained since standing), the low end of the 70-80 deg of neck
 * extension HEAD_UP_LIMIT's reasoning puts at the end of its range. The stick figure reads 36-39
 * for a level gaze at 40 deg of lean, 63-65 for a level gaze at 70 deg (the forward-lean demo),
 * 76-80 looking up 45 deg on every body (test/analysis/squat-head.unit).
 */
const HEAD_UP_GAZE = 20, NECK_EXTENSION_LIMIT = 70;

export const squat: ExerciseDef = {
  id: 'squat',
  name: 'Squat',
  description: 'Bodyweight or loaded squat: hips sit back and down until the thighs are about parallel, then stand tall.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at hip height with the whole body in frame: depth, torso lean and heels are clearest there. Add a front view to check the knees.',
  filmingAdvice: 'Place the camera 2-4 m away at hip height, side-on, with head and feet in frame for the whole set.',
  signal: 'mean of knee flexion (170 to 90 deg, or the thigh\'s rise toward level where that reads more) and hip drop toward the ankles (relative to standing height)',
  calibrate: (frames) => ({ standing: standingHipHeight(frames) }),
  progress: (f, cal) => legProgress(f, cal.standing!, 0.45, kneeOrThighProgress),
  // Bending over to pick up a weight drops the hips too, with the torso near horizontal. At the
  // bottom of a deep squat the torso leans further (55-70 deg with the knees folded past 90, hips
  // near the heels), and that is still the squat: a bend with the knees that bent is one.
  gate: (f) => upright(f, 55, true) || (upright(f, 75) && kneeAngle(f) < 90),
  gateDescription: 'torso within 55 deg of vertical, or within 75 deg with the knees bent past 90 deg',
  rules: [
    rule({
      id: 'squat-depth', category: 'range_of_motion', name: 'Squat depth',
      correction: 'Sit the hips down until the thighs are parallel to the floor, keeping the chest up.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        // Depth as people judge it is the thigh against the floor (the hip crease level with the
        // knee), not the knee angle: knees that shoot forward close the knee to 80 deg while the
        // thighs are still well above parallel. The thigh's rise toward level, in this person's
        // own thigh lengths, reads from every side (a thigh pointing at the camera shortens
        // vertically just as a level one does); the knee angle is the fallback side-on.
        //
        // The limit is the thigh within about 16 deg of level (0.8 here: the knee 0.28 thigh
        // lengths below the hip). The shallowest squats people called good read 0.82-0.88; a
        // looser 0.75 was tried and lost a never-tuned squat people called bad, so squats that
        // stop short of that stay faulted: demonstrations of good form go to parallel.
        const limit = 0.8;
        // Every frame on the rep's one side (repSide), not whichever side won each frame.
        const side = repSide(rep);
        // Read against the floor's vertical in 3D where the model gives depth (squat-level.ts), the
        // same from any camera height; without depth, the picture's vertical. Either way a thigh
        // pointing at the camera reads shallower by FRONT_DEPTH_ALLOWANCE.
        const level = thighLevel(rep);
        // The deepest level held for 0.1 s (more than one frame at 12 fps, so a keypoint's one-frame
        // jump is not depth), whatever the rep's tempo.
        const { value: thigh, index: at, open } = heldFor(rep, level ?? ((f) => thighProgress(f, side)), DEPTH_HELD_S);
        if (Number.isFinite(thigh)) {
          const fault = judge.verdict(limit - FRONT_DEPTH_ALLOWANCE * thighTowardCamera(rep) - thigh, 0.15, 0.3);
          // Hips or knees unseen beside the bottom (out of the picture, a frame lost): the thighs
          // may have gone lower there, so a shallow reading is no verdict.
          if (fault && open) return undefined;
          // Which way the person faces unread because the picture cut the head or the shoulders
          // off (16zf: a close phone; a clean squat 1.5 m from a phone 0.3 m up read 0.79 of
          // parallel facing it, the allowance not given), the thigh may point at the camera: a
          // shallow reading that the allowance for a face turned to the camera clears is no verdict.
          // (Unread with the head in the picture, as before: a face the model scores low from behind.)
          const headCut = !repInPicture(rep, ['shoulder']) || rep.frames.some((f) => !inPicture(rep, f.p[KP.nose]!));
          if (fault && headCut && !(Math.abs(quantile(rep.frames.map(facing), 0.5)) > 0) && !(limit - FRONT_DEPTH_ALLOWANCE * thighTowardCamera(rep, true) - thigh > 0)) return undefined;
          return fault && { ...fault, evidence: at, description: `The thighs came down to about ${round(thigh * 100)}% of parallel.` };
        }
        // The knee's bend held as long, read the same way (the most bent knee held is the highest bend).
        const { value: bend, index, open: kneeOpen } = heldFor(rep, (f) => -kneeAngle(f, side ?? undefined), DEPTH_HELD_S);
        const knee = -bend;
        if (rep.view !== 'side' || !Number.isFinite(knee)) return undefined;
        const fault = judge.verdict(knee - 105, 10, 25);
        if (fault && kneeOpen) return undefined;
        return fault && { ...fault, evidence: index, description: `The knees bent only to about ${round(knee)} deg at the bottom; the thighs stayed above parallel.` };
      },
      strength: { category: 'range_of_motion', name: 'Full depth', description: 'Reached parallel depth or below.' },
    }),
    rule({
      id: 'squat-too-deep', category: 'range_of_motion', name: 'Squat too deep',
      correction: 'Stop where the thighs are parallel or a little below, before the lower back rounds under (the pelvis tucking at the bottom).',
      // Hip below knee is a vertical distance: true side-on and from a diagonal; from the front a
      // thigh pointing at the camera hides it.
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // Hips sinking far below the knees (the thigh more than about 30 deg below level) is where
        // most people's pelvis tucks under and the lower back rounds ("butt wink"): past half a
        // thigh length below the knee, in this person's own thigh length.
        // As deep as the hips stayed for more than one frame: one frame's hip keypoint slipping
        // down is not the pelvis tucking under.
        const side = repSide(rep);
        const level = thighLevel(rep);
        // thighLevel is 1 with the thigh level and grows by 1/0.9 per thigh length the hips sink below the knees.
        const below = level ? (f: FrameCtx) => level(f) * 0.9 - 1 : (f: FrameCtx) => hipBelowKnee(f, side);
        const { value, index } = sustained(rep, below, 'max');
        if (!Number.isFinite(value)) return undefined;
        // Hips or knees unseen at the bottom (out of the picture: a phone close up, low, or in
        // landscape cuts them off as they sink), the hips may have sunk further there: a reading
        // within the limit is no pass, not checked (16zc: a phone 1.5 m away, 0.3 m up, read a squat
        // sinking 0.64 thigh lengths below the knees 0.06 from the frames the hips were still in).
        // Past the limit it is a fault whatever was not seen, as the depth rule's shallow reading
        // is no verdict the other way round.
        // The bottom: the frames from the first to the last the rep's signal reads past half its
        // peak (the signal itself is unread where the hips are out of the picture).
        const p = rep.progress ?? [];
        const low = p.map((v, i) => (v >= 0.5 * rep.peakProgress ? i : -1)).filter((i) => i >= 0);
        const bottomUnseen = low.length > 0 && rep.frames.some((f, i) => i >= low[0]! && i <= low.at(-1)! && !Number.isFinite(below(f)));
        if (bottomUnseen && !(value > 0.5)) return undefined;
        // A picture draws a joint nearer or further than the hips larger or smaller about its own
        // centre: with the person off it and the phone turned, the knee at the bottom, forward of
        // the hip and so at another depth, is drawn tipped against the hip (16zi: side-on, the person
        // half-way to the picture's edge, a squat sinking 0.64 read 0.45-0.50, centred 0.58). Placed
        // in 3D about the hips (squat-level.ts unprojectedAboutHips), a reading past the limit says
        // the picture may have hidden it: a pass is no verdict. The pose model's depth alone is no
        // fault, so it never makes one.
        if (!(value > 0.5) && level && rep.picture) {
          const about = unprojectedAboutHips(rep), there = thighLevel(about);
          if (there && sustained(about, (f) => there(f) * 0.9 - 1, 'max').value > 0.5) return undefined;
        }
        const fault = judge.verdict(value - 0.5, 0.1, 0.25);
        return fault && { ...fault, evidence: index, description: `The hips sank about ${round(value * 100)}% of a thigh length below the knees at the bottom.` };
      },
      strength: { category: 'range_of_motion', name: 'Controlled depth', description: 'Stopped at a depth the back could hold.' },
    }),
    rule({
      id: 'squat-knees-forward', category: 'alignment', name: 'Knees past the toes',
      correction: 'Start the squat by sending the hips back, and let the chest come forward so the shins stay about parallel to the back.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // In a balanced squat the shins and the back stay roughly parallel: knees travelling
        // forward are balanced by the hips going back and the chest leaning. Knees that lead
        // (shins tilted far more than the torso) push the knees out past the toes and load the
        // knee joint: judged against this person's own torso, since long thighs need more forward
        // knee travel. And the knees far forward in absolute terms too, as the people who label
        // this fault define it: shins past 45 deg from vertical (khammingfatt's "knee falling over
        // toe", the one source that names it; its own threshold, not fitted here). An upright
        // squat (a high-bar or front squat) tilts the shins 25-35 deg with the torso near vertical:
        // the lead alone read a good back squat 0.05 of a band from the fault (rdlifts, shared).
        const side = repSide(rep);
        const shin = atPeak(rep, (f) => shinTilt(f, side)), lean = atPeak(rep, torsoLean);
        if (!Number.isFinite(shin) || !Number.isFinite(lean)) return undefined;
        const past = atPeak(rep, (f) => kneePastToes(f, side));
        const excess = Math.min(shin - lean - 20, shin - 45);
        // Knees behind the toe tip pass whatever the shins' lead: their margin is at most zero (toes
        // unseen, the shins alone decide).
        const fault = judge.verdict(past <= 0 ? Math.min(0, excess) : excess, 8, 16);
        return fault && { ...fault, evidence: rep.peak, description: `At the bottom the shins tilted ${round(shin)} deg forward against ${round(lean)} deg of torso lean, the knees ${Number.isFinite(past) ? `${round(past * 100)}% of a shin length ` : ''}past the toes.` };
      },
      strength: { category: 'alignment', name: 'Balanced knees and hips', description: 'Shins and back stayed about parallel.' },
    }),
    rule({
      id: 'squat-knee-valgus', category: 'alignment', name: 'Knees caving in',
      correction: 'Push the knees out over the toes on the way down and up; keep the weight across the whole foot.',
      views: ['front'],
      check(seen, judge) {
        // The knees drawn at their ankles' depth (squat-level.ts kneesAtAnkleDepth): widths are
        // compared with the perspective of the knees' forward travel taken out.
        const rep = kneesAtAnkleDepth(seen);
        // Valgus is the knees moving toward the midline, a frontal-plane motion: only a camera
        // near square-on to the hips shows it. Turned further (a diagonal, front or back), a knee
        // travelling forward over the toes also moves across the picture and reads as caving in:
        // two good squats filmed from behind at a diagonal were faulted that way.
        if (!squareOn(rep)) return undefined;
        // Feet planted for a squat keep their span; one that changes is ankles the model lost.
        if (!(ankleSpanChange(rep) <= ANKLE_SPAN_CHANGE_LIMIT)) return undefined;
        // Judged in the lower half of the rep, where valgus happens and the knees bear the load,
        // on what the knees held for more than one frame. The lower half is read on the rep's own
        // signal (past half its peak); the knee angle alone foreshortens from the front, where this
        // rule looks, and let near-standing frames in.
        const p = rep.progress;
        const low = (_: FrameCtx, i: number) => (p ? (p[i] ?? NaN) >= 0.5 * rep.peakProgress : true);
        const width = sustained(rep, kneeToAnkleWidth, 'min', low);
        const inside = sustained(rep, kneeCollapse, 'max', low);
        if (!Number.isFinite(width.value) && !Number.isFinite(inside.value)) return undefined;
        // Each reading that passes its limit is a finding; the rep carries the one that went
        // furthest past it (the lowest impact), so the score follows the worst of them.
        const found: Finding[] = [];
        const drive = kneesNarrowOnTheWayUp(rep);
        // The margin kept for the set is the reading furthest past its limit, in its moderate bands.
        const bands = [(0.85 - width.value) / 0.1, (inside.value - 0.12) / 0.08, drive ? (0.82 - drive.ratio) / 0.08 : NaN].filter(Number.isFinite);
        judge.pastLimit(Math.max(...bands), 1);
        if (width.value < 0.85) {
          found.push({ ...graded(0.85 - width.value, 0.1, 0.25), evidence: width.index, description: `The knees came in to ${round(width.value * 100)}% of the ankle width (valgus).` });
        }
        if (inside.value > 0.12) {
          found.push({ ...graded(inside.value - 0.12, 0.08, 0.18), evidence: inside.index, description: `One knee fell ${round(inside.value * 100)}% of a shin length inside its foot (valgus).` });
        }
        if (drive && drive.ratio < 0.82) {
          found.push({ ...graded(0.82 - drive.ratio, 0.08, 0.16), evidence: drive.index, description: `On the way up the knees came in to ${round(drive.ratio * 100)}% of their width at the bottom (dynamic valgus).` });
        }
        return found.length ? found.reduce((a, b) => (b.impact! < a.impact! ? b : a)) : null;
      },
      strength: { category: 'alignment', name: 'Knees track the toes', description: 'Knees stayed out over the feet.' },
    }),
    rule({
      id: 'squat-torso-lean', category: 'posture', name: 'Excessive forward lean',
      correction: 'Keep the chest up and brace the core; let the hips sit down between the heels rather than back.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = sustained(rep, torsoLean, 'max');
        if (!Number.isFinite(value)) return undefined;
        // A bodyweight or low-bar squat leans up to 45-50 deg with the hips sent back (squats
        // people call correct lean up to 47); past 50 the chest is collapsing. (55 was tried
        // together with a looser depth and lost a never-tuned squat people called bad.)
        // And the chest drops only where the torso leans well past the shins: in a balanced squat
        // the back and the shins stay about parallel (the coaching cue that "Knees past the toes"
        // reads the other way round, with the same 20 deg), so long thighs that lean the torso
        // 55 deg with the shins tilted 45 squat in balance. Where the shins are unseen, the lean alone.
        const side = repSide(rep);
        const overShins = sustained(rep, (f) => torsoLean(f) - shinTilt(f, side), 'max').value;
        const relative = Number.isFinite(overShins);
        // Shins out of the picture (a close or low phone cuts the feet off), the lean cannot be read
        // against them: past 50 deg it may be a long-femured squat in balance, up to the 45 deg of
        // shin tilt "Knees past the toes" allows plus the same 20 (16zi: long femurs' clean squat,
        // 52 deg with the shins at 45, faulted side-on with the feet cut off). Only a lean past
        // that is a fault there; between, no verdict.
        const shinsCut = !relative && !!side && !repInPicture(rep, ['knee', 'ankle'], side);
        if (shinsCut && value > 50 && !(value > 45 + 20)) return undefined;
        const fault = judge.verdict(relative ? Math.min(value - 50, overShins - 20) : value - 50, 6, 12);
        // From a diagonal the picture foreshortens the lean and the shins (they point partly along
        // the line of sight), the more so from a camera below or above the hips: a phone 0.3 m up
        // read a long torso's 61 deg lean as 46 (16zf). Read against the floor's vertical in 3D
        // with the camera's pitch taken out (squat-level.ts floorAngle) it reads 64; but the pose
        // model's depth of the shoulders is no sure reading (a good diagonal squat read past the
        // limit that way), so a pass the 3D reading contradicts is no verdict, not a fault.
        if (!fault && rep.view === 'diagonal' && side) {
          const pitch = repPitch(rep, side);
          if (Number.isFinite(pitch)) {
            const lean3d = sustained(rep, (f) => floorAngle(f, 'hip', 'shoulder', pitch), 'max').value;
            const over3d = sustained(rep, (f) => floorAngle(f, 'hip', 'shoulder', pitch) - floorAngle(f, 'ankle', 'knee', pitch, side), 'max').value;
            const excess = Number.isFinite(over3d) ? Math.min(lean3d - 50, over3d - 20) : lean3d - 50;
            if (excess > 0) return undefined;
          }
        }
        return fault && { ...fault, evidence: index, description: `The torso leaned about ${round(value)} deg forward from vertical at the bottom${relative ? `, ${round(overShins)} deg more than the shins` : ''}.` };
      },
      strength: { category: 'posture', name: 'Upright torso', description: 'Chest stayed up through the rep.' },
    }),
    rule({
      id: 'squat-hips-rise-first', category: 'posture', name: 'Hips rising before the chest',
      correction: 'Drive up out of the bottom with the chest and the hips together, pushing the floor away; keep the back at the same angle until the hips pass the knees.',
      // The back's angle is read in the picture: side-on as it is, from a diagonal foreshortened
      // (read smaller, so it can only miss); the front view cannot show it.
      views: ['side', 'diagonal'],
      check(rep) {
        const { value, index, end } = leanOutOfTheBottom(rep);
        if (!Number.isFinite(value)) return undefined;
        // A shoulder or hip out of the picture from the bottom (the frames atPeak reads) to the end
        // of the rise read: the pose model places it where it guesses, and the back's angle read on
        // it is no reading, either way (16zi: a phone 1.5 m away cut a shoulder off at the bottom
        // of a clean squat and the guess read the back tipping 20-22 deg out of the bottom).
        if (rep.frames.some((f, i) => i >= rep.peak - 1 && i < Math.max(end, rep.peak + 2) && !jointsInPicture(rep, f, ['shoulder', 'hip']))) return undefined;
        // No margin is recorded for the near-limit points (near-limit.ts): no labelled clip shows
        // this fault, so how close a clean rep came says nothing known about its form, and it
        // would only reorder the clean reps (the tuning squats' AUC fell 0.88 -> 0.81 with it).
        const excess = value - LEAN_GAINED_LIMIT;
        return excess > 0 ? { ...graded(excess, 4, 8), evidence: index, description: `Out of the bottom the back tipped ${round(value)} deg further forward: the hips rose before the chest.` } : null;
      },
      strength: { category: 'posture', name: 'Chest and hips rise together', description: 'The back kept its angle out of the bottom.' },
    }),
    rule({
      id: 'squat-head', category: 'posture', name: 'Head position',
      correction: 'Keep the neck in line with the back: rest the eyes on the floor a couple of metres ahead, without tipping the head back to look up or tucking the chin to the chest.',
      // Side-on and from a diagonal (squat-head.ts). From the front the head's line and the
      // torso's lean point along the line of sight, read almost wholly from the model's depth guess,
      // and perspective alone reads a stick figure's head kept in line 4-9 deg dropped: not
      // checked. It reads the face, so not from behind either.
      views: ['side', 'diagonal'],
      readsFace: true,
      check(rep) {
        const turn = headTurn(rep);
        if (!turn) return undefined;
        // Tipped back: the gaze past its limit, or past HEAD_UP_GAZE with the neck extended past
        // its limit against the back (both, so the lesser of the two margins).
        const drop = turn.drop - HEAD_DROP_LIMIT;
        const up = Math.max(turn.up - HEAD_UP_LIMIT, Math.min(turn.up - HEAD_UP_GAZE, turn.extension - NECK_EXTENSION_LIMIT));
        // No margin is recorded for the near-limit points, as for the hips rising first: no
        // labelled tuning clip shows a head fault, so how close a clean rep came says nothing known
        // about its form, and it only reordered the clean reps (tuning squats' AUC 0.89 -> 0.86 with it).
        const excess = Math.max(drop, up);
        // A pass that the joints placed in 3D about the hips contradict (squat-level.ts
        // unprojectedAboutHips): with the person off the picture's centre, head and torso lines at
        // other depths than the hips are drawn tipped (16zi: side-on, 1 m up, the person half-way
        // to the picture's right edge and 0.3 up, a head dropped 80 deg against the back read 18-19
        // of the 20 deg limit; placed about the hips 22-23). No verdict then; it never makes a fault.
        if (!(excess > 0) && rep.picture) {
          const about = headTurn(unprojectedAboutHips(rep));
          if (about && (about.drop > HEAD_DROP_LIMIT || about.up > HEAD_UP_LIMIT)) return undefined;
        }
        if (!(excess > 0)) return null;
        const fault = graded(excess, 10, 20);
        return drop >= up
          ? { ...fault, evidence: turn.dropAt, description: `The head dropped about ${round(turn.drop)} deg toward the chest, against the line of the back, beyond where it was standing.` }
          : { ...fault, evidence: turn.upAt, description: `The head tipped back about ${round(turn.up)} deg to look up, beyond where it was standing${turn.up <= HEAD_UP_LIMIT ? `, the neck bent back about ${round(turn.extension)} deg against the line of the back` : ''}.` };
      },
      strength: { category: 'posture', name: 'Neutral neck', description: 'The head stayed in line with the back.' },
    }),
    rule({
      id: 'squat-heels', category: 'stability', name: 'Heels lifting',
      correction: 'Keep the heels down and the weight over the mid-foot; widen the stance slightly if needed.',
      // The ankle's rise is read against the image's vertical: only a steady side-on camera shows it.
      views: ['side'],
      check(rep, judge) {
        // Where the ankles stood as the rep began: the median of its first three frames, not the
        // first one alone, whose ankle keypoint slipping down would read as the heels rising.
        const start = quantile(rep.frames.slice(0, 3).map(ankleY), 0.5);
        if (!Number.isFinite(start)) return undefined;
        // The ankles' rise is the heels' only where the toe tips, which stay on the floor either
        // way, stayed put: toes that moved as far as the limit itself (a hand-held camera tilting,
        // feet the model does not track: 0.12-0.52 leg lengths on a barbell squat whose plate hides
        // the body, 0.01-0.07 on steady clips) mean the reading is not the heels'. Not checked.
        // Toes unseen (a model without foot points): the ankles alone, as before.
        if (toeTravel(rep) >= HEEL_RISE_LIMIT) return undefined;
        // Heels come up at the bottom; a single high frame elsewhere is keypoint noise.
        const value = atPeak(rep, (f) => heelRise(f, start)), index = rep.peak;
        if (!Number.isFinite(value)) return undefined;
        const fault = judge.verdict(value - HEEL_RISE_LIMIT, 0.04, 0.08);
        return fault && { ...fault, evidence: index, description: 'The ankles rose off the floor during the rep, a sign the heels lifted.' };
      },
      strength: { category: 'stability', name: 'Heels grounded', description: 'Feet stayed flat.' },
    }),
    squatHipShift,
    bounceRule('squat'),
  ],
};
