// Calf raise: standing on straight legs, the heels rise until the weight is on the balls of the
// feet. The signal is the ankle's height above the toe tip in shin lengths, a change of a few
// centimetres that only the body's own proportions can scale; BlazePose's toe points give it from
// the side and the front, and the whole-body rise (shoulders over the toes) backs it up.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { KP } from '../pose.js';
import { VISIBLE } from '../signals.js';
import { dwellFrames, dwellUnseen, extreme, kneeAngle, onRepSide, round, upright, rule } from './common.js';
import { feetInPicture } from './in-picture.js';

type Foot = 'left' | 'right';
const FEET: Foot[] = ['left', 'right'];
const TOE = { left: KP.leftToe, right: KP.rightToe } as const;
const ANKLE = { left: KP.leftAnkle, right: KP.rightAnkle } as const;
const SHOULDER = { left: KP.leftShoulder, right: KP.rightShoulder } as const;
const PAIRS = FEET.flatMap((foot) => FEET.map((shoulder) => [foot, shoulder] as const));

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

/**
 * Shoulders above the planted toes, in leg lengths: the whole body rises with the heels. One
 * shoulder over one foot's toe, or the seen shoulders over the seen toes.
 */
export function shouldersOverToes(f: FrameCtx, foot?: Foot, shoulder?: Foot): number {
  const toes = (foot ? [f.p[TOE[foot]]] : FEET.map((s) => f.p[TOE[s]])).filter((t) => t && t.score >= VISIBLE);
  const sh = (shoulder ? [f.p[SHOULDER[shoulder]]] : FEET.map((s) => f.p[SHOULDER[s]])).filter((k) => k && k.score >= VISIBLE);
  if (!toes.length || !sh.length || !(f.legLen > 0)) return NaN;
  const y = (ks: { y: number }[]) => ks.reduce((a, k) => a + k.y, 0) / ks.length;
  return (y(toes as { y: number }[]) - y(sh as { y: number }[])) / f.legLen;
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
 * Heel rise in units of a full raise (FULL_RAISE): the mean of the ankle over the toe and of the
 * shoulders over the toe. The ankle and toe points are small and noisy; the shoulders are steady
 * and rise by the same amount, so the two together hold up on real video. Each foot, and each
 * shoulder over each foot, is read against its own flat-footed level: with the camera above or
 * below them, or near, the far foot and the far shoulder are drawn higher or lower than the near
 * ones by up to several raises, and a reading that changed points when one dropped for a frame read
 * whole raises (the pinhole sweep, bench/camera-sweep.ts: blips at rest counted as reps, reps split
 * in two).
 */
export function calfProgress(f: FrameCtx, cal: Record<string, number>): number {
  const ankle = FEET.map((s) => (ankleOverToe(f, s) - (cal[`flat:${s}`] ?? cal.flat!)) / FULL_RAISE).filter(Number.isFinite);
  const body = PAIRS.map(([t, sh]) => (shouldersOverToes(f, t, sh) - (cal[`standing:${t}:${sh}`] ?? cal.standing!)) / FULL_RAISE).filter(Number.isFinite);
  const v = [ankle.length ? Math.max(...ankle) : NaN, body.length ? body.reduce((a, b) => a + b, 0) / body.length : NaN].filter(Number.isFinite);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

/** Flat-footed readings of this person, each point's own: the low end of the shot. */
function flatLevels(frames: FrameCtx[]): Record<string, number> {
  const cal: Record<string, number> = { flat: flatLevel(frames.map((f) => ankleOverToe(f)), 0.07), standing: flatLevel(frames.map((f) => shouldersOverToes(f)), NaN) };
  for (const s of FEET) cal[`flat:${s}`] = flatLevel(frames.map((f) => ankleOverToe(f, s)), cal.flat!);
  for (const [t, sh] of PAIRS) cal[`standing:${t}:${sh}`] = flatLevel(frames.map((f) => shouldersOverToes(f, t, sh)), cal.standing!);
  return cal;
}

export const calfRaise: ExerciseDef = {
  id: 'calf-raise',
  name: 'Calf raise',
  description: 'Standing calf raise: on straight legs, rise onto the balls of the feet as high as possible, pause, and lower the heels back down.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at ankle height: the heel rise is a few centimetres and shows best side-on and low.',
  filmingAdvice: 'Put the camera low (ankle to knee height) 2-3 m away, side-on, with the whole body and both feet in frame.',
  signal: 'ankle rise in leg lengths above the flat-footed stance (full raise 0.06, an 8 cm heel rise): the mean of the ankle over the toe tip and of the shoulders over the toes',
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
