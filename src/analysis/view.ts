// Camera angle from body geometry. What separates front, diagonal and side is the yaw of the body
// to the camera: the angle the shoulder line makes with the image plane. With depth from the pose
// model (BlazePose's z) it is read as atan(dz / Z_SCALE / dx) (see yawOf); without
// depth, from how short the shoulder line looks against the arm, which stays full length from
// every side (arms hang or push vertically in most exercises): seen square-on the shoulders span
// about 0.7 arm lengths, and that shrinks with the cosine of yaw.
// The model's depth is Z_SCALE times the true depth in x's scale (pose.ts), so the yaw is read at
// that scale and its limits are geometric: a diagonal from 11 deg, side-on from 65 (see
// DIAGONAL_YAW, SIDE_YAW). Read at face value, a 28 deg turn read 62 and 45-60 deg diagonals were
// named side-on. Yaw alone still cannot tell a steep diagonal from the side (the tuning diagonals
// read up to 72 deg over a clip), so a second cue decides: seen from the side the far elbow is
// hidden behind the body, and the model says so (its visibility falls below a fifth; below a third
// side-on by the yaw too); from a diagonal both elbows show.
// Whether the person faces the camera or away is a separate question, and yaw cannot answer it
// (a back view reads as square-on as a front one, or as turned as a diagonal).
// BlazePose names the person's own left and right, from behind too: facing the camera their left
// shoulder and hip are on the picture's right, facing away on its left. With the nose behind the
// shoulders and the ears (depth), or the face unseen, that makes a back view: pull-ups, deadlifts and rows
// are filmed from behind as often as from the side. A back view at a diagonal is named back too,
// unless the torso hides the far elbow: that rear three-quarter view is a diagonal (rearView).
// Which way the person faces is the clip's, read once over all its frames (facingOver): reps
// read one by one flipped between a rear diagonal and the side.
// Lying or in a plank, the shoulders' overlap tells side from diagonal (lyingSpan).
// Lying is read in the picture (the shoulders not above the hips) and, for a body filmed from its
// feet whose foreshortened torso stands above its hips there, from the model's depth (lyingByDepth;
// for the view also with one leg in the picture, or filmed from above off the feet end: lyingForView).
// A clip whose body lies on half its frames or more is never named back (lyingOver).
import type { CameraAngle, FormRule, FrameCtx, Picture } from './exercise.js';
import { KP, Z_SCALE, type Keypoint } from './pose.js';
import { quantile, VISIBLE } from './signals.js';

export type ViewAngle = CameraAngle | 'back';

/**
 * Shoulder span seen square-on, over the arm's length and over the torso's (both measured on the
 * front-view clips, standing). Either reference can only read short (an arm bent or pointing at
 * the camera, a torso leaning toward it), so the longer estimate of the square-on span is used: a
 * back squat's arms, bent up to the bar, once made the shoulders look square-on from a diagonal.
 */
const SQUARE_ON_SPAN = 0.7;
const SQUARE_ON_SPAN_TORSO = 0.66;
const deg = (r: number) => (r * 180) / Math.PI;

/**
 * The shoulder span this person would show square-on, pixels: the longer of the two estimates, or
 * the one known. An arm whose wrist is unseen has no length (NaN), and Math.max with NaN is NaN: a
 * phone 1.5 m from a press, its hands overhead out of the picture, left the shoulders' order unread
 * and a view from behind named front or diagonal (issue 20x).
 */
const squareOnSpan = (f: FrameCtx) => Math.max(f.armLen > 0 ? SQUARE_ON_SPAN * f.armLen : 0, f.torsoLen > 0 ? SQUARE_ON_SPAN_TORSO * f.torsoLen : 0);

/**
 * Yaw of the segment a-b to the image plane from depth, degrees 0-90; NaN without depth. The
 * model's z is Z_SCALE times the true depth in x's scale (pose.ts), so it is read at that scale:
 * at face value a body turned 10 deg read 32, one turned 28 deg read 62.
 */
function depthYaw(a: Keypoint, b: Keypoint): number {
  if (Math.min(a.score, b.score) < VISIBLE || a.z === undefined || b.z === undefined) return NaN;
  const dx = Math.abs(a.x - b.x), dz = Math.abs(a.z - b.z) / Z_SCALE;
  return dx + dz > 0 ? deg(Math.atan2(dz, dx)) : NaN;
}

/**
 * Yaw of the body to the camera in degrees (0 square-on, 90 side-on), NaN when unseen: the
 * shoulder line's depth first, where the chest faces. The hip line turns with the legs (a lunge's
 * or a split squat's pelvis rotates toward the front leg: a front lunge read 43 deg at the hips, 28
 * at the shoulders), and the span against the body's own lengths leans on proportions that differ
 * by person (square-on shoulders span 0.53-0.69 torso lengths on the shared front views), so each
 * is only a fallback: the hips when the shoulders' depth is unseen, the span without depth. On the
 * tuned clips the shoulders alone leave front views at most 6 deg and diagonals at least 14 (20
 * and 42 read at face value); the earlier mean of all three, 8 and 12 (26 and 38).
 */
export function yawOf(f: FrameCtx): number {
  const ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!, lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
  const shoulders = depthYaw(ls, rs);
  if (Number.isFinite(shoulders)) return shoulders;
  const hips = depthYaw(lh, rh);
  return Number.isFinite(hips) ? hips : spanYaw(f);
}

/**
 * Share of the square-on span estimate (squareOnSpan) a body seen square-on can show: the estimate
 * is the longer of two, from proportions that differ by person, so a front view's shoulders read
 * short of it (the tuning front views, depth set aside: 0.81-1 over a clip). Without it the yaw
 * from the span reads a front view up to 36 deg turned; this path's limit, before the yaw was read
 * at its true scale, was 30 deg (a span of 0.87). With the depth stripped from the tuning clips'
 * poses, the angle is right on 34 of 38 (0.81: 32; 0.9: 33; none: 28; before this change: 33).
 */
const SQUARE_ON_SHARE = 0.87;

/** Yaw from the shoulder span against the body's own lengths alone (no depth), degrees. */
function spanYaw(f: FrameCtx): number {
  const ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!;
  const squareOn = squareOnSpan(f);
  if (!(squareOn > 0)) return NaN;
  if (Math.min(ls.score, rs.score) >= VISIBLE) {
    const span = Math.hypot(ls.x - rs.x, ls.y - rs.y);
    return deg(Math.acos(Math.min(1, span / (SQUARE_ON_SHARE * squareOn))));
  }
  // Only one shoulder seen: the other is hidden behind the body, which happens side-on.
  return Math.max(ls.score, rs.score) >= VISIBLE ? 80 : NaN;
}

