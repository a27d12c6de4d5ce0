// Bicep curl: the wrist rises from a hanging arm to the shoulder. The signal is the wrist's
// height relative to the shoulder in arm lengths, taken on the arm that curls higher, which works
// from the front and the side and for alternating curls.
import type { ExerciseDef, FrameCtx, RepView } from '../exercise.js';
import { joint, pairPoint, quantile, VISIBLE, type Side } from '../signals.js';
import { atEnds, elbowAngle, extreme, over, round, upright, wristDrop, rule } from './common.js';
import { jointsInPicture, leanInPicture } from './in-picture.js';

/** Progress of one arm: 0.9 arm lengths below the shoulder = rest, 0.25 = fully curled. */
const armProgress = (f: FrameCtx, s: Side) => (0.9 - wristDrop(f, s)) / 0.6;

export function curlProgress(f: FrameCtx): number {
  const v = [armProgress(f, 'left'), armProgress(f, 'right')].filter(Number.isFinite);
  return v.length ? Math.max(...v) : NaN;
}

/**
 * Upper-arm angle from hanging straight down, per side, degrees. The vertical drop from shoulder
 * to elbow against the upper arm's full length (its longest over the rep) gives the angle from
 * any side: side-on the elbow visibly swings forward, front-on the upper arm shortens as the
 * elbow comes toward the camera. The smaller of the two arms is taken, so one arm hidden or
 * misread does not invent a drift.
 */
export function upperArmDrift(f: FrameCtx, full?: Record<Side, number>): number {
  const sides: Side[] = ['left', 'right'];
  const v = sides.map((s) => {
    const sh = f.p[joint(s, 'shoulder')]!, el = f.p[joint(s, 'elbow')]!;
    if (Math.min(sh.score, el.score) < VISIBLE) return NaN;
    const len = Math.max(full?.[s] ?? 0, Math.hypot(el.x - sh.x, el.y - sh.y));
    return len > 0 ? (Math.acos(Math.max(-1, Math.min(1, (el.y - sh.y) / len))) * 180) / Math.PI : NaN;
  }).filter(Number.isFinite);
  return v.length ? Math.min(...v) : NaN;
}

/** Each upper arm's full length over the rep (a high quantile, robust to one misread frame). */
function upperArmLengths(rep: RepView): Record<Side, number> {
  const len = (s: Side) => quantile(rep.frames.map((f) => {
    const sh = f.p[joint(s, 'shoulder')]!, el = f.p[joint(s, 'elbow')]!;
    return Math.min(sh.score, el.score) >= VISIBLE ? Math.hypot(el.x - sh.x, el.y - sh.y) : NaN;
  }), 0.9);
  return { left: len('left'), right: len('right') };
}

/**
 * Torso swing over the rep, degrees. Side-on it is the range of the lean; front-on a rock forward
 * or back shortens the torso in the image, so the shortest against the longest gives the angle.
 */
function torsoSwing(rep: RepView): { value: number; index: number } {
  // Only frames whose shoulders and hips are inside the picture (a curl filmed from the chest up
  // has its hips guessed).
  const lean = leanInPicture(rep);
  if (rep.view === 'side' || rep.view === 'diagonal') {
    const max = extreme(rep, lean, 'max'), min = extreme(rep, lean, 'min');
    return { value: max.value - min.value, index: max.index };
  }
  const rise = (f: FrameCtx) => {
    const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip');
    return sh && hip && jointsInPicture(rep, f, ['shoulder', 'hip']) ? hip.y - sh.y : NaN;
  };
  const long = quantile(rep.frames.map(rise), 0.9), short = extreme(rep, rise, 'min');
  if (!(long > 0) || !Number.isFinite(short.value)) return { value: NaN, index: rep.peak };
  return { value: (Math.acos(Math.max(-1, Math.min(1, short.value / long))) * 180) / Math.PI, index: short.index };
}

export const bicepCurl: ExerciseDef = {
  id: 'bicep-curl',
  name: 'Bicep curl',
  description: 'Dumbbell or barbell curl: elbows pinned at the sides, the weight curls from straight arms up to the shoulders.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at chest height so the elbow path and the torso swing are visible; a front view also works for counting.',
  filmingAdvice: 'Place the camera 2-3 m away at chest height with the upper body, arms and hips in frame.',
  signal: 'wrist height toward the shoulder in arm lengths, on the arm that curls higher',
  progress: (f) => curlProgress(f),
  progressSides: (f) => [armProgress(f, 'left'), armProgress(f, 'right')],
  gate: (f) => upright(f, 35),
  gateDescription: 'standing or sitting upright, torso within 35 deg of vertical',
  rules: [
    rule({
      id: 'curl-top', category: 'range_of_motion', name: 'Incomplete curl',
      correction: 'Curl until the forearm is vertical and the weight reaches shoulder height.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        return judge.fault(0.95 - rep.peakProgress, 0.1, 0.2, { evidence: rep.peak, description: `The weight rose to about ${round(rep.peakProgress * 100)}% of a full curl.` });
      },
      strength: { category: 'range_of_motion', name: 'Full contraction', description: 'Curled all the way up.' },
    }),
    rule({
      id: 'curl-extension', category: 'range_of_motion', name: 'Arms not straightening',
      correction: 'Lower under control until the arms are straight before the next rep.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const v = atEnds(rep, elbowAngle);
        if (!Number.isFinite(v)) return undefined;
        return judge.fault(145 - v, 15, 30, { evidence: 0, description: `The elbows only opened to about ${round(v)} deg between reps.` });
      },
      strength: { category: 'range_of_motion', name: 'Full extension', description: 'Arms straightened at the bottom.' },
    }),
    rule({
      id: 'curl-elbow-drift', category: 'technique', name: 'Elbows drifting forward',
      correction: 'Pin the elbows to the sides; only the forearms should move.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const full = upperArmLengths(rep);
        const drift = (f: FrameCtx) => upperArmDrift(f, full);
        // The 90th percentile: a held drift, not one frame where the elbow was misread.
        const { value: top, index } = over(rep, drift, 0.9);
        if (!Number.isFinite(top)) return undefined;
        // Drifting is the elbow moving during the rep, so it is read from where the upper arm sat
        // at the rep's start and end: hanging in a standing curl (about 0, as before), but resting
        // forward on the pad in a preacher curl, or on the thigh in a concentration curl, where an
        // upper arm held still 40-50 deg forward is the exercise, not a fault.
        const ends = [...rep.frames.slice(0, 2), ...rep.frames.slice(-2)].map(drift).filter(Number.isFinite);
        const value = top - (ends.length ? Math.max(0, Math.min(...ends)) : 0);
        // Front-on the angle comes from foreshortening: clean curls read about 15 deg there.
        const limit = rep.view === 'front' ? 32 : 30;
        return judge.fault(value - limit, 10, 20, { evidence: index, description: `The upper arm swung about ${round(value)} deg away from the body.` });
      },
      strength: { category: 'technique', name: 'Elbows pinned', description: 'Upper arms stayed still.' },
    }),
    rule({
      id: 'curl-swing', category: 'posture', name: 'Body swing',
      correction: 'Brace the core and keep the torso still; lighten the weight if you need momentum.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const { value: swing, index } = torsoSwing(rep);
        if (!Number.isFinite(swing)) return undefined;
        const limit = rep.view === 'front' ? 18 : 10;
        return judge.fault(swing - limit, 5, 12, { evidence: index, description: `The torso rocked through about ${round(swing)} deg during the rep.` });
      },
      strength: { category: 'posture', name: 'Still torso', description: 'No momentum from the body.' },
    }),
  ],
};
