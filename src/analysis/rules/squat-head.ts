// The head's position during a squat ("bad_head" in the public squat sets: looking up, or the head
// dropping toward the chest), read against the person's own head and torso while standing at the
// rep's top, so neither the slant of the ear-eye line (which differs by face and by where the
// model puts the ear) nor the camera's height enters the reading.
import type { FrameCtx, RepView } from '../exercise.js';
import { KP, Z_SCALE } from '../pose.js';
import { joint, quantile, VISIBLE, type Side } from '../signals.js';
import { repSide, sustained } from './common.js';
import { legPitch } from './squat-level.js';

const deg = (r: number) => (r * 180) / Math.PI;
const seen = (f: FrameCtx, k: number) => f.p[k]!.score >= VISIBLE;

/**
 * A segment's rise (how far `to` stands above `from` in the picture) and its length, in 3D where
 * the model gives depth (z / Z_SCALE), else in the picture; null where either end is unseen. The
 * ends are the midpoints of the pairs given.
 */
function segment(f: FrameCtx, from: number[], to: number[], depth: boolean, pitch: number): { rise: number; len: number } | null {
  if (![...from, ...to].every((k) => seen(f, k))) return null;
  const at = (ks: number[], c: 'x' | 'y' | 'z') => ks.reduce((s, k) => s + (f.p[k]![c] ?? NaN), 0) / ks.length;
  const dx = at(to, 'x') - at(from, 'x'), dy = at(to, 'y') - at(from, 'y');
  const dz = depth ? (at(to, 'z') - at(from, 'z')) / Z_SCALE : 0;
  // Along the floor's vertical: the picture's tilted by the camera's pitch (squat-level.ts thighDrop).
  return Number.isFinite(dz) ? { rise: -(dy * Math.cos(pitch) + dz * Math.sin(pitch)), len: Math.hypot(dx, dy, dz) } : null;
}

/**
 * The head's line (the ears' midpoint to the eyes'; the rep's side's ear and eye without depth,
 * where the far ones are hidden) and the torso's (the hips' midpoint to the shoulders'; the rep's
 * side without depth), each as its rise and length. The ear-eye line lies near the level with the
 * head upright (the ear-nose line points some 15 deg below it), so a chin dropped to the chest at a
 * squat's lean stays short of pointing straight down, where the reading stops (headTurn): with the
 * nose, a stick figure's chin on its chest at 40 deg of lean read 19-36 deg of drop from the side and
 * a diagonal (camera pitches -15 to 20 deg), with the eyes 28-39.
 */
function lines(f: FrameCtx, side: Side, depth: boolean, pitch: number) {
  const ears = depth ? [KP.leftEar, KP.rightEar] : [joint(side, 'ear')];
  return {
    head: segment(f, ears, depth ? [KP.leftEye, KP.rightEye] : [side === 'left' ? KP.leftEye : KP.rightEye], depth, pitch),
    torso: depth ? segment(f, [KP.leftHip, KP.rightHip], [KP.leftShoulder, KP.rightShoulder], true, pitch) : segment(f, [joint(side, 'hip')], [joint(side, 'shoulder')], false, 0),
  };
}

/**
 * The rep's frames that stand at its top as the squat begins: before its peak, the stretch of
 * frames where its signal stays within a tenth of its peak of standing that is nearest the squat,
 * and in it the two where the signal is lowest; the same after the peak where the rep shows none
 * before it (the first or last three frames without the signal). Not the rep's lowest frames
 * wherever they are: a rep that begins with the person talking to the camera, head bowed toward a
 * phone on the floor, would be read against that (chdh_squat's first rep, on the ear-nose line,
 * read 51 deg raised against frames 6 s before its descent, 24 against the ones just before it). Not the stretch's
 * last frames either: the signal counts the knee bend from 170 deg, and the head and torso may
 * already be moving while it barely has. Not the rise's end: a head lowered after the rep, to put
 * a kettlebell down, is no part of it (chdh_squat's goblet squats end with the head about 14 deg
 * lower than they began).
 */
function standingFrames(rep: RepView, ok: (i: number) => boolean): number[] {
  const p = rep.progress, n = rep.frames.length;
  if (!p) {
    const first = rep.frames.map((_, i) => i).filter((i) => ok(i) && i < 3);
    return first.length >= 2 ? first : rep.frames.map((_, i) => i).filter((i) => ok(i) && i >= n - 3);
  }
  const standing = (i: number) => (p[i] ?? NaN) <= 0.1 * rep.peakProgress;
  const stretch = (step: 1 | -1) => {
    let i = rep.peak;
    while (i >= 0 && i < n && !standing(i)) i += step;
    const run: number[] = [];
    for (; i >= 0 && i < n && standing(i); i += step) if (ok(i)) run.push(i);
    return run.sort((a, b) => p[a]! - p[b]!).slice(0, 2);
  };
  const before = stretch(-1);
  return before.length >= 2 ? before : stretch(1);
}

