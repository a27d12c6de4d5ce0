// Shared measurements for the exercise definitions: signals that several exercises reuse (hip
// height, wrist height, torso elevation) and helpers to scan a repetition for its worst frame.
import { KP, type Keypoint } from '../pose.js';
import type { CameraAngle, Finding, FormRule, FrameCtx, RepView, Severity } from '../exercise.js';
import {
  angleAt, bestSide, dist, elevation, joint, pairPoint, quantile, sideAngle, VISIBLE, type Joint, type Side,
} from '../signals.js';
import { awayFromCamera, bodyLine3d, lyingByDepth, yawOf } from '../view.js';

export const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, x));

/** Vertical hip-above-ankle distance as a fraction of leg length: ~1 standing, ~0.45 at parallel. */
export function hipHeight(f: FrameCtx): number {
  const hip = pairPoint(f.p, 'hip'), ankle = pairPoint(f.p, 'ankle');
  if (!hip || !ankle || !(f.legLen > 0)) return NaN;
  return (ankle.y - hip.y) / f.legLen;
}

/** Vertical wrist-below-shoulder distance as a fraction of arm length (negative = above). */
export function wristDrop(f: FrameCtx, side?: Side): number {
  const sh = side ? f.p[joint(side, 'shoulder')]! : pairPoint(f.p, 'shoulder');
  const wr = side ? f.p[joint(side, 'wrist')]! : pairPoint(f.p, 'wrist');
  if (!sh || !wr || sh.score < VISIBLE || wr.score < VISIBLE || !(f.armLen > 0)) return NaN;
  return (wr.y - sh.y) / f.armLen;
}

/** Torso angle above the horizontal (90 = upright or vertical in the image), NaN when unseen. */
export function torsoElevation(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip');
  return sh && hip ? elevation(sh, hip) : NaN;
}

/** Torso lean from vertical in degrees (0 = upright). */
export const torsoLean = (f: FrameCtx) => 90 - torsoElevation(f);

export const kneeAngle = (f: FrameCtx, side?: Side) => sideAngle(f.p, 'hip', 'knee', 'ankle', side);
export const elbowAngle = (f: FrameCtx, side?: Side) => sideAngle(f.p, 'shoulder', 'elbow', 'wrist', side);
export const hipAngle = (f: FrameCtx, side?: Side) => sideAngle(f.p, 'shoulder', 'hip', 'knee', side);

/**
 * Upright enough to be standing: rules out bending over to pick something up. With `unseenPasses`
 * a torso the model cannot see (a barbell plate hiding the head and shoulders) does not veto a
 * signal that is read from the legs alone.
 */
export function upright(f: FrameCtx, maxLeanDeg: number, unseenPasses = false): boolean {
  const lean = torsoLean(f);
  return Number.isFinite(lean) ? lean <= maxLeanDeg : unseenPasses;
}

/** How far below the hips (torso lengths) the shoulders must be drawn for bodyLying's head-end reading: past keypoint noise. */
const SHOULDERS_BELOW = 0.1;

/**
 * Torso roughly horizontal in the image, or pointing at the camera (foreshortened), or lying read
 * in 3D (view.ts lyingByDepth, issue 20u). A phone above the body or at its feet draws a level
 * torso rising in the picture: the bench press filmed from 2 m up and 1.5-3 m away read 37.5 deg,
 * a plank from its feet stands its shoulders above its hips. lyingByDepth reads the torso and the
 * legs against the vertical the camera's pitch gives (or both pointing away end-on), so a standing,
 * sitting or kneeling-upright body, whose torso or legs stand, is still not lying.
 */
export function bodyLying(f: FrameCtx, maxElevationDeg: number): boolean {
  const el = torsoElevation(f);
  if (!Number.isFinite(el)) return false;
  if (el <= maxElevationDeg) return true;
  const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip');
  // Filmed head-on, a horizontal torso looks short; standing, it is about an arm's length.
  if (!!sh && !!hip && f.armLen > 0 && dist(sh, hip) < 0.45 * f.armLen) return true;
  // Filmed from the head end, the nearer shoulders are drawn below the hips: nobody standing,
  // sitting, kneeling or hinged shows that (a deadlift's or a row's shoulders stay above the
  // hips). The arms lie along the line of sight there too, so the arm-length test above fails.
  if (!!sh && !!hip && f.torsoLen > 0 && sh.y - hip.y > SHOULDERS_BELOW * f.torsoLen) return true;
  return lyingByDepth(f) || headEndOn(f);
}

