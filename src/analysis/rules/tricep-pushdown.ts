// Triceps pushdown (cable or band): upper arms pinned at the sides, the forearms extend from
// about 90 deg to straight down. The signal is the elbow opening, blended with the hands' drop
// below the elbows in forearm lengths, which reads from the front where the elbow angle is
// foreshortened.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { joint, VISIBLE, type Side } from '../signals.js';
import { elbowAngle, extreme, onRepSide, over, round, upright, rule } from './common.js';
import { leanInPicture } from './in-picture.js';
import { upperArmDrift } from './bicep-curl.js';

/** Wrist below its elbow in forearm lengths (about 0.45 of the arm): 0 forearm level, 1 hanging. */
export function handBelowElbow(f: FrameCtx, s: Side): number {
  const el = f.p[joint(s, 'elbow')]!, wr = f.p[joint(s, 'wrist')]!;
  if (Math.min(el.score, wr.score) < VISIBLE || !(f.armLen > 0)) return NaN;
  return (wr.y - el.y) / (0.47 * f.armLen);
}

export function armPushdownProgress(f: FrameCtx, s: Side): number {
  const v = [(elbowAngle(f, s) - 85) / 80, (handBelowElbow(f, s) - 0.2) / 0.75].filter(Number.isFinite);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

export function pushdownProgress(f: FrameCtx): number {
  const v = (['left', 'right'] as const).map((s) => armPushdownProgress(f, s)).filter(Number.isFinite);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

/** Elbows at the sides, below the shoulders (not a press overhead). */
function elbowsDown(f: FrameCtx): boolean {
  return (['left', 'right'] as const).some((s) => {
    const sh = f.p[joint(s, 'shoulder')]!, el = f.p[joint(s, 'elbow')]!;
    return Math.min(sh.score, el.score) >= VISIBLE && el.y > sh.y;
  });
}

export const tricepPushdown: ExerciseDef = {
  id: 'tricep-pushdown',
  name: 'Triceps pushdown',
  description: 'Cable or band pushdown: elbows pinned at the sides, the hands push down until the arms are straight, then return to about 90 deg.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at chest height: the elbow path and the lock-out are clearest there; a front view still counts.',
  filmingAdvice: 'Place the camera 2-3 m away at chest height, side-on, with the head, hands and hips in frame.',
  signal: 'elbow opening (85 to 165 deg) blended with the hands dropping below the elbows',
  progress: (f) => pushdownProgress(f),
  progressSides: (f) => [armPushdownProgress(f, 'left'), armPushdownProgress(f, 'right')],
  // A pushdown swings the forearm through 60 deg or more: a rep rises 0.3 of the signal (about 24
  // deg of elbow and a quarter of a forearm of hand drop) at the least. The arm held at 90 deg
  // reads 0.1-0.2 of noise (sway, drift, +-3 px), and the far arm, lost a frame now and then
  // from the side, read "tops hidden" on that noise: 30 of 63 takes of a person holding the
  // start counted 1-8 reps (bench/still-sweep.ts). Real reps rise 0.65 or more.
  minRise: 0.3,
  gate: (f) => upright(f, 40) && elbowsDown(f),
  gateDescription: 'standing, torso within 40 deg of vertical, elbows below the shoulders',
  rules: [
    rule({
      id: 'pushdown-lockout', category: 'range_of_motion', name: 'Incomplete extension',
      correction: 'Push until the arms are fully straight and squeeze the triceps at the bottom.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = extreme(rep, onRepSide(rep, elbowAngle), 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(155 - value, 10, 25, { evidence: index, description: `The elbows straightened only to about ${round(value)} deg.` });
      },
      strength: { category: 'range_of_motion', name: 'Full lock-out', description: 'Arms straight at the bottom.' },
    }),
    rule({
      id: 'pushdown-elbows', category: 'technique', name: 'Elbows drifting',
      correction: 'Keep the upper arms pinned to the sides; only the forearms move.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const { value, index } = over(rep, (f) => upperArmDrift(f), 0.9);
        if (!Number.isFinite(value)) return undefined;
        const limit = rep.view === 'front' ? 35 : 30;
        return judge.fault(value - limit, 10, 20, { evidence: index, description: `The upper arms moved about ${round(value)} deg away from the body.` });
      },
      strength: { category: 'technique', name: 'Elbows pinned', description: 'Upper arms stayed at the sides.' },
    }),
    rule({
      id: 'pushdown-lean', category: 'posture', name: 'Leaning over the handle',
      correction: 'Stand tall with a slight hinge; do not fold over to push with body weight.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = extreme(rep, leanInPicture(rep), 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 30, 8, 15, { evidence: index, description: `The torso folded about ${round(value)} deg forward during the push.` });
      },
      strength: { category: 'posture', name: 'Tall posture', description: 'Torso stayed upright.' },
    }),
  ],
};