/**
 * The shoulder line across the picture, signed, in square-on spans (see spanYaw): about +1 seen
 * square-on from the front (the person's left shoulder on the picture's right), -1 from the back,
 * near 0 side-on; the hips' order must agree (a shoulder line misread in one frame does not turn
 * the person round). NaN when either shoulder or hip pair is unseen, or the torso is not upright.
 */
export function signedSpan(f: FrameCtx): number {
  const spans = pairSpans(f);
  if (!spans) return NaN;
  return Math.sign(spans.hips) === Math.sign(spans.shoulders) ? spans.shoulders : 0;
}

/**
 * The hip line across the picture, signed, in the same square-on spans as signedSpan (the hips of
 * a person facing the camera are about 0.55 of them). A body's hips span a share of its shoulders
 * that does not depend on the yaw (both shrink with its cosine): 0.5-0.65 on the tuning clips,
 * from the front, the back and every angle between. NaN as signedSpan.
 */
export function signedHipSpan(f: FrameCtx): number {
  return pairSpans(f)?.hips ?? NaN;
}

/**
 * The shoulder line across the picture in square-on spans, unsigned: near 0 when the shoulders
 * overlap (side-on). Unsigned, so a view from behind that BlazePose reads half the time as facing
 * the camera (its left and right swapped) does not pool to an overlap: the shared face pull read
 * +0.55 and -0.53 on alternate reps, and 0.00 as a signed median. NaN as signedSpan.
 */
export function shoulderOverlap(f: FrameCtx): number {
  const spans = pairSpans(f);
  return spans ? Math.abs(spans.shoulders) : NaN;
}

/**
 * Only an upright torso (standing, sitting, hanging) faces toward or away from the camera: lying
 * down (a crunch, a bench press) or in a plank, the shoulders' order across the picture says which
 * way the head points, not where the face is. The shoulders stand above the hips by half the torso.
 */
function shouldersAboveHips(f: FrameCtx): boolean {
  const ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!, lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
  return (lh.y + rh.y - ls.y - rs.y) / 2 > 0.5 * f.torsoLen && !lyingByDepth(f);
}

/** A point in the picture's pixels with the model's depth at its true scale (pose.ts Z_SCALE). */
export type Point3 = readonly [number, number, number];

/**
 * The body's line in 3D: the shoulders', hips' and feet's midpoints (the knees' when an ankle is
 * unseen), each with the model's depth at its true scale; null unless all six are seen with depth.
 * Read by lyingByDepth here and by rules/common.ts bodyLying's head-end reading.
 */
export function bodyLine3d(f: FrameCtx): { sh: Point3; hip: Point3; foot: Point3 } | null {
  const feet = [KP.leftAnkle, KP.rightAnkle].every((i) => f.p[i]!.score >= VISIBLE) ? [KP.leftAnkle, KP.rightAnkle] : [KP.leftKnee, KP.rightKnee];
  const all = [KP.leftShoulder, KP.rightShoulder, KP.leftHip, KP.rightHip, ...feet].map((i) => f.p[i]!);
  if (all.some((k) => k.score < VISIBLE || k.z === undefined)) return null;
  const mid = (a: Keypoint, b: Keypoint): Point3 => [(a.x + b.x) / 2, (a.y + b.y) / 2, (a.z! + b.z!) / 2 / Z_SCALE];
  return { sh: mid(all[0]!, all[1]!), hip: mid(all[2]!, all[3]!), foot: mid(all[4]!, all[5]!) };
}

/** How steeply the line from a to b points away from the camera: its depth over its length in the picture (tan of its angle out of the picture). */
export const awayFromCamera = (a: Point3, b: Point3) => (b[2] - a[2]) / Math.hypot(b[0] - a[0], b[1] - a[1]);

/**
 * A torso seen above its hips in the picture that the model's depth shows lying (issue 20s): a plank,
 * or a body on its back, filmed from its feet or at a diagonal from them with the camera at or above
 * the hips. There the foreshortened torso still stands above the hips in the picture and the
 * shoulders show in a back view's order, and the pinhole sweep (test/analysis/view-sweep.ts) named
 * 120 of its 480 plank cameras back. Two readings, each for the cameras the other cannot read:
 * - End-on from the feet: the torso and the legs both point away from the camera, out of the picture
 *   by more than END_ON (the shoulders beyond the hips beyond the feet). No pitch is needed, and
 *   none can be read there (the shoulder line lies across the picture).
 * - Turned off the long axis, where the frame's shoulder line gives the camera's pitch
 *   (shoulderPitch): the torso and the legs both within 45 deg of level, read in 3D against the
 *   vertical that pitch puts in the camera's frame. A row's legs stand upright; a squat's or a
 *   press's torso does.
 * The feet stand in for the legs' far end (the knees when the ankles are unseen). From the head end
 * the shoulders are nearer than the hips and fall below them in the picture: the two-dimensional
 * reading says lying there already.
 */
export function lyingByDepth(f: FrameCtx): boolean {
  const line = bodyLine3d(f);
  return line ? lyingAlong(f, line) : false;
}

/** lyingByDepth's two readings on a body line in 3D (the shoulders', hips' and feet's midpoints). */
function lyingAlong(f: FrameCtx, { sh, hip, foot }: { sh: Point3; hip: Point3; foot: Point3 }): boolean {
  if (awayFromCamera(hip, sh) > END_ON && awayFromCamera(foot, hip) > END_ON) return true;
  // Clamped as cameraPitch is: a frame's misread pitch past 45 deg would lay down an upright torso
  // whose depth the model reads flat (its rise then reads cos(pitch)); at 45 it stays upright.
  const pitch = Math.max(-MAX_PITCH, Math.min(MAX_PITCH, shoulderPitch(f)));
  if (!Number.isFinite(pitch)) return false;
  // World up in the camera's frame (x right, y down the picture, z away), the camera looking down by `pitch`.
  const r = (pitch * Math.PI) / 180, up = [0, -Math.cos(r), -Math.sin(r)];
  const rise = (a: Point3, b: Point3) => {
    const v = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    return (v[0]! * up[0]! + v[1]! * up[1]! + v[2]! * up[2]!) / Math.hypot(v[0]!, v[1]!, v[2]!);
  };
  return rise(hip, sh) < LEVEL_SIN && rise(foot, hip) < LEVEL_SIN;
}