/**
 * tan 50 deg: how far out of the picture, away from the camera, the torso (shoulders to hips) and the
 * legs (hips to feet) must both point for bodyLying's head-end reading. lyingByDepth reads end-on
 * from the feet only (from the head, view.ts counts on the shoulders drawn below the hips); a phone
 * on the floor at a plank's head (0.3 m up) looks up at the shoulders, draws them above the hips, and
 * the mountain climber found no attempt there. Upright bodies point this way when the camera looks
 * down on them, by tan(pitch): the pinhole sweep's standing, squatting, hinged, chair-seated and
 * kneeling bodies read at most 0.82 for the torso (2 m up, 1.5 m away); the plank from its head,
 * 1.53 at least (torso) and 1.78 (legs), at any height and distance of the sweep.
 */
const HEAD_END = Math.tan((50 * Math.PI) / 180);

/** Torso and legs both pointing away from the camera past HEAD_END: a body lying head toward the camera. */
function headEndOn(f: FrameCtx): boolean {
  const line = bodyLine3d(f);
  return !!line && awayFromCamera(line.sh, line.hip) > HEAD_END && awayFromCamera(line.hip, line.foot) > HEAD_END;
}

/**
 * Head no higher than the shoulders: true in a plank from any side, false for anyone standing or
 * sitting up (their nose is 0.3-0.5 arm lengths above the shoulders). It still reads when a
 * head-on camera hides the hips behind the shoulders.
 */
export function headDown(f: FrameCtx): boolean {
  const sh = pairPoint(f.p, 'shoulder'), n = f.p[KP.nose]!;
  if (!sh || n.score < VISIBLE || !(f.armLen > 0)) return false;
  return (sh.y - n.y) / f.armLen < 0.15;
}

/**
 * The camera's yaw to the body over one rep (median over its frames, degrees: 0 square-on, 90
 * side-on). Rules whose measurement needs a plane of the body seen flat check it on the rep
 * itself: the clip's view name is coarser (a person filmed from behind is named `back` at any yaw,
 * and a plank's view can be named diagonal while the body line is seen side-on).
 */
export function repYaw(rep: RepView): number {
  return quantile(rep.frames.map(yawOf), 0.5);
}

/**
 * Within this yaw (true degrees, view.ts yawOf) the frontal plane is seen flat. Set at 30 deg of
 * yaw read at face value, before the model's depth was read at its scale (pose.ts Z_SCALE): 9.4
 * true. The view classifier's front limit, once the same, is now 11 (view.ts DIAGONAL_YAW); this
 * one at 11 changed nothing on the tuning evals, so it keeps the reading the rules were set on.
 */
export const SQUARE_ON_YAW = 9.4;
/**
 * From this yaw on a rep is judged as seen side-on whatever its view's name: 62 read at face value,
 * 28.3 true. Geometrically the sagittal plane is still foreshortened there (cos 28 = 0.88); at 65
 * (view.ts SIDE_YAW) the tuning evals did not change either, so it keeps the rules' reading.
 */
export const SIDE_ON_YAW = 28.3;

/** The rep was filmed near square-on (front or back), so the frontal plane shows. */
export const squareOn = (rep: RepView) => repYaw(rep) < SQUARE_ON_YAW;

/** The rep was filmed side-on: named side, or turned at least SIDE_ON_YAW whatever its name. */
export const sideOn = (rep: RepView) => rep.view === 'side' || repYaw(rep) >= SIDE_ON_YAW;

/** Values of a measure over the rep with the index of the extreme one. */
export function extreme(rep: RepView, m: (f: FrameCtx) => number, kind: 'max' | 'min'): { value: number; index: number } {
  let best = NaN, index = rep.peak;
  rep.frames.forEach((f, i) => {
    const v = m(f);
    if (!Number.isFinite(v)) return;
    if (!Number.isFinite(best) || (kind === 'max' ? v > best : v < best)) { best = v; index = i; }
  });
  return { value: best, index };
}