export interface HeadTurn {
  /** How far the head pitched toward the chest beyond the torso's own added lean, deg. */
  drop: number;
  dropAt: number;
  /** How far the head tipped back (its line raised toward the vertical), beyond where it stood, deg. */
  up: number;
  upAt: number;
  /**
   * How far the head tipped back against the torso beyond where it stood, deg: the gaze's rise
   * plus the lean the torso gained (a level gaze at 40 deg of lean is 40 of neck extension).
   */
  extension: number;
  extensionAt: number;
}

/**
 * How the head moved in the lower half of a squat (the rep's signal past half its peak), against
 * where it stood as the squat began (the median over standingFrames), each as held for two frames
 * (sustained).
 *
 * The head's line is read by its tilt against the floor's vertical alone: the arcsine of its rise
 * over its length (the rep's 85th percentile, as for the thigh in squat-level.ts). The rise is the
 * same from any yaw and whichever way the head turns: people filmed from a diagonal look toward
 * the camera standing and ahead at the bottom, and the head's direction read in the torso's plane
 * through the model's depth guess called that turn a pitch (a good kaiakol squat read 22 deg
 * dropped). The length's depth part is only a scale. A line pitched past straight down reads as
 * less: the reading stops at the vertical. The torso, near the vertical, is read on each frame's
 * own 3D length instead (below).
 *
 * Null where the rep gives no two standing frames and two working frames with the head and torso
 * seen, or without depth unless the rep is seen side-on, where the picture holds the whole line.
 */
export function headTurn(rep: RepView): HeadTurn | null {
  const side = repSide(rep);
  if (!side) return null;
  const depth = rep.frames.some((f) => f.p[KP.nose]!.z !== undefined);
  // Without depth a line's length in the picture is its own only side-on; at a diagonal the
  // forward half of each line is drawn shorter and reads as a tilt (a flat picture of a stick
  // figure whose head stayed in line with its back read it 80 deg dropped at 45 deg of yaw, 36 at 60).
  if (!depth && rep.view !== 'side') return null;
  // The camera's pitch, read on the standing legs (squat-level.ts); level where it cannot be read.
  const pitch = depth ? legPitch(rep, side) : 0;
  const read = rep.frames.map((f) => lines(f, side, depth, Number.isFinite(pitch) ? pitch : 0));
  const headLen = quantile(read.map((r) => r.head?.len ?? NaN), 0.85);
  if (!(headLen > 0)) return null;
  // Degrees below the vertical: 0 pointing straight up, 90 level, 180 straight down (where seen).
  const tilt = (s: { rise: number } | null, len: number) => (s ? 90 - deg(Math.asin(Math.max(-1, Math.min(1, s.rise / len)))) : NaN);
  // The torso, near the vertical, on each frame's own length: there the arcsine of a rise against
  // one length for the rep turns a few percent of that length into tens of degrees (a torso drawn
  // 6% longer at the bottom, nearer a camera below the hips, read 20 deg of lean standing).
  const head = read.map((r) => tilt(r.head, headLen)), torso = read.map((r) => tilt(r.torso, r.torso?.len ?? NaN));
  const standing = standingFrames(rep, (i) => Number.isFinite(head[i]!) && Number.isFinite(torso[i]!));
  if (standing.length < 2) return null;
  const head0 = quantile(standing.map((i) => head[i]!), 0.5), torso0 = quantile(standing.map((i) => torso[i]!), 0.5);
  const p = rep.progress;
  const low = (_: FrameCtx, i: number) => (p ? (p[i] ?? NaN) >= 0.5 * rep.peakProgress : true);
  const index = new Map(rep.frames.map((f, i) => [f, i]));
  const at = (xs: number[]) => (f: FrameCtx) => xs[index.get(f)!]!;
  const h = at(head), t = at(torso);
  // Flexion of the head on the torso: the head's pitch down beyond what the torso's lean carried it.
  const drop = sustained(rep, (f) => h(f) - head0 - (t(f) - torso0), 'max', low);
  // The head tipped back, whatever the torso did: the gaze raised above where it was standing.
  const up = sustained(rep, (f) => head0 - h(f), 'max', low);
  // The neck's extension: the head tipped back against the torso (the drop's other side).
  const ext = sustained(rep, (f) => head0 - h(f) + (t(f) - torso0), 'max', low);
  if (!Number.isFinite(drop.value) || !Number.isFinite(up.value)) return null;
  return { drop: drop.value, dropAt: drop.index, up: up.value, upAt: up.index, extension: ext.value, extensionAt: ext.index };
}