/**
 * tan 25 deg: how far out of the picture, away from the camera, the torso and the legs must point for
 * lyingByDepth's end-on reading. A phone on the floor looks up at a standing body by 20 deg at most
 * (the sweep's standing, pressing and hinged bodies, 1.5 m off with the camera 0.4 m high, read at
 * most 0.35, tan 19 deg); a plank's body line rises about 23 deg to its shoulders, to which a level or
 * higher camera adds its pitch (the sweep's planks within 20 deg of their feet, filmed level or from
 * 10 deg above, read 0.59-2.0; from 30-40 deg above and 1.5-2.5 m, 0.37-0.61: close range flattens
 * what the picture shows of the depth).
 */
const END_ON = Math.tan((25 * Math.PI) / 180);

/**
 * The body line in 3D as bodyLine3d reads it, with the legs read on whichever side shows them: each
 * side's hip to its own ankle (its knee when the ankle is unseen), averaged over the sides seen, laid
 * from the hips' midpoint. Null unless both shoulders and both hips, and one side's ankle or knee, are
 * seen with depth. Filmed from the feet end or a diagonal off it, a phone near the body cuts off the
 * feet, and often one knee, at the picture's edge (issue 20zi).
 */
function sideLine3d(f: FrameCtx): { sh: Point3; hip: Point3; foot: Point3 } | null {
  const seen = (i: number) => f.p[i]!.score >= VISIBLE && f.p[i]!.z !== undefined;
  if (![KP.leftShoulder, KP.rightShoulder, KP.leftHip, KP.rightHip].every(seen)) return null;
  const at = (i: number): Point3 => [f.p[i]!.x, f.p[i]!.y, f.p[i]!.z! / Z_SCALE];
  const mid = (a: Point3, b: Point3): Point3 => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2];
  const hip = mid(at(KP.leftHip), at(KP.rightHip));
  const legs: Point3[] = [];
  for (const [h, ankle, knee] of [[KP.leftHip, KP.leftAnkle, KP.leftKnee], [KP.rightHip, KP.rightAnkle, KP.rightKnee]] as const) {
    const end = seen(ankle) ? ankle : seen(knee) ? knee : -1;
    if (end < 0) continue;
    const a = at(h), b = at(end);
    legs.push([b[0] - a[0], b[1] - a[1], b[2] - a[2]]);
  }
  if (!legs.length) return null;
  const leg = legs.reduce((a, b) => [a[0] + b[0] / legs.length, a[1] + b[1] / legs.length, a[2] + b[2] / legs.length], [0, 0, 0] as Point3);
  return { sh: mid(at(KP.leftShoulder), at(KP.rightShoulder)), hip, foot: [hip[0] + leg[0], hip[1] + leg[1], hip[2] + leg[2]] };
}

/**
 * The frame's torso is not upright for the camera angle (issue 20zi): the picture shows the shoulders
 * not above the hips, or the model's depth lays the body down (lyingByDepth), with the legs read on
 * one side when the other is out of the picture (sideLine3d).
 */
function lyingForView(f: FrameCtx): boolean {
  if (!shouldersAboveHips(f)) return true;
  const line = sideLine3d(f);
  return line ? lyingAlong(f, line) || lookedDownOnEndOn(f, line) : false;
}

/**
 * A body whose torso and legs both point away from the camera, past a turn of 15 deg out of the
 * picture, while its shoulder line says the camera looks down on it (issue 20zi). Upright, a torso
 * and legs point away from a camera only as far as it looks up at them (a phone on the floor); a
 * level shoulder line then reads the camera looking up, not down. A plank 20-30 deg off its feet
 * end, filmed from 30-40 deg above, points its torso and legs only 15-30 deg away (under END_ON: the
 * pitch takes back what the lean gives) and turns its shoulder line 20-30 deg out of the picture
 * (under PITCH_READ), so neither of lyingByDepth's readings sees it, and the phone sweep named it
 * back. The shoulder line's slope is read here from a turn of 15 deg (LOOSE_PITCH_READ); only its
 * sign, past LOOKS_DOWN, is used. In the phone sweep the upright bodies whose torso and legs point
 * away past 15 deg (573 cameras: a squat, a press and a row filmed from 20 deg below, 1.5 m off) read
 * it at -48 to -6 over the clip; the planks it lays down (108 cameras) at 10-56. A phone turned off
 * the body, its perspective not undone, reads some planks filmed from 40 deg above at -7 to 10, and
 * those are still named back.
 */
function lookedDownOnEndOn(f: FrameCtx, { sh, hip, foot }: { sh: Point3; hip: Point3; foot: Point3 }): boolean {
  if (!(awayFromCamera(hip, sh) > LOOSE_END_ON && awayFromCamera(foot, hip) > LOOSE_END_ON)) return false;
  return pitchOfShoulders(f, LOOSE_PITCH_READ) >= LOOKS_DOWN;
}

/** tan 15 deg: how far out of the picture the torso and the legs must point for lookedDownOnEndOn. */
const LOOSE_END_ON = Math.tan((15 * Math.PI) / 180);

/** tan 15 deg: the least the shoulder line must point out of the picture for lookedDownOnEndOn to read its slope. */
const LOOSE_PITCH_READ = Math.tan((15 * Math.PI) / 180);

/** Degrees: the least pitch down the shoulder line must read for lookedDownOnEndOn (the camera above the body). */
const LOOKS_DOWN = 10;

/**
 * Whether the clip's body lies or holds a plank: at least half of the frames that see the torso read
 * it not upright (lyingForView), as lyingSpan counts. Lying, the face points at the floor or the
 * ceiling, so which way the person faces is not read on the clip at all: the frames that a
 * foreshortened torso stands above the hips on (a plank filmed from a diagonal off its feet) showed
 * the shoulders in a back view's order, and named the plank back.
 */
export function lyingOver(frames: readonly FrameCtx[]): boolean {
  let seen = 0, lying = 0;
  for (const f of frames) {
    if (Math.min(...[KP.leftShoulder, KP.rightShoulder, KP.leftHip, KP.rightHip].map((i) => f.p[i]!.score)) < VISIBLE) continue;
    seen++;
    if (lyingForView(f)) lying++;
  }
  return seen > 0 && lying >= seen / 2;
}

/** sin 45 deg: a torso or legs rising less than this are nearer level than upright (lyingByDepth). */
const LEVEL_SIN = Math.sin(Math.PI / 4);