/**
 * The extreme a measure held for at least `frames` frames of the rep (the second-highest value
 * with the default 2): a fault people see is held for a moment, while one frame's extreme is as
 * often a keypoint that jumped. With fewer finite frames than that, the measure is unjudged (NaN).
 * `where` limits the frames considered (e.g. the lower half of a squat).
 */
export function sustained(rep: RepView, m: (f: FrameCtx) => number, kind: 'max' | 'min', where: (f: FrameCtx, i: number) => boolean = () => true, frames = 2): { value: number; index: number } {
  const vals = rep.frames.map((f, i) => ({ v: where(f, i) ? m(f) : NaN, i })).filter((x) => Number.isFinite(x.v));
  if (vals.length < frames) return { value: NaN, index: rep.peak };
  vals.sort((a, b) => (kind === 'max' ? b.v - a.v : a.v - b.v));
  const at = vals[frames - 1]!;
  // The evidence frame is the worst one: that is where the fault shows most clearly.
  return { value: at.v, index: vals[0]!.i };
}

/** A quantile of the measure over the rep: robust to the one-frame keypoint glitches a max has. */
export function over(rep: RepView, m: (f: FrameCtx) => number, q: number): { value: number; index: number } {
  const vals = rep.frames.map((f) => m(f));
  const value = quantile(vals, q);
  let index = rep.peak, best = Infinity;
  vals.forEach((v, i) => { if (Number.isFinite(v) && Math.abs(v - value) < best) { best = Math.abs(v - value); index = i; } });
  return { value, index };
}

/**
 * How long a body must stay at a depth for the rep to have reached it (squat and push-up depth):
 * more than one frame at 12 fps, so a keypoint's one-frame jump is not depth, whatever the tempo.
 */
export const DEPTH_HELD_S = 0.1;

/**
 * The highest level a measure held for at least `seconds` around its peak, the frames placed on
 * either side of each crossing by linear interpolation (`dwellFrames`), with the peak frame as
 * evidence. Unlike a quantile of the rep's frames, it does not depend on the rep's tempo: the 90th
 * percentile is the level held for a tenth of the rep, under one frame on a 0.75 s squat and a
 * quarter second on a 2.5 s one, so slow reps were judged on a bottom held longer (good 2.4 s
 * squats read 0.82 of parallel where they held 0.97 for 0.1 s). The measure is read on the frames'
 * fitted keypoints (`fittedFrame`), whose turn the pose smoothing has not flattened. NaN without a
 * finite frame; a rep shorter than `seconds` gives its lowest level.
 */
export function heldFor(rep: RepView, m: (f: FrameCtx) => number, seconds: number): Held {
  return heldOf(rep, rep.frames.map((f) => m(fittedFrame(f))), seconds);
}

/**
 * heldFor's level, `open` when the frames around it are not all seen: the span held at that level
 * runs into a frame where the measure is unseen (a joint out of the picture, a dropped frame), so
 * the level held may have been higher there. A reading that would be a fault only because of what
 * was not seen is no verdict (see `dwellUnseen`).
 */
export interface Held { value: number; index: number; open: boolean }

/** heldFor on values already read over the rep's frames (the rep's progress signal, say). */
export function heldOf(rep: RepView, p: readonly number[], seconds: number): Held {
  const { value: top, index } = extremeOf(p);
  if (!Number.isFinite(top)) return { value: NaN, index: rep.peak, open: false };
  const frameS = rep.frames.length > 1 ? (rep.frames.at(-1)!.t - rep.frames[0]!.t) / 1000 / (rep.frames.length - 1) : 0;
  const need = frameS > 0 ? seconds / frameS : 0;
  const held = (band: number) => ({ value: top - band, index, open: dwellUnseen(p, top, band) });
  // The dwell grows as the level drops: bisect for the highest level held long enough.
  let lo = 0, hi = top - Math.min(...p.filter(Number.isFinite));
  if (dwellFrames(p, top, hi) < need) return held(hi);
  for (let k = 0; k < 30; k++) {
    const band = (lo + hi) / 2;
    if (dwellFrames(p, top, band) >= need) hi = band; else lo = band;
  }
  return held(hi);
}

