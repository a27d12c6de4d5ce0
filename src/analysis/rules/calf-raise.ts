// Calf raise: standing on straight legs, the heels rise until the weight is on the balls of the
// feet. The signal is the body's height above the planted toe tips (heel, ankle, knee and hip, each
// over its own side's toe) in the frame's own hip-to-ankle height, a change of a few
// centimetres that only the body's own proportions can scale; BlazePose's toe points give it from
// the side and the front.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { KP } from '../pose.js';
import { VISIBLE } from '../signals.js';
import { dwellFrames, dwellUnseen, extreme, kneeAngle, onRepSide, round, upright, rule } from './common.js';
import { feetInPicture } from './in-picture.js';

type Foot = 'left' | 'right';
const FEET: Foot[] = ['left', 'right'];
const TOE = { left: KP.leftToe, right: KP.rightToe } as const;
const ANKLE = { left: KP.leftAnkle, right: KP.rightAnkle } as const;
const KNEE = { left: KP.leftKnee, right: KP.rightKnee } as const;

/** Ankle above its toe tip, in leg lengths: on one foot, or on the better-seen (higher) one; NaN without toe points. */
export function ankleOverToe(f: FrameCtx, foot?: Foot): number {
  if (!foot) {
    const v = FEET.map((s) => ankleOverToe(f, s)).filter(Number.isFinite);
    return v.length ? Math.max(...v) : NaN;
  }
  const A = f.p[ANKLE[foot]], T = f.p[TOE[foot]];
  if (!A || !T || Math.min(A.score, T.score) < VISIBLE || !(f.legLen > 0)) return NaN;
  return (T.y - A.y) / f.legLen;
}

const HEEL = { left: KP.leftHeel, right: KP.rightHeel } as const;
const HIP = { left: KP.leftHip, right: KP.rightHip } as const;

/** The heel rises this much for the ankle's 1: the foot pivots on its ball, the ankle 70% of the way to the heel. */
const HEEL_PER_ANKLE = 1 / 0.7;

/** The points that rise with the heels, per side, each with its rise for the ankle's 1 (the shoulders left out: bodyRise). */
const risers = (side: Foot): [number, number][] => [[ANKLE[side], 1], [KNEE[side], 1], [HIP[side], 1], [HEEL[side], HEEL_PER_ANKLE]];
// Built once: they are read for every point of every frame.
const RISERS = { left: risers('left'), right: risers('right') } as const;
/** Each riser's rise per unit of the ankle's, by keypoint. */
const RISE_PER_ANKLE = new Map(FEET.flatMap((s) => RISERS[s]));

/**
 * One point's height above its own side's toe tip, in pixels, per unit of the ankle's rise (the
 * heel's divided by HEEL_PER_ANKLE); NaN when either is unseen.
 */
export function pointOverToePx(f: FrameCtx, side: Foot, k: number, cal: Record<string, number> = {}): number {
  const T = f.p[TOE[side]], q = f.p[k], per = RISE_PER_ANKLE.get(k)!;
  if (!T || !q || Math.min(T.score, q.score) < VISIBLE) return NaN;
  return ((cal[`toe:${side}@${f.t}`] ?? T.y) - q.y) / per;
}

/**
 * One side's hip-to-ankle height, pixels: nothing in it changes length in a raise (hip and ankle
 * rise together), and it is the leg, the length FULL_RAISE is in. Not the shoulder-to-knee height:
 * a phone 2 m up and 1.5 m away sees the heels' rise foreshortened more than the upper body, and
 * read full raises at 0.45 against it (camera-sweep --phone: 4 of 12 counted); the shin alone
 * carried too much keypoint noise (still sweep: own start counted on 34 of 63 cameras).
 */
export function legHeight(f: FrameCtx, side: Foot): number {
  const H = f.p[HIP[side]], A = f.p[ANKLE[side]];
  return H && A && Math.min(H.score, A.score) >= VISIBLE && A.y > H.y ? A.y - H.y : NaN;
}

/**
 * The picture's scale at each frame: each side's hip-to-ankle height averaged over 0.5 s
 * around it, keyed `scale:<side>@<ms>` in the calibration (the only way a per-frame progress reads
 * a quantity averaged over time); the planted toes the same, `toe:<side>@<ms>`. The frame's own
 * scale, not the shot's leg length (windowed over 10 s): swaying 3 cm toward a phone 3 m away
 * changes the picture's scale by 1%, and the shoulders 1.4 m above the toes then read 0.27 of a
 * raise against a fixed length (issue 20zc: a person standing still counted on 21-22 of 63
 * cameras, bench/still-sweep.ts). Averaged because one frame's height carries two points' noise;
 * 0.5 s keeps 90% of a sway at 0.5 Hz.
 */