function pairSpans(f: FrameCtx): { shoulders: number; hips: number } | null {
  const ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!, lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
  if (Math.min(ls.score, rs.score, lh.score, rh.score) < VISIBLE) return null;
  if (!shouldersAboveHips(f)) return null;
  const squareOn = squareOnSpan(f);
  if (!(squareOn > 0)) return null;
  return { shoulders: (ls.x - rs.x) / squareOn, hips: (lh.x - rh.x) / squareOn };
}

/**
 * Facing away from the camera: +1 when the face is toward the camera, -1 away, 0 unsure; NaN when
 * the torso is seen not upright (lying, the nose's depth says whether the face points up or down, not
 * where the camera is; see pairSpans). With depth the nose is nearer than the shoulders, and nearer
 * than the ears, when facing the camera: the mean of the two. BlazePose reports the face as seen
 * from behind too (0.96-1.0 on the shared back views), so its visibility cannot say it is hidden;
 * its depth can, and the ears are the head's own reference, which a torso leaning toward or away
 * from the camera does not move: the shared overhead extension filmed from behind-side read its
 * nose against the shoulders at -0.3, and +1 filmed mirrored; against the ears -1 both ways round.
 * Without depth, a face whose eyes and nose are all unseen while both shoulders and an ear are
 * seen is turned away.
 */
export function facing(f: FrameCtx): number {
  const n = f.p[KP.nose]!, ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!, le = f.p[KP.leftEar]!, re = f.p[KP.rightEar]!;
  if (Math.min(ls.score, rs.score) < VISIBLE) return 0;
  // Hips unseen (a close-up, a bench in the way), the torso is taken as upright, as before.
  if (Math.min(f.p[KP.leftHip]!.score, f.p[KP.rightHip]!.score) >= VISIBLE && !shouldersAboveHips(f)) return NaN;
  if (n.z !== undefined && ls.z !== undefined && rs.z !== undefined && n.score >= VISIBLE) {
    const span = Math.hypot(ls.x - rs.x, ls.y - rs.y);
    if (!(span > 0)) return 0;
    const toward = (z: number) => Math.max(-1, Math.min(1, -(n.z! - z) / (0.3 * span)));
    const shoulders = toward((ls.z + rs.z) / 2);
    const earsSeen = le.z !== undefined && re.z !== undefined && Math.min(le.score, re.score) >= VISIBLE;
    return earsSeen ? (shoulders + toward((le.z! + re.z!) / 2)) / 2 : shoulders;
  }
  // A face unseen is turned away only where the head is in the picture: from behind the ears show
  // (and BlazePose sees them); a close-up with the head out of the frame shows neither.
  const face = Math.max(n.score, f.p[KP.leftEye]!.score, f.p[KP.rightEye]!.score);
  if (face >= VISIBLE) return 1;
  return face < 0.1 && Math.max(le.score, re.score) >= VISIBLE ? -1 : 0;
}

/**
 * Visibility of the less visible elbow: low when the far arm is hidden, as seen side-on. NaN when
 * the picture's size is known and either elbow lies outside it (issue 20x): an elbow the frame cuts
 * off is not hidden behind the body, whatever score the model gives it (a phone 1.5 m from a
 * standing body, landscape, cuts off the head and the arms overhead; the phone sweep named 58% of
 * its cameras with an elbow out of the picture side-on, on the far elbow's low score).
 */
export function farElbowVisibility(f: FrameCtx, picture?: Picture): number {
  const l = f.p[KP.leftElbow]!, r = f.p[KP.rightElbow]!;
  if (picture && !(inside(l, picture) && inside(r, picture))) return NaN;
  return Math.min(l.score, r.score);
}

/** The keypoint lies inside the picture (rules/in-picture.ts inPicture reads a rep's). */
const inside = (k: Keypoint, pic: Picture) => k.x >= 0 && k.y >= 0 && k.x <= pic.width && k.y <= pic.height;

/**
 * Angle from the medians over the clip: yaw (degrees), facing (-1 away .. 1 toward the camera),
 * far-elbow visibility (0..1, NaN when the model gives none), the signed shoulder span and the
 * signed hip span (NaN when unknown). A person turned away (shoulders spread in the back-view
 * order and the face not toward the camera) is filmed from behind: from the back, or from a rear
 * diagonal when the torso hides the far elbow (see rearView). Otherwise side comes first (the
 * far elbow hidden), then yaw tells diagonal from front.
 */
export function classifyYaw(yaw: number, facingScore = 1, farElbow = NaN, readSpan = NaN, readHips = NaN, clip?: ClipFacing): ViewAngle | 'unknown' {
  if (!Number.isFinite(yaw)) return 'unknown';
  const { span, hips } = trustedSpans(readSpan, readHips);
  const own = facingOf(span, hips, facingScore);
  const away = (clip ?? own).away;
  if (away && Number.isFinite(farElbow) && farElbow < 0.2) {
    const rear = rearView(span, (clip ?? own).hipsFollow);
    if (rear) return rear;
  }
  // Side-on by the yaw comes before the back: a body within 25 deg of side-on is side-on whichever
  // way round it faces. Read the other way, a camera 20 deg behind the person's side (110 deg round,
  // their shoulder line reversed by 0.35-0.45 of the square-on span, the far elbow half seen) was
  // named back while its mirror 20 deg in front of the side (70 deg) was side.
  if (Number.isFinite(farElbow)) {
    if (farElbow < 0.2) return 'side';
    if (farElbow < 0.33 && yaw >= SIDE_YAW) return 'side';
    if (away) return 'back';
    if (yaw >= DIAGONAL_YAW) return 'diagonal';
  } else {
    if (yaw >= SIDE_YAW) return 'side';
    if (away) return 'back';
    if (yaw >= DIAGONAL_YAW) return 'diagonal';
  }
  return facingScore < -0.3 && !(span > BACK_SPAN) ? 'back' : 'front';
}

/**
 * Yaw (yawOf, true degrees) from which a body is named at a diagonal rather than square-on: halfway
 * between what the two views read on the tuning clips, rep by rep (front views' reps 0-9 deg,
 * diagonals' 13 and up, but for a rep filmed in a close-up push-in) and over a clip (front 0.6-7.6,
 * diagonal 15.6 and up). It is not the 20-25 deg a geometric band would give: the labels name a body
 * turned 15-25 deg a diagonal (three of the fourteen tuning diagonals read 15.6-22 over the clip,
 * and a front limit of 20 names them front).
 */
export const DIAGONAL_YAW = 11;