/**
 * The frame with its fitted keypoints in place of the smoothed ones: a fast rep's turn at its true
 * height (exercise.ts FrameCtx.fitted), where the smoothing flattened it.
 */
function fittedFrame(f: FrameCtx): FrameCtx {
  return { ...f, p: f.fitted };
}

/** The largest finite value and its index (NaN, -1 without one). */
function extremeOf(p: readonly number[]): { value: number; index: number } {
  let index = -1;
  p.forEach((v, i) => { if (Number.isFinite(v) && (index < 0 || v > p[index]!)) index = i; });
  return { value: index < 0 ? NaN : p[index]!, index };
}

/** The measure near the rep's peak (median of the peak frame and its neighbours). */
export function atPeak(rep: RepView, m: (f: FrameCtx) => number): number {
  const vals = [rep.peak - 1, rep.peak, rep.peak + 1]
    .filter((i) => i >= 0 && i < rep.frames.length)
    .map((i) => m(rep.frames[i]!));
  return quantile(vals, 0.5);
}

/** Severity by how far a value passes its threshold: the bands are [minor, moderate, major). */
export function grade(excess: number, moderateAt: number, majorAt: number): Severity {
  if (excess >= majorAt) return 'major';
  if (excess >= moderateAt) return 'moderate';
  return 'minor';
}

/**
 * Severity and score impact by how far a value went past its limit: the impact grows with the
 * excess inside each band (minor -5..-9, moderate -10..-19, major -20..-30), so a rep that went
 * further past the limit scores lower than one that just crossed it, and scores rank reps (and
 * clips) by how bad they were, not only by how many faults they had.
 */
export function graded(excess: number, moderateAt: number, majorAt: number): { severity: Severity; impact: number } {
  const e = Math.max(0, excess);
  const severity = grade(e, moderateAt, majorAt);
  const frac = (x: number, lo: number, hi: number) => (hi > lo ? clamp((x - lo) / (hi - lo), 0, 1) : 0);
  const impact = severity === 'minor' ? -5 - 4 * frac(e, 0, moderateAt)
    : severity === 'moderate' ? -10 - 9 * frac(e, moderateAt, majorAt)
    : -20 - 10 * frac(e, majorAt, 2 * majorAt);
  return { severity, impact: Math.round(impact) };
}

export const round = (x: number) => Math.round(x);

const margins = new WeakMap<RepView, Map<string, number>>();

/**
 * Records how far the rep's measure went past a rule's limit and returns it: `excess` in the
 * rule's own units (positive past the limit, a fault; zero or below, a pass by that much), divided
 * by `unit` (the rule's moderate band) so that a rule with several readings keeps one scale. Passes
 * are kept too: a verdict is then set against the set's own rep-to-rep spread (set-relative.ts).
 * Rules reach it through `rule()`'s judge, which names the rule itself.
 */
export function pastLimit(rep: RepView, ruleId: string, excess: number, unit: number): number {
  let m = margins.get(rep);
  if (!m) margins.set(rep, (m = new Map()));
  if (Number.isFinite(excess)) m.set(ruleId, excess / unit);
  return excess;
}

/** The margin pastLimit recorded for this rule on this rep (in moderate bands), NaN if none. */
export const marginOf = (rep: RepView, ruleId: string): number => margins.get(rep)?.get(ruleId) ?? NaN;

/** A rule's measures against its limits on one rep, recorded under the rule's own id. */
export interface Judge {
  /** Records the margin (see pastLimit) and returns `excess`. */
  pastLimit(excess: number, unit: number): number;
  /**
   * For a fault that is one excess graded from zero: records the margin (in `moderateAt` bands)
   * and gives null within the limit, else the severity and impact of the excess (graded).
   */
  verdict(excess: number, moderateAt: number, majorAt: number): { severity: Severity; impact: number } | null;
  /**
   * The usual end of a check: the verdict on `excess`, and when it is a fault, the finding with the
   * frame to show and what to say (null within the limit).
   */
  fault(excess: number, moderateAt: number, majorAt: number, shown: { evidence: number; description: string }): Finding | null;
}

