// Push-up: the rep signal is how far the shoulders come down toward the hands, in arm lengths; it
// reads from the side and from the front. The gate (torso near horizontal) is what keeps a person
// talking to the camera with bent elbows from counting.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { KP } from '../pose.js';
import { angleAt, bestSide, joint, quantile, VISIBLE } from '../signals.js';
import { atPeak, bodyLine, bodyLying, clamp, elbowAngle, grade, headDown, over, round, wristDrop, bounceRule } from './common.js';

/** Hip offset from the shoulder-ankle line in degrees, positive when sagging below it. */
export function hipSag(f: FrameCtx): number {
  const b = bodyLine(f);
  return b ? (b.below ? b.bend : -b.bend) : NaN;
}

/** Arms-straight wrist drop of this clip (about 0.9 arm lengths below the shoulder). */
export function topWristDrop(frames: FrameCtx[]): number {
  return clamp(quantile(frames.filter((f) => bodyLying(f, 55)).map((f) => wristDrop(f)), 0.9), 0.6, 1.05) || 0.9;
}

/** Head angle against the torso line: positive when the head hangs below it. */
export function headDrop(f: FrameCtx): number {
  const s = bestSide(f.p, ['shoulder', 'hip', 'ear']);
  if (!s) return NaN;
  const sh = f.p[joint(s, 'shoulder')]!, hip = f.p[joint(s, 'hip')]!, ear = f.p[joint(s, 'ear')]!;
  if (Math.min(sh.score, hip.score, ear.score) < VISIBLE) return NaN;
  const straight = 180 - angleAt(hip, sh, ear);
  // Sign: is the ear below the hip->shoulder line extended?
  const dx = sh.x - hip.x;
  if (Math.abs(dx) < 1e-6) return NaN;
  const yAt = hip.y + ((ear.x - hip.x) / dx) * (sh.y - hip.y);
  return ear.y > yAt ? straight : -straight;
}

/** Elbow spread relative to shoulder width, seen from the front. */
export function elbowSpread(f: FrameCtx): number {
  const ls = f.p[KP.leftShoulder]!, rs = f.p[KP.rightShoulder]!, le = f.p[KP.leftElbow]!, re = f.p[KP.rightElbow]!;
  if (Math.min(ls.score, rs.score, le.score, re.score) < VISIBLE) return NaN;
  const sw = Math.abs(ls.x - rs.x);
  return sw > 0 ? Math.abs(le.x - re.x) / sw : NaN;
}

export const pushUp: ExerciseDef = {
  id: 'push-up',
  name: 'Push-up',
  description: 'Standard push-up: a straight plank from head to heels, chest lowered to just above the floor and pressed back up.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at floor level, 2-3 m away, so the line from shoulders to ankles and the elbow bend are visible.',
  filmingAdvice: 'Put the camera on the floor side-on, 2-3 m away, with head and feet in frame for the whole set.',
  signal: 'shoulder drop toward the hands in arm lengths, relative to the arms-straight top of this clip',
  calibrate: (frames) => ({ top: topWristDrop(frames) }),
  progress: (f, cal) => (cal.top! - wristDrop(f)) / 0.45,
  // 55 deg admits incline push-ups on a bar or a bench; anyone standing is near 90.
  gate: (f) => bodyLying(f, 55) || headDown(f),
  gateDescription: 'body in a plank: torso within 55 deg of horizontal, or the head no higher than the shoulders',
  rules: [
    {
      id: 'push-up-hips', category: 'alignment', name: 'Hips sagging or piking',
      correction: 'Squeeze the glutes and brace the abs so shoulders, hips and ankles stay in one straight line.',
      // From a diagonal the body line is foreshortened and every small bend looks larger.
      views: ['side'],
      check(rep) {
        // A sag is held through the rep; quartiles ignore the odd frame while getting into position.
        const sag = over(rep, hipSag, 0.75), pike = over(rep, hipSag, 0.25);
        if (!Number.isFinite(sag.value)) return undefined;
        if (sag.value > 15) {
          return { severity: grade(sag.value - 15, 8, 18), evidence: sag.index, description: `The hips sagged about ${round(sag.value)} deg below the shoulder-ankle line.` };
        }
        if (-pike.value > 15) {
          return { severity: grade(-pike.value - 15, 8, 18), evidence: pike.index, description: `The hips piked about ${round(-pike.value)} deg above the shoulder-ankle line.` };
        }
        return null;
      },
      strength: { category: 'alignment', name: 'Straight body line', description: 'Shoulders, hips and ankles stayed in line.' },
    },
    {
      id: 'push-up-range', category: 'range_of_motion', name: 'Shallow push-up',
      correction: 'Lower until the elbows reach about 90 deg and the chest is a fist above the floor.',
      views: ['side', 'diagonal', 'front'],
      check(rep) {
        const { value: elbow, index } = over(rep, elbowAngle, 0.1);
        if (rep.view !== 'front' && Number.isFinite(elbow)) {
          if (elbow <= 100) return null;
          return { severity: grade(elbow - 100, 10, 20), evidence: index, description: `The elbows bent only to about ${round(elbow)} deg at the bottom.` };
        }
        if (rep.peakProgress >= 1) return null;
        return { severity: 'minor', evidence: rep.peak, description: `The chest came down to about ${round(rep.peakProgress * 100)}% of the full depth.` };
      },
      strength: { category: 'range_of_motion', name: 'Deep push-up', description: 'Lowered to 90 deg elbows or below.' },
    },
    {
      id: 'push-up-head', category: 'posture', name: 'Head dropping',
      correction: 'Keep the neck long and the gaze slightly ahead of the hands, in line with the spine.',
      views: ['side'],
      check(rep) {
        // The ear sits above the shoulder joint, so a neutral neck already reads 20-40 deg here;
        // the median over the rep is compared with a limit above that range.
        const { value, index } = over(rep, headDrop, 0.5);
        if (!Number.isFinite(value)) return undefined;
        if (value <= 45) return null;
        return { severity: grade(value - 25, 10, 20), evidence: index, description: `The head dropped about ${round(value)} deg below the line of the spine.` };
      },
      strength: { category: 'posture', name: 'Neutral neck', description: 'Head stayed in line with the spine.' },
    },
    {
      id: 'push-up-elbow-flare', category: 'alignment', name: 'Elbows flaring',
      correction: 'Tuck the elbows to about 45 deg from the body instead of pointing them straight out.',
      views: ['front', 'diagonal'],
      check(rep) {
        const v = atPeak(rep, elbowSpread);
        if (!Number.isFinite(v)) return undefined;
        if (v <= 1.9) return null;
        return { severity: grade(v - 1.9, 0.3, 0.6), evidence: rep.peak, description: `At the bottom the elbows were ${v.toFixed(1)} shoulder widths apart, flared out to the sides.` };
      },
      strength: { category: 'alignment', name: 'Elbows tucked', description: 'Elbows stayed at a safe angle to the body.' },
    },
    bounceRule('push-up'),
  ],
};