function scaleSeries(frames: FrameCtx[], cal: Record<string, number>) {
  const averaged = (h: number[], key: string) => frames.forEach((f, i) => {
    if (!Number.isFinite(h[i]!)) return;
    const w: number[] = [];
    for (let j = i; j >= 0 && f.t - frames[j]!.t <= 250; j--) if (Number.isFinite(h[j]!)) w.push(h[j]!);
    for (let j = i + 1; j < frames.length && frames[j]!.t - f.t <= 250; j++) if (Number.isFinite(h[j]!)) w.push(h[j]!);
    cal[`${key}@${f.t}`] = w.reduce((a, b) => a + b, 0) / w.length;
  });
  // Each side's own: filmed close, the far side is drawn smaller, and a mean over the sides seen
  // changed by 6% when a far point came into view (a reading 0.4 of a raise off at rest).
  for (const s of FEET) averaged(frames.map((f) => legHeight(f, s)), `scale:${s}`);
  // The planted toe, the reference of every reading, averaged the same: it does not move in a
  // raise, and its keypoint noise would otherwise be in every point's reading at once.
  for (const s of FEET) averaged(frames.map((f) => { const T = f.p[TOE[s]]; return T && T.score >= VISIBLE ? T.y : NaN; }), `toe:${s}`);
}

/** One point over its toe (pointOverToePx) in its side's scale at the frame (scaleSeries; the frame's own height without one). */
export function pointOverToe(f: FrameCtx, side: Foot, k: number, cal: Record<string, number> = {}): number {
  const scale = cal[`scale:${side}@${f.t}`] ?? legHeight(f, side);
  return pointOverToePx(f, side, k, cal) / scale;
}

/**
 * The body's rise over the toes, in full raises: every point that rises with the heels (RISERS:
 * ankle, knee, hip, heel) over its own side's toe, in the frame's scale, each against its own
 * flat-footed level, averaged. Everything from the heel to the hip rises by the ankle's rise while
 * the toe stays planted, so each point is a reading of the same rise, and their mean over both
 * sides holds less keypoint noise than the ankle alone over the toe. Each against its own level, so
 * a point lost for a frame changes the mean by its noise, not by its height; each side's points
 * over that side's toe, as from above or below the far side is drawn higher or lower than the near
 * one. Not the shoulders: breathing lifts them a centimetre, a fifth of a raise, and a look down at
 * the phone drops them (docs/engine.md, issue 20zc).
 */