/**
 * Yaw from which a body is named side-on by its yaw (without the far elbow's cue, or with the far
 * elbow half seen, see classifyYaw): within 25 deg of side-on. The side views of the tuning clips
 * read 68-90 over a clip (but for the back squat whose plate hides the head, 43, named side by its
 * hidden far elbow); their diagonals up to 72, which the far elbow tells apart. Read at face value
 * the limits were 62 and 45 deg, 28 and 16 true, which named a 45-60 deg diagonal side-on whenever
 * the model half saw the far elbow.
 */
export const SIDE_YAW = 65;

/**
 * Which way a person faces, read over a clip (or a rep, without the clip's reading): `away` from
 * the camera, and whether their hips spread with their shoulders (`hipsFollow`, see rearView).
 */
export interface ClipFacing {
  away: boolean;
  hipsFollow: boolean;
}

/**
 * Facing from the signed shoulder and hip spans (trusted, see trustedSpans) and the facing score.
 * Square-on or at a diagonal, the shoulders of someone facing away show in reverse order; without
 * that reading the face alone decides (away, or unseen). A body's hips span a share of its
 * shoulders that does not depend on the yaw (0.5-0.65 on the tuning clips from every side), so
 * hips that do not spread with a reversed shoulder line say the shoulders were guessed apart.
 */
function facingOf(span: number, hips: number, facingScore: number): ClipFacing {
  return {
    away: Number.isFinite(span) ? span < -BACK_SPAN && !(facingScore > 0.3) : facingScore < -0.3,
    hipsFollow: hips <= HIPS_WITH_SHOULDERS * span,
  };
}

/**
 * A shoulder line wider than any body shows square-on measures the reference lengths misread (a
 * close-up with the head out of the picture), not the view: the spans are then unknown.
 */
function trustedSpans(span: number, hips: number): { span: number; hips: number } {
  return Math.abs(span) > MISREAD_SPAN ? { span: NaN, hips: NaN } : { span, hips };
}

/**
 * Which way the person faces over a whole clip's frames (every frame the shoulders are seen on):
 * the clip's, not each rep's. Nobody turns round mid-set, a camera carried from the front round to
 * the back is rarer than the model's readings wandering, and the share of the shoulders the hips
 * span is the body's. Read rep by rep, each sat near its limit and flipped reps between diagonal
 * and side: the shared barbell row from behind read its shoulder line at -0.31 to -0.43 per rep
 * (-0.38 over the clip, limit -0.35); the side-on back squat its hips at 0.35-0.44 of the
 * shoulders (limit 0.4). Read over every frame, not the reps', it does not depend on what was
 * counted: that back squat read 0.37 filmed, 0.39 farther off, counted as a squat or as `any`
 * (over its reps: 0.38-0.40, and 0.401 as `any` farther off).
 */
export function facingOver(all: readonly FrameCtx[], picture?: Picture): ClipFacing {
  const frames = unprojectedAll(all, picture).filter((f) => Math.min(f.p[KP.leftShoulder]!.score, f.p[KP.rightShoulder]!.score) >= VISIBLE);
  // A body lying or in a plank faces neither toward the camera nor away (see lyingOver).
  if (lyingOver(frames)) return { away: false, hipsFollow: false };
  const med = (m: (f: FrameCtx) => number) => quantile(frames.map(m), 0.5);
  const read = med(signedSpan), faceScore = med(facing);
  let { span } = trustedSpans(read, NaN);
  // A shoulder line wider than a body shows square-on, the face unread (the head out of the
  // picture), is taken as read when the legs point away from the camera (issue 20ze): see legsAway.
  if (!Number.isFinite(span) && read < -BACK_SPAN && Math.abs(faceScore) <= 0.3 && quantile(frames.map(legsAway), 0.5) >= LEGS_AWAY) span = read;
  const { away } = facingOf(span, NaN, faceScore);
  // The hips' share frame by frame, where the shoulders spread: a share of medians moves with the
  // noise on the narrower hip line (the back squat filmed farther off: 0.37 -> 0.40 of medians,
  // 0.38 -> 0.37 frame by frame).
  const shares: number[] = [];
  for (const f of frames) {
    const spans = pairSpans(f);
    if (spans && Math.abs(spans.shoulders) >= BACK_SPAN && Math.abs(spans.shoulders) <= MISREAD_SPAN) shares.push(spans.hips / spans.shoulders);
  }
  return { away, hipsFollow: quantile(shares, 0.5) >= HIPS_WITH_SHOULDERS };
}

/**
 * How far the legs point away from the camera, -1 (toward it) to 1, NaN when no segment is seen
 * with depth (issue 20ze): the mean, over the thighs (hip to knee) and the feet (heel to toe) seen,
 * of each one's depth over its 3D length. Feet point forward of the person and bent knees do too,
 * whatever the torso does, so from behind they point away: seated, hinged in a row, squatting, or
 * standing with the feet in the picture. A straight standing thigh reads about 0 from every side.
 * Read only where the face, the usual cue, is unread (facingOver).
 */
export function legsAway(f: FrameCtx): number {
  const parts: number[] = [];
  for (const [a, b] of [[KP.leftHip, KP.leftKnee], [KP.rightHip, KP.rightKnee], [KP.leftHeel, KP.leftToe], [KP.rightHeel, KP.rightToe]] as const) {
    const p = f.p[a]!, q = f.p[b]!;
    if (Math.min(p.score, q.score) < VISIBLE || p.z === undefined || q.z === undefined) continue;
    const dz = (q.z - p.z) / Z_SCALE, len = Math.hypot(q.x - p.x, q.y - p.y, dz);
    if (len > 0) parts.push(dz / len);
  }
  return parts.length ? parts.reduce((a, b) => a + b, 0) / parts.length : NaN;
}

/** Least legsAway (its median over the clip) that says the person faces away: about 17 deg out of the picture. */
const LEGS_AWAY = 0.3;

/**
 * Signed span (see signedSpan) past which the shoulder line is wider than a body shows square-on:
 * the shared front and back views read 0.81-1.11 over a clip, the synthetic test figure (shoulders
 * wide for its arms) 1.4. The close-up curl with the head out of the picture read -1.75 at 1.33x
 * the speed and was named back (-1.3 at 0.75x, still back: that reading is not told apart).
 */
const MISREAD_SPAN = 1.5;

