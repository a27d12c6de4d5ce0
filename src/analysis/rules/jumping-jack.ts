// Jumping jack: arms sweep from the sides to overhead while the feet jump apart. The signal is the
// wrist height (hanging about 0.9 arm lengths below the shoulder -> overhead about 0.6 above).
import type { Calibration, ExerciseDef, FrameCtx } from '../exercise.js';
import { KP } from '../pose.js';
import { dist, joint, quantile, VISIBLE, type Side } from '../signals.js';
import { atPeak, extreme, squareOn, upright, wristDrop, rule } from './common.js';
import { handsInPicture } from './in-picture.js';

/** The upper arm's share of the arm (shoulder-elbow over shoulder-elbow-wrist) when none is measured. */
const UPPER_ARM_SHARE = 0.55;

/** The upper arm's share of the arm over the frames that show a whole arm (median), per clip. */
export function upperArmShare(frames: readonly FrameCtx[]): number {
  const shares = frames.flatMap((f) => (['left', 'right'] as Side[]).map((s) => {
    const [sh, el, wr] = (['shoulder', 'elbow', 'wrist'] as const).map((j) => f.p[joint(s, j)]!);
    if (Math.min(sh!.score, el!.score, wr!.score) < VISIBLE) return NaN;
    const upper = dist(sh!, el!), fore = dist(el!, wr!);
    return upper + fore > 0 ? upper / (upper + fore) : NaN;
  }));
  const share = quantile(shares, 0.5);
  return Number.isFinite(share) ? share : UPPER_ARM_SHARE;
}

/**
 * One arm's drop below the shoulder in arm lengths: the wrist's, or with the wrist unseen the
 * elbow's over the upper arm's length. A jumping jack's arm is straight, so both read the same
 * height; the hands leave the picture first (overhead, out of its top, when filmed close), and a
 * signal read on the wrists alone then loses whole reps: the shared front-view sets lost 2 of 12
 * and 4 of 19 with the hands unseen one second in five (bench/augment.ts pose:crop-hands).
 */
function armDrop(f: FrameCtx, s: Side, cal: Calibration, edge = false): number {
  const wrist = wristDrop(f, s);
  if (Number.isFinite(wrist)) return wrist;
  const sh = f.p[joint(s, 'shoulder')]!, el = f.p[joint(s, 'elbow')]!;
  const upper = f.armLen * (cal.upperArmShare ?? UPPER_ARM_SHARE);
  if (sh.score < VISIBLE || !(upper > 0)) return NaN;
  if (el.score >= VISIBLE) return (el.y - sh.y) / upper;
  // `edge`: an elbow unseen where the model places it above the picture (y < 0) under a shoulder
  // seen inside it rose at least to the picture's top edge: the drop is read there, a bound that
  // never reads the arm higher than it was (straight up at most).
  return edge && el.y < 0 && sh.y > 0 ? Math.max(-1, -sh.y / upper) : NaN;
}

/** The arms' height, 0 hanging to 1 overhead; `edge`: an arm gone out of the picture's top read at its edge (armDrop). */
export function armsUp(f: FrameCtx, cal: Calibration = {}, edge = false): number {
  const v = [armDrop(f, 'left', cal, edge), armDrop(f, 'right', cal, edge)].filter(Number.isFinite);
  return v.length ? (0.85 - v.reduce((a, b) => a + b, 0) / v.length) / 1.35 : NaN;
}

/**
 * The legs' reach out from the body in leg lengths (front view): each ankle's distance outward of
 * its own hip (outward: away from the other hip), averaged over the sides seen. Per side, so that a
 * framing that cuts one foot off (a phone 1.5 m away, turned off the person) still reads the other.
 */