export function bodyRise(f: FrameCtx, cal: Record<string, number>): number {
  const v: number[] = [];
  for (const s of FEET) for (const [k] of RISERS[s]) {
    const x = (pointOverToe(f, s, k, cal) - cal[`standing:${s}:${k}`]!) / FULL_RAISE;
    if (Number.isFinite(x)) v.push(x);
  }
  // Three points at least: one or two carry their whole keypoint noise.
  return v.length >= 3 ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

/** The low end of a series over a shot: the flat-footed reading. */
const flatLevel = (v: number[], fallback: number) => {
  const xs = v.filter(Number.isFinite).sort((a, b) => a - b);
  return xs.length ? xs[Math.floor(xs.length * 0.1)]! : fallback;
};

/**
 * A full raise as the ankle (and the body over it) rises, in leg lengths: 0.06, about 5.5 cm. The
 * foot pivots on its ball, and the ankle sits about 70% of the way from the ball to the heel, so
 * it rises about 0.7 of the heel: a full 8 cm heel rise lifts it 5.5 cm. (0.1, the heel's own rise
 * taken for the ankle's, read ordinary raises on never-seen clips at under half a raise: nine
 * attempts, none valid.)
 */
export const FULL_RAISE = 0.06;

/**
 * Heel rise in units of a full raise: the body over the toes (bodyRise), or where fewer than
 * three of its points are seen, the better-seen ankle over its toe (in FULL_RAISE). Issue 20zc: the reading before was the mean of the ankle over the toe
 * (one point's keypoint noise over another's: +-3 px is a quarter of a raise 3 m away) and of the
 * shoulders over the toes in the shot's leg length (1% of the picture's scale, a 3 cm sway toward
 * a phone 3 m away, read 0.27 of a raise; breathing lifts the shoulders a centimetre).
 */
export function calfProgress(f: FrameCtx, cal: Record<string, number>): number {
  const b = bodyRise(f, cal);
  if (Number.isFinite(b)) return b;
  const ankle = FEET.map((s) => (ankleOverToe(f, s) - (cal[`flat:${s}`] ?? cal.flat!)) / FULL_RAISE).filter(Number.isFinite);
  return ankle.length ? Math.max(...ankle) : NaN;
}

/** Flat-footed readings of this person, each point's own: the low end of the shot. */
function flatLevels(frames: FrameCtx[]): Record<string, number> {
  const cal: Record<string, number> = { flat: flatLevel(frames.map((f) => ankleOverToe(f)), 0.07) };
  scaleSeries(frames, cal);
  for (const s of FEET) {
    cal[`flat:${s}`] = flatLevel(frames.map((f) => ankleOverToe(f, s)), cal.flat!);
    for (const [k] of RISERS[s]) cal[`standing:${s}:${k}`] = flatLevel(frames.map((f) => pointOverToe(f, s, k, cal)), NaN);
  }
  return cal;
}

export const calfRaise: ExerciseDef = {
  id: 'calf-raise',
  name: 'Calf raise',
  description: 'Standing calf raise: on straight legs, rise onto the balls of the feet as high as possible, pause, and lower the heels back down.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at ankle height: the heel rise is a few centimetres and shows best side-on and low.',
  filmingAdvice: 'Put the camera low (ankle to knee height) 2-3 m away, side-on, with the whole body and both feet in frame.',
  signal: 'rise of the heels, ankles, knees and hips over the planted toe tips above the flat-footed stance, in the frame\'s own hip-to-ankle height (full raise 0.06: 5.5 cm of ankle, an 8 cm heel rise)',
  calibrate: flatLevels,
  progress: calfProgress,
  gate: (f) => upright(f, 25) && !(kneeAngle(f) < 140),
  gateDescription: 'standing tall on nearly straight legs',
  rules: [
    rule({
      id: 'calf-raise-height', category: 'range_of_motion', name: 'Partial raise',
      correction: 'Rise as high as you can onto the balls of the feet on every rep.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        // The rise is the ankles': a framing that cuts the feet off guesses them.
        if (!feetInPicture(rep)) return undefined;
        return judge.fault(0.9 - rep.peakProgress, 0.15, 0.3, { evidence: rep.peak, description: `The heels rose to about ${round(rep.peakProgress * 100)}% of a full raise.` });
      },
      strength: { category: 'range_of_motion', name: 'Full raise', description: 'Rose high onto the balls of the feet.' },
    }),
    rule({
      id: 'calf-raise-knees', category: 'technique', name: 'Bending the knees',
      correction: 'Keep the legs straight so the calves, not a knee dip, lift the body.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        if (!feetInPicture(rep)) return undefined;
        const { value, index } = extreme(rep, onRepSide(rep, kneeAngle), 'min');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(160 - value, 8, 15, { evidence: index, description: `The knees bent to about ${round(value)} deg during the raise.` });
      },
      strength: { category: 'technique', name: 'Straight legs', description: 'The calves did the work.' },
    }),
    rule({
      id: 'calf-raise-pause', category: 'tempo', name: 'Bouncing',
      correction: 'Pause for a moment at the top and lower the heels slowly.',
      views: ['side', 'diagonal', 'front'],
      check(rep) {
        const p = rep.progress;
        if (!p || !rep.valid) return undefined;
        const fps = (rep.frames.length - 1) / Math.max(0.05, rep.durationS);
        // Interpolated crossings (dwellFrames): the same hold reads the same wherever the frames fell.
        const held = dwellFrames(p, rep.peakProgress, 0.1) / fps;
        if (held >= 0.15 || rep.durationS >= 1) return null;
        // A top that runs into unseen frames may have been held through them: not measured.
        if (dwellUnseen(p, rep.peakProgress, 0.1)) return undefined;
        return { severity: 'minor', evidence: rep.peak, description: `The top was held for about ${held.toFixed(1)} s in a ${rep.durationS.toFixed(1)} s rep.` };
      },
      strength: { category: 'tempo', name: 'Controlled tempo', description: 'Paused at the top.' },
    }),
  ],
};