/**
 * A person facing away whose far elbow is hidden. Side-on the shoulders overlap; from behind they
 * spread, and the torso hides the far elbow whenever the arms work in front of the body (a row, a
 * curl, a deadlift's grip) from any angle well off straight behind: people call that view a rear
 * diagonal ("rear three-quarter", "behind-side" in the shared labels' notes), and a view nearly
 * square from behind the back. Null (side) when the hips do not spread with the shoulders over the
 * clip (facingOver): a shoulder pair the model guessed apart behind a barbell plate held side-on
 * comes with hips that overlap (0.37 of the shoulders' span frame by frame over the clip, 0.39
 * filmed farther off, where the bodies seen from behind read 0.47-0.66). A thin guard, said
 * plainly: the same clip mirrored reads 0.50 and is named a diagonal.
 */
function rearView(span: number, hipsFollow: boolean): ViewAngle | null {
  if (!hipsFollow) return null;
  return span <= -SQUARE_BEHIND ? 'back' : 'diagonal';
}

/**
 * Least share of the shoulders' span the hips must show for a reversed shoulder line to be read as
 * a body turned away (see signedHipSpan): a fifth below the least a body shows, for the model's noise.
 */
const HIPS_WITH_SHOULDERS = 0.4;

/**
 * Signed span past which a view from behind is nearly square-on (within about 40 deg of straight
 * behind: the shared back views read 0.83-0.98, the rear three-quarter views 0.38-0.58, and front
 * views 0.81-1.11): named back even with the far elbow hidden by what the arms do in front.
 */
const SQUARE_BEHIND = 0.75;

/**
 * The shoulder span in square-on spans (see spanYaw) over the frames where the torso lies or holds
 * a plank, when those are at least half of the frames the torso is seen on; NaN otherwise. Lying
 * down or in a plank the arms stand vertically under or over the shoulders, so side-on the far
 * elbow shows beside the near one (the shared mountain climbers: 0.83 visible) and cannot tell the
 * side from a diagonal; the shoulders' overlap can (side-on push-ups and mountain climbers read
 * 0.11-0.25, a push-up and a bench press at a diagonal 0.40-0.74).
 */
export function lyingSpan(frames: readonly FrameCtx[]): number {
  const lying: number[] = [];
  let seen = 0;
  for (const f of frames) {
    const ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!, lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
    if (Math.min(ls.score, rs.score, lh.score, rh.score) < VISIBLE) continue;
    seen++;
    const squareOn = squareOnSpan(f);
    if (shouldersAboveHips(f) || !(squareOn > 0)) continue;
    lying.push(Math.hypot(ls.x - rs.x, ls.y - rs.y) / squareOn);
  }
  return lying.length >= Math.max(1, seen / 2) ? quantile(lying, 0.5) : NaN;
}

/**
 * Upright shoulder span (shoulderOverlap) under which the shoulders overlap: 84 deg of yaw or more
 * (cos 84 = 0.1). Side-on clips read 0.00-0.21, but so does a diagonal where it turns side-on (the
 * shared chdh_squat, 0.16-0.22, labelled diagonal): only a near-complete overlap decides alone.
 */
const OVERLAP_SPAN = 0.1;

/** Shoulder span under which a lying body is seen side-on: about 70 deg of yaw or more (cos 70 = 0.34). */
const SIDE_ON_SPAN = 0.33;

/**
 * Signed span beyond which a person is taken as facing away: at most about 70 deg off square-on
 * from behind (cos 70 = 0.34). Side views read within +-0.3 (the shoulders overlap), the shared
 * back views -0.6 to -1.
 */
const BACK_SPAN = 0.35;

/**
 * The frames' perspective: how much nearer a joint is than the hips, as a share of the hips'
 * distance, per unit of the model's depth (z): 1 / (Z_SCALE f), f the focal length in pixels. Read
 * from the body itself, since the lens is unknown (a phone's main camera at 1.5 m, a zoomed-in
 * studio camera at 6): the two sides of the torso (shoulder to hip) are mirror images, so without
 * perspective (each joint unprojected, see `unprojected`) they are the same length from any yaw; the
 * picture draws the nearer one longer. Their lengths are read with the model's depth (issue 20zd):
 * in the picture alone the mirror images are drawn alike only when the torso stands across the line
 * of sight. A torso lying along it (a plank, a bench, a bridge at a diagonal) is foreshortened
 * unevenly, the side whose shoulder sits wider pointing more along the line of sight, and that read
 * as perspective: the phone sweep's lying diagonals read a 90 deg lens or none, and 798 of them 30
 * deg off side-on were named side. The reading is the perspective under which the two sides come
 * out the same length (least squares of the log ratio over the frames, on a grid up to a 90 deg
 * lens), over the frames where the sides' depths differ by at least a third of the torso (a body
 * turned 30 deg or more; square-on there is nothing to read, and nothing much to correct).
 * 0 (no correction) when fewer than a third of the frames read one, or the reading is a lens
 * narrower than NEAR_LENS.
 */
export function perspectiveOf(frames: readonly FrameCtx[], picture: Picture): number {
  const used = frames.filter((f) => {
    const ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!, lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
    if (Math.min(ls.score, rs.score, lh.score, rh.score) < VISIBLE) return false;
    if ([ls, rs, lh, rh].some((k) => k.z === undefined || !Number.isFinite(k.z))) return false;
    const side = (Math.hypot(ls.x - lh.x, ls.y - lh.y) + Math.hypot(rs.x - rh.x, rs.y - rh.y)) / 2;
    return Math.abs((ls.z! + lh.z!) / 2 - (rs.z! + rh.z!) / 2) / Z_SCALE >= side / 3;
  });
  if (!used.length || used.length < frames.length / 3) return 0;
  const widest = 1 / (Z_SCALE * (Math.max(picture.width, picture.height) / 2));
  // Only the torso's four corners are read, 61 times over every frame used: unprojecting the
  // whole frame (33 keypoints) each time cost a minute-long clip tens of milliseconds.
  const misfit = (k: number) => used.reduce((sum, f) => {
    const lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
    const cx = (lh.x + rh.x) / 2, cy = (lh.y + rh.y) / 2;
    const at = (i: number) => (k > 0 ? unprojectedPoint(f.p[i]!, cx, cy, k) : f.p[i]!);
    const ls = at(KP.leftShoulder), rs = at(KP.rightShoulder), lhu = at(KP.leftHip), rhu = at(KP.rightHip);
    const l = Math.hypot(ls.x - lhu.x, ls.y - lhu.y, (ls.z! - lhu.z!) / Z_SCALE);
    const r = Math.hypot(rs.x - rhu.x, rs.y - rhu.y, (rs.z! - rhu.z!) / Z_SCALE);
    return l > 0 && r > 0 ? sum + Math.log(l / r) ** 2 : sum;
  }, 0);
  let best = 0, least = misfit(0);
  for (let i = 1; i <= 60; i++) {
    const m = misfit((i / 60) * widest);
    if (m < least) { least = m; best = (i / 60) * widest; }
  }
  const long = Math.max(picture.width, picture.height) / 2;
  return best >= Math.tan((NEAR_LENS * Math.PI) / 360) / (Z_SCALE * long) ? best : 0;
}