export function legsOut(f: FrameCtx): number {
  if (!(f.legLen > 0)) return NaN;
  const lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
  if (Math.min(lh.score, rh.score) < VISIBLE || lh.x === rh.x) return NaN;
  const v = (['left', 'right'] as Side[]).flatMap((s) => {
    const [hip, other] = s === 'left' ? [lh, rh] : [rh, lh];
    const ankle = f.p[joint(s, 'ankle')]!;
    return ankle.score >= VISIBLE ? [((ankle.x - hip.x) * Math.sign(hip.x - other.x)) / f.legLen] : [];
  });
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

/**
 * Least sweep of the legs over a clip (legsOut's 10th to 90th percentile, leg lengths) that stands
 * for the jack's cycle where the arms are unseen: feet that stay put read within a few hundredths.
 * The clean demo's legs (jackAt, feet 60) sweep 0.25 from the front, 0.22 at 30 deg, 0.13 at 60
 * deg, none side-on (test/analysis/cut-off-phone.unit).
 */
const MIN_LEGS_SWEEP = 0.1;

/** The clip's own legs at rest and out (legsOut, 10th and 90th percentiles), when they sweep enough. */
export function legsRange(frames: readonly FrameCtx[]): Calibration {
  const v = frames.map(legsOut);
  const rest = quantile(v, 0.1), out = quantile(v, 0.9);
  return Number.isFinite(rest) && Number.isFinite(out) && out - rest >= MIN_LEGS_SWEEP ? { legsRest: rest, legsOut: out } : {};
}

/**
 * The jack's progress: the arms' height where an arm is seen, else the legs' spread on this
 * person's own scale (their feet together = 0, their widest jump = 1), else the arms read at the
 * picture's top edge they went out of (armDrop `edge`). A jack moves arms and legs together, and
 * the arms leave the picture first: a phone 1.5 m away has the hands and elbows out of its top for
 * the upper half of every rep, and the arms alone read a quarter of the range (16zd: 38 of 432
 * clean sets through phones had "Partial repetition"). Where the legs do not sweep (a set done with
 * the arms alone, a side view that hides the spread) or are cut off too (a landscape phone 1.5 m
 * away spans a metre of height), the edge stands in.
 */
export function jackProgress(f: FrameCtx, cal: Calibration = {}): number {
  const arms = armsUp(f, cal);
  if (Number.isFinite(arms)) return arms;
  const legs = cal.legsRest !== undefined && cal.legsOut !== undefined ? (legsOut(f) - cal.legsRest) / (cal.legsOut - cal.legsRest) : NaN;
  return Number.isFinite(legs) ? legs : armsUp(f, cal, true);
}

/** Ankle spread over shoulder width (front view). */
export function stanceWidth(f: FrameCtx): number {
  const la = f.p[KP.leftAnkle]!, ra = f.p[KP.rightAnkle]!, ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!;
  if (Math.min(la.score, ra.score, ls.score, rs.score) < VISIBLE) return NaN;
  const sw = Math.abs(ls.x - rs.x);
  return sw > 0 ? Math.abs(la.x - ra.x) / sw : NaN;
}

/**
 * The legs' spread past the hips in leg lengths (front view): half the ankles' spread beyond the
 * hips' over the drawn leg (hip-knee-ankle), the sine of each straight leg's angle out from
 * vertical. Unlike the stance over the shoulders it does not depend on how broad the shoulders
 * are against the hips: a stick figure 13 % broader in the shoulders than the one the limits were
 * set on, jumping its legs out as far, read 0.2 shoulder widths narrower (test/analysis/builds.unit).
 */
export function legSpread(f: FrameCtx): number {
  const la = f.p[KP.leftAnkle]!, ra = f.p[KP.rightAnkle]!, lh = f.p[KP.leftHip]!, rh = f.p[KP.rightHip]!;
  if (Math.min(la.score, ra.score, lh.score, rh.score) < VISIBLE || !(f.legLen > 0)) return NaN;
  return (Math.abs(la.x - ra.x) - Math.abs(lh.x - rh.x)) / (2 * f.legLen);
}

/** Wrists above the top of the head (nose as its proxy), in arm lengths. */
export function handsAboveHead(f: FrameCtx): number {
  const n = f.p[KP.nose]!;
  const ws = [f.p[KP.leftWrist]!, f.p[KP.rightWrist]!].filter((w) => w.score >= VISIBLE);
  if (n.score < VISIBLE || !ws.length || !(f.armLen > 0)) return NaN;
  return (n.y - Math.max(...ws.map((w) => w.y))) / f.armLen;
}

export const jumpingJack: ExerciseDef = {
  id: 'jumping-jack',
  name: 'Jumping jack',
  description: 'Jumping jacks: jump the feet wide while sweeping the arms overhead, then jump back to feet together, arms down.',
  recommendedAngle: 'front',
  angleAdvice: 'Film from the front with the whole body and the hands overhead in frame, so both arms and the stance width are visible.',
  filmingAdvice: 'Face the camera from 3-4 m away; leave room above the head for the hands and below the feet.',
  signal: 'wrist height (the elbow\'s where a wrist is unseen; with both arms out of the picture, the legs\' spread on the person\'s own scale): arms hanging = 0, hands overhead = 1',
  calibrate: (frames) => ({ upperArmShare: upperArmShare(frames), ...legsRange(frames) }),
  progress: (f, cal) => jackProgress(f, cal),
  // Fast sets reach 2 Hz: at 10 fps a rep is five frames and its top is often missed.
  sampleFps: 15,
  thresholds: { enter: 0.4, exit: 0.25, full: 0.75 },
  gate: (f) => upright(f, 30),
  gateDescription: 'standing upright, torso within 30 deg of vertical',
  rules: [
    rule({
      id: 'jj-arms', category: 'range_of_motion', name: 'Arms not overhead',
      correction: 'Sweep the arms all the way up until the hands meet above the head.',
      views: ['front', 'diagonal', 'side'],
      check(rep, judge) {
        // Hands that reach the picture's edge (a close framing's top) are placed by the model's guess.
        if (!handsInPicture(rep)) return undefined;
        // At 10 fps the top of a fast jack can fall between frames, so the highest frame is used.
        const { value: v, index } = extreme(rep, handsAboveHead, 'max');
        if (!Number.isFinite(v)) return undefined;
        const fault = judge.verdict(0.1 - v, 0.15, 0.3);
        return fault && { ...fault, evidence: index, description: 'The hands stopped at or below head height.' };
      },
      strength: { category: 'range_of_motion', name: 'Full arm sweep', description: 'Hands reached overhead.' },
    }),
    rule({
      id: 'jj-stance', category: 'range_of_motion', name: 'Narrow jump',
      correction: 'Jump the feet out wider than the shoulders on every rep.',
      // Widths read true only square-on: from a diagonal every stance looks narrow.
      views: ['front'],
      check(rep, judge) {
        // The rep's own yaw too: a back view takes the front's rules at any yaw.
        if (!squareOn(rep)) return undefined;
        const v = atPeak(rep, stanceWidth);
        if (!Number.isFinite(v)) return undefined;
        // The cue is the shoulders' width, and people's shoulders differ from their hips: a jump is
        // narrow only where the legs' own spread (legSpread) is short too. Its limit is the stance
        // limit on the figure the rules were set on (shoulders 1.7 hip widths, legs 2.9: 1.3
        // shoulder widths is 0.215 leg lengths; the bands likewise, 0.3 -> 0.09).
        const legs = atPeak(rep, legSpread);
        const margin = Number.isFinite(legs) ? Math.min((1.3 - v) / 0.3, (0.215 - legs) / 0.09) : (1.3 - v) / 0.3;
        const fault = judge.verdict(margin, 1, 2);
        return fault && { ...fault, evidence: rep.peak, description: `The feet landed only ${v.toFixed(1)} shoulder widths apart at the top.` };
      },
      strength: { category: 'range_of_motion', name: 'Wide stance', description: 'Feet jumped wider than the shoulders.' },
    }),
    rule({
      id: 'jj-rhythm', category: 'tempo', name: 'Rushed or stalled rep',
      correction: 'Keep an even rhythm, about one jack per second, landing softly on the balls of the feet.',
      views: ['front', 'diagonal', 'side'],
      check(rep, judge) {
        // Judged against this person's own pace in the set: a slow, even set is a choice, a rep
        // taking twice as long as the others is a stall. A single jack or two has no pace to keep.
        const set = rep.setDurationsS ?? [];
        if (set.length < 3) return undefined;
        const typical = quantile(set, 0.5);
        const ratio = rep.durationS / typical;
        return judge.fault(ratio - 2, 0.5, 1.5, { evidence: rep.peak, description: `This rep took ${rep.durationS.toFixed(1)} s against ${typical.toFixed(1)} s for the others; the rhythm stalled.` });
      },
      strength: { category: 'tempo', name: 'Steady rhythm', description: 'Kept an even pace.' },
    }),
  ],
};