/** A rule as written: its check is also handed the judge bound to the rule's id and the rep. */
export type RuleSpec = Omit<FormRule, 'check'> & {
  check(rep: RepView, judge: Judge): Finding | null | undefined;
};

/**
 * A form rule whose id is written once: its check records margins through `judge`, bound to this
 * id, so a rule copied from another cannot record its margins under the other's id (near-limit.ts
 * and set-relative.ts read them back by the rule's id). The rule keeps the `check(rep)` signature.
 */
export function rule(spec: RuleSpec): FormRule {
  const { id } = spec;
  // Spread first: `check` keeps its place among the keys, the rule reads the same when listed.
  const built: FormRule = {
    ...spec,
    check(rep) {
      const verdict: Judge['verdict'] = (excess, moderateAt, majorAt) => (pastLimit(rep, id, excess, moderateAt) > 0 ? graded(excess, moderateAt, majorAt) : null);
      return spec.check(rep, {
        pastLimit: (excess, unit) => pastLimit(rep, id, excess, unit),
        verdict,
        fault: (excess, moderateAt, majorAt, shown) => {
          const past = verdict(excess, moderateAt, majorAt);
          return past && { ...past, ...shown };
        },
      });
    },
  };
  specs.set(built, spec);
  return built;
}

const specs = new WeakMap<FormRule, RuleSpec>();

/**
 * A built rule under another id, its judge bound to the new id: an exercise that reuses another's
 * rules as data (hammer curl from the curl) gets its own margins, so near-limit points and
 * set-relative verdicts find them. Spreading a built rule with a new id would keep the old binding.
 */
export function renamed(built: FormRule, id: string): FormRule {
  const spec = specs.get(built);
  if (!spec) throw new Error(`rule ${built.id} was not built with rule(): it cannot be renamed`);
  return rule({ ...spec, id });
}

/** Signed distance of point p from line a-b, positive when p is below the line in the image. */
export function belowLine(p: Keypoint, a: Keypoint, b: Keypoint): number {
  const dx = b.x - a.x;
  if (Math.abs(dx) < 1e-6) return 0;
  const yAt = a.y + ((p.x - a.x) / dx) * (b.y - a.y);
  return p.y - yAt;
}

/** The joints of one side whose visibility says which side faces the camera. */
const SIDE_JOINTS: Joint[] = ['ear', 'shoulder', 'elbow', 'wrist', 'hip', 'knee', 'ankle'];
const repSides = new WeakMap<RepView, Side | null>();

/**
 * The side of the body facing the camera over the whole rep: the one side a rule reads every frame
 * of the rep on. Per frame the model gives the near and the far side of a torso about the same
 * confidence (0.95-0.99 for shoulder, hip and ear), so the best-seen side of each frame flips from
 * one to the other, and a side-on measure jumps between the near side (seen) and the far side
 * (hidden behind the body, placed by the model's guess): a good push-up read a head angle of 50 deg
 * on one side and 19 on the other, frame after frame. The side facing the camera is the one whose
 * limbs are seen: summed over the rep and over all seven joints of each side, the far side's
 * elbow, wrist, knee and ankle (behind the body) read 0.05-0.5 where the near side's read 0.9+.
 * Ties (a square-on camera sees both alike) go to the nearer side by the model's depth, then to the
 * left: any fixed choice, as long as it does not change within the rep.
 */
export function repSide(rep: RepView): Side | null {
  if (repSides.has(rep)) return repSides.get(rep)!;
  const seen = { left: 0, right: 0 }, depth = { left: 0, right: 0 };
  let zs = 0;
  for (const f of rep.frames) {
    for (const s of ['left', 'right'] as const) {
      for (const j of SIDE_JOINTS) {
        const k = f.p[joint(s, j)]!;
        seen[s] += k.score;
        if (k.z !== undefined && Number.isFinite(k.z)) { depth[s] += k.z; if (s === 'left') zs++; }
      }
    }
  }
  // Smaller z is nearer the camera in BlazePose's depth.
  const side: Side | null = seen.left === 0 && seen.right === 0 ? null
    : seen.left !== seen.right ? (seen.left > seen.right ? 'left' : 'right')
    : zs > 0 && depth.left !== depth.right ? (depth.left < depth.right ? 'left' : 'right')
    : drawnLonger(rep);
  repSides.set(rep, side);
  return side;
}