/**
 * Narrowest lens (degrees across the picture's long side) perspectiveOf acts on. A phone's main
 * camera spans 60-75 deg, and filmed near, its perspective is what turns the view's readings
 * (the phone view sweep: 6.9% of its cameras named wrong, 10% at 1.5 m). A narrower reading is a
 * zoomed or distant camera, whose perspective is weak beside the scatter of the model's far-side
 * joints: the tuning clips read 1-90 deg, spread by that scatter (a side squat 4, a knee tuck 90).
 * 50 deg at issue 20za, read in the picture alone, where the rear-diagonal barbell row read 38 and
 * unprojected was named side; read with depth (issue 20zd) it reads 19. 40 since then: a phone
 * turned off the body (the hips off the picture's centre, which unprojecting about the hips does not
 * undo) reads a lying body 20 deg off side-on short, 42-48 deg for a 60-67 deg lens, and under a
 * 50 deg limit those were left uncorrected and named diagonal (the phone sweep's bench 108 wrong at
 * 50, 69 at 40; the bridge 124, 80). A 30 deg zoom still reads under it. The tuning evals name every
 * view the same at 50, 40 and no limit (with none, one form margin moves by 0.06).
 */
const NEAR_LENS = 40;

/**
 * The frame's keypoints as a camera aimed at each would place them (issue 20za): a picture is a
 * perspective projection, x = cx + f X / Z, so a joint whose depth differs from the hips' is drawn
 * displaced by (x - cx) (Z - Z_hips) / Z_hips. Near the camera that turns the shoulder line: a phone
 * 1.5 m from a row 20 deg behind its side sees the shoulders, 20-30 cm forward of the hips, spread
 * reversed as from behind, and named the view back. The model's depth gives (Z - Z_hips) / Z_hips
 * as z times the clip's `perspective` (perspectiveOf). About the hips' place in the picture, not its
 * centre: the model's depth runs along the line of sight to the hips (issue 20x: a person
 * off-centre reads as if the camera were aimed at them). Depth unseen, a joint is left where it is;
 * the lengths (armLen, torsoLen) are the frame's own.
 */
export function unprojected(f: FrameCtx, perspective: number): FrameCtx {
  if (!(perspective > 0)) return f;
  const lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
  if (Math.min(lh.score, rh.score) < VISIBLE) return f;
  const cx = (lh.x + rh.x) / 2, cy = (lh.y + rh.y) / 2;
  return { ...f, p: f.p.map((k) => unprojectedPoint(k, cx, cy, perspective)) };
}

/** One keypoint unprojected about the hips' place (cx, cy): see unprojected. */
function unprojectedPoint<K extends { x: number; y: number; z?: number }>(k: K, cx: number, cy: number, perspective: number): K {
  if (k.z === undefined || !Number.isFinite(k.z)) return k;
  const grow = 1 + k.z * perspective;
  return grow > 0 ? { ...k, x: cx + (k.x - cx) * grow, y: cy + (k.y - cy) * grow } : k;
}

/** The frames unprojected (see unprojected) by their own perspective, when the picture's size is known. */
export function unprojectedAll(frames: readonly FrameCtx[], picture?: Picture): readonly FrameCtx[] {
  if (!picture) return frames;
  const k = perspectiveOf(frames, picture);
  return k > 0 ? frames.map((f) => unprojected(f, k)) : frames;
}

/**
 * The camera angle over the frames that matter (those in reps when there are any); `clip`, for
 * one rep's frames, is which way the person faces over the whole clip (facingOver); `picture`, the
 * video's size when known (joints outside it say nothing of what the body hides).
 */
export function estimateView(all: readonly FrameCtx[], clip?: ClipFacing, picture?: Picture): ViewAngle | 'unknown' {
  const frames = unprojectedAll(all, picture);
  clip ??= facingOver(frames);
  const med = (m: (f: FrameCtx) => number) => quantile(frames.map(m), 0.5);
  if (lyingSpan(frames) < SIDE_ON_SPAN) return 'side';
  // Shoulders that overlap almost completely, upright, are side-on whatever the far elbow shows:
  // arms held out in front (an air squat's counterbalance) put the far elbow beside the near one,
  // not behind the torso, and BlazePose then sees it at 0.4-0.6.
  // The yaw as a level camera would read it: a camera above or below the shoulders reads it short.
  const yaw = levelYaw(med(yawOf), cameraPitch(frames));
  if (med(shoulderOverlap) < OVERLAP_SPAN && yaw >= SIDE_YAW) return 'side';
  // Whether an elbow lies outside the picture is read where the picture drew it.
  const farElbow = quantile(all.map((f) => farElbowVisibility(f, picture)), 0.5);
  // Lying over these frames, the face's direction is not read (see lyingOver).
  const faceScore = lyingOver(frames) ? NaN : med(facing);
  return classifyYaw(yaw, faceScore, farElbow, med(signedSpan), med(signedHipSpan), clip);
}

/**
 * The camera's pitch read from one frame's shoulder line, degrees: positive when the camera looks
 * down on the shoulders, negative when it looks up at them (a phone on the floor). The shoulder
 * line is level in every body the catalog films (standing, hinged, seated, lying face up or down),
 * so the picture shows its far end higher than the near end by tan(pitch) of its depth: a camera
 * level with it sees it flat. NaN where the line points less than 30 deg out of the picture (its
 * depth too short to read a slope against: a body within 30 deg of square-on, where the yaw the
 * pitch shortens is small anyway), or unseen. What it reads is the pitch of the line of sight to
 * the shoulders, not the phone's tilt: filmed level at the hips from 1.5 m, the shoulders above
 * are seen from 19 deg below, and it reads -19.
 */
export function shoulderPitch(f: FrameCtx): number {
  return pitchOfShoulders(f, PITCH_READ);
}

/** shoulderPitch read where the shoulder line points out of the picture by `least` (a tangent) or more. */
function pitchOfShoulders(f: FrameCtx, least: number): number {
  const ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!;
  if (Math.min(ls.score, rs.score) < VISIBLE || ls.z === undefined || rs.z === undefined) return NaN;
  const dx = ls.x - rs.x, dy = ls.y - rs.y, dz = (ls.z - rs.z) / Z_SCALE;
  if (Math.abs(dz) < Math.abs(dx) * least) return NaN;
  return deg(Math.atan(-dy / dz));
}