/**
 * Between two sides seen alike with no depth to tell them apart (a square-on camera, a model
 * without z): the side whose limbs are drawn longer over the rep, less foreshortened or nearer the
 * camera; the left only when even they are equal. "The left" alone is not the same side of the
 * body when the clip is mirrored (a selfie camera, the person facing the other way), and the two
 * sides of a rep read differently by the keypoints' own noise: a square-on squat's depth moved a
 * point with the facing direction.
 */
function drawnLonger(rep: RepView): Side {
  const len = { left: 0, right: 0 };
  for (const f of rep.frames) {
    for (const s of ['left', 'right'] as const) {
      for (const [a, b] of [['shoulder', 'elbow'], ['elbow', 'wrist'], ['hip', 'knee'], ['knee', 'ankle']] as const) {
        const d = dist(f.p[joint(s, a)]!, f.p[joint(s, b)]!);
        if (Number.isFinite(d)) len[s] += d;
      }
    }
  }
  return len.right > len.left ? 'right' : 'left';
}

/**
 * A per-side measure read on the rep's side (repSide) on every frame of the rep, NaN where that
 * side is not seen: the one-side-per-rep form of `kneeAngle(f)`, `elbowAngle(f)`, `hipAngle(f)`,
 * which pick the best-seen side frame by frame and so mix the near side with the far side's guess.
 */
export function onRepSide(rep: RepView, m: (f: FrameCtx, side: Side) => number): (f: FrameCtx) => number {
  const side = repSide(rep);
  return side ? (f) => m(f, side) : () => NaN;
}

/**
 * A per-side measure at a rep's two ends (its start and finish positions), read on the rep's
 * side: the straighter of the two, since one end is enough to show the position was reached.
 */
export function atEnds(rep: RepView, m: (f: FrameCtx, side: Side) => number): number {
  const read = onRepSide(rep, m);
  const ends = [rep.frames[0]!, rep.frames[rep.frames.length - 1]!].map(read).filter(Number.isFinite);
  return ends.length ? Math.max(...ends) : NaN;
}

/**
 * The joints are seen on that side in this frame. The best-seen side of a frame always is (else it
 * is not chosen); the rep's side (repSide) may not be on every frame, and a frame where it is not
 * gives no value rather than one read off the other side.
 */
export function seenOn(f: FrameCtx, side: Side, joints: Joint[]): boolean {
  return joints.every((j) => f.p[joint(side, j)]!.score >= VISIBLE);
}

/**
 * Angle shoulder-hip-ankle with the hip's sign relative to that line, on `side` (a rule passes the
 * rep's side, see repSide), or on the best-seen side of this frame alone when none is given.
 */
export function bodyLine(f: FrameCtx, side?: Side | null): { bend: number; below: boolean } | null {
  const s = side ?? bestSide(f.p, ['shoulder', 'hip', 'ankle']);
  if (!s) return null;
  const sh = f.p[joint(s, 'shoulder')]!, hip = f.p[joint(s, 'hip')]!, an = f.p[joint(s, 'ankle')]!;
  if (Math.min(sh.score, hip.score, an.score) < VISIBLE) return null;
  const bend = 180 - angleAt(sh, hip, an);
  return { bend, below: belowLine(hip, sh, an) > 0 };
}

export const nose = (f: FrameCtx) => f.p[KP.nose]!;

/**
 * How long the rep's signal stayed within `band` of its peak `top`, in frames (fractional): from
 * the highest frame out to where the signal crosses `top - band` on each side, placed between the
 * two frames around each crossing by linear interpolation (a side with no frame below the level
 * ends at its last frame). Counting the frames above the level measured the sampling as much as
 * the movement: at 12 fps a frame is 0.08 s, and the same smooth rep read one frame or two
 * depending on where the frames fell.
 */
export function dwellFrames(p: readonly number[], top: number, band: number): number {
  const e = dwellEdges(p, top, band);
  return e ? e.to - e.from : 0;
}

/**
 * The dwell of `dwellFrames` ends on an unseen frame (NaN) or at the end of the series on either
 * side instead of a crossing: the signal may have stayed at the level there, so the dwell measured
 * is a lower bound (a rep whose first frame is its bottom, the frames before it unseen, shows no
 * turn at all). A measure read at a lower frame rate, or with a joint out of
 * the picture for a moment, loses frames like this; a hold or a depth judged short on such a
 * dwell is judged on what was not seen (a wrist out of the frame at the bottom of a push-up read
 * as a bounce and a shallow rep).
 */
export function dwellUnseen(p: readonly number[], top: number, band: number): boolean {
  return dwellEdges(p, top, band)?.open ?? false;
}

/** Where the dwell at `top - band` begins and ends (fractional frames), and whether an end is unseen. */
function dwellEdges(p: readonly number[], top: number, band: number): { from: number; to: number; open: boolean } | null {
  const at = extremeOf(p).index;
  const level = top - band;
  if (at < 0 || !(p[at]! >= level)) return null;
  let open = false;
  const edge = (dir: 1 | -1): number => {
    let i = at;
    while (Number.isFinite(p[i + dir]) && p[i + dir]! >= level) i += dir;
    const out = p[i + dir];
    // No crossing on this side: the next frame is unseen, or the rep's frames end above the level.
    if (!Number.isFinite(out)) open = true;
    return Number.isFinite(out) && p[i]! > out! ? i + (dir * (p[i]! - level)) / (p[i]! - out!) : i;
  };
  const to = edge(1), from = edge(-1);
  return { from, to, open };
}

/** A bounce turns within this share of the rep's own duration (and within BOUNCE_S). */
export const BOUNCE_SHARE = 0.15;
/** A bounce turns within this time, seconds (and within BOUNCE_SHARE of the rep). */
const BOUNCE_S = 0.15;

/**
 * Bouncing out of the bottom: the rep turns at its deepest point with no control, rebounding
 * rather than easing into and out of the bottom. Judged on the progress signal, so it reads the
 * same from every side, and against the rep's own tempo: a smooth turn (the signal easing through
 * the bottom like a sine) spends about a fifth of the rep within 0.1 of its peak at any speed, a
 * rebound (a V) about a tenth. A fast but smooth rep is no bounce: people who label form call
 * single squats of 0.75-0.85 s good (kaiakol's, 0.18 s at the turn), and a fixed 0.15 s at 12 fps
 * left them one frame from the fault. A turn of at most 0.15 s and at most 15% of the rep is one.
 */
export function bounceRule(exercise: string, views: CameraAngle[] = ['side', 'diagonal', 'front']): FormRule {
  return rule({
    id: `${exercise}-bounce`, category: 'tempo', name: 'Bouncing at the bottom',
    correction: 'Lower under control and pause for a moment at the bottom instead of rebounding out of it.',
    views,
    check(rep) {
      const p = rep.progress;
      if (!p || !rep.valid || rep.frames.length < 4) return undefined;
      const fps = (rep.frames.length - 1) / Math.max(0.05, rep.durationS);
      // A turn shorter than the time between two frames cannot be told from one the frames
      // skipped: below 1 / BOUNCE_S frames a second (a phone clip at 6 fps) the bounce is not judged.
      // Read that way at 6 fps, good squats and push-ups turned "bounces" (7 clips of 93 under
      // `--augment pose:half-fps`).
      if (1 / fps > BOUNCE_S) return undefined;
      const dwell = dwellFrames(p, rep.peakProgress, 0.1) / fps;
      // Controlled reps on the shared clips dwell 0.2 s or more at the turn, even 1.3 s ones.
      if (dwell >= BOUNCE_S || dwell >= BOUNCE_SHARE * rep.durationS || rep.durationS >= 1.5) return null;
      // A turn that runs into unseen frames may have been held through them: not measured.
      if (dwellUnseen(p, rep.peakProgress, 0.1)) return undefined;
      return { severity: rep.durationS < 1 ? 'moderate' : 'minor', evidence: rep.peak,
        description: `The rep turned at the bottom after about ${dwell.toFixed(2)} s, in a ${rep.durationS.toFixed(1)} s rep: a bounce rather than a controlled turn.` };
    },
    strength: { category: 'tempo', name: 'Controlled tempo', description: 'Turned at the bottom under control.' },
  });
}