/** tan 30 deg: the least the shoulder line must point out of the picture for its slope to read a pitch. */
const PITCH_READ = Math.tan(Math.PI / 6);

/**
 * Steepest pitch read (degrees either way): a phone on a tripod or held high looks down 30-40 deg at
 * most at a body it films whole; past that a reading is the model's noise (the close-up curl whose
 * left and right the model swaps reads -62 on the few frames it reads one). Clamped, a misread pitch
 * lengthens a yaw's tangent by 1/cos 45 at most.
 */
const MAX_PITCH = 45;

/**
 * The camera's pitch over these frames (shoulderPitch's median), degrees; 0 when fewer than a
 * third of the frames read one (a body near square-on, or depth unseen). The tuning clips read -4 to
 * +5 on 9 of their 11 side views filmed about chest high, +19 to +24 on the glute bridges and a bench
 * press filmed from above, -20 to -28 on the kettlebell swings, filmed from low (the sky in the
 * picture), and a push-up filmed from the floor.
 * Not squat-level.ts legPitch, which reads the pitch at the standing legs of a squat rep: the view
 * is named for every body the catalog films, lying and seated ones too, whose legs are not upright.
 */
export function cameraPitch(frames: readonly FrameCtx[]): number {
  const read = frames.map(shoulderPitch).filter(Number.isFinite);
  if (read.length < frames.length / 3) return 0;
  return Math.max(-MAX_PITCH, Math.min(MAX_PITCH, quantile(read, 0.5)));
}

/**
 * The yaw a level camera would read (degrees), from the yaw read by a camera pitched `pitch` deg.
 * The model's depth is along the camera's line of sight: pitched, that line crosses the level
 * shoulder line at a slant, so its depth is cos(pitch) of the level one and the yaw reads short,
 * atan(tan(yaw) cos(pitch)): 20 deg off side-on (70) reads 64.6 from 40 deg above, under SIDE_YAW.
 */
export function levelYaw(yaw: number, pitch: number): number {
  if (!Number.isFinite(yaw) || !(Math.abs(pitch) > 0)) return yaw;
  return deg(Math.atan(Math.tan((yaw * Math.PI) / 180) / Math.cos((pitch * Math.PI) / 180)));
}

/**
 * The variant of a rule's measurement that applies: from the back the frontal plane shows as from
 * the front (mirrored), so a rule reads a back view as it reads a front one.
 */
export const rulesView = (v: ViewAngle): CameraAngle => (v === 'back' ? 'front' : v);

/**
 * The views a rule judges from: those it names, plus the back when it judges from the front and
 * does not read the face (a chin over the bar, a raise to eye level), which the back hides.
 */
export function ruleViews(rule: Pick<FormRule, 'views' | 'readsFace'>): ViewAngle[] {
  return rule.views.includes('front') && !rule.readsFace ? [...rule.views, 'back'] : [...rule.views];
}

/** Whether a rule is judged from this view; where it is not, it is "not checked", never guessed. */
export const judgedFrom = (rule: Pick<FormRule, 'views' | 'readsFace'>, view: ViewAngle | 'unknown'): boolean =>
  view !== 'unknown' && ruleViews(rule).includes(view);

/**
 * The clip's camera angle, given the angle over all its reps' frames and each rep's own. Most
 * clips are filmed from one place: when two reps or more are all read from it, it is the clip's;
 * otherwise the angle over all the reps is the steadiest reading. A
 * clip whose reps fall into runs filmed from different places (a demo that fades from the front to
 * the side, a camera carried round) is reported from where it starts, as the labels of such clips
 * name it: the first run of two reps or more. A single rep read otherwise is noise, not a change;
 * a first rep read as most of the clip's reps are is the start (a rear diagonal read d, s, s, then
 * d for eight reps started, and stayed, at the diagonal).
 */
export function clipView(overall: ViewAngle | 'unknown', repViews: readonly (ViewAngle | 'unknown')[]): ViewAngle | 'unknown' {
  const runs: { view: ViewAngle; n: number }[] = [];
  for (const v of withoutLoneReadings(repViews.filter((v): v is ViewAngle => v !== 'unknown'))) {
    const last = runs[runs.length - 1];
    if (last && last.view === v) last.n++;
    else runs.push({ view: v, n: 1 });
  }
  // Seen from behind, BlazePose at times takes the person as facing the camera for a few reps (it
  // swaps their left and right): the shared face pulls, filmed from behind throughout, read two
  // reps at a diagonal before five from the back. A camera carried from the front round to the back
  // mid-set is far rarer than that swap, so a clip whose reps face away overall is a back view.
  if (overall === 'back') return overall;
  const settled = runs.filter((r) => r.n >= 2);
  // Every rep read from one place (a lone reading between two alike set aside): that place. The
  // medians pooled over all the reps' frames can fall across a boundary no rep crosses, each cue's
  // median coming from other frames: the side-on back squat filmed farther off read s, d, s, and
  // diagonal pooled.
  if (runs.length === 1 && runs[0]!.n >= 2) return runs[0]!.view;
  if (!settled.some((r) => r.view !== settled[0]!.view)) return overall;
  // A run of one rep is the start only when it agrees with the view most reps are read from (the
  // row: d, then s for two or three reps, then d for eight). Agreeing with any run of two, one
  // reading decided: the shared lateral raise filmed mirrored read s, d x7, s x3 and was named side
  // (diagonal as filmed, d x11).
  const reps = new Map<ViewAngle, number>();
  for (const r of runs) reps.set(r.view, (reps.get(r.view) ?? 0) + r.n);
  const most = [...reps].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
  return runs.find((r) => r.n >= 2 || r.view === most)!.view;
}

/**
 * Each rep's view with a lone reading between two reps read alike taken as theirs: a single rep
 * read otherwise is noise, not a camera move (see clipView), and it must not break the run it sits
 * in. A squat filmed where a diagonal turns into a side view read d d d s s s; with 5% of its
 * frames lost or the person slower or faster, d s d s s s, whose first run of two was then the side.
 */
export function withoutLoneReadings(views: readonly ViewAngle[]): ViewAngle[] {
  return views.map((v, i) => (i > 0 && i < views.length - 1 && views[i - 1] === views[i + 1] ? views[i - 1]! : v));
}

