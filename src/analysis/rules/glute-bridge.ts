// Glute bridge: lying on the back, knees bent, the hips lift until shoulders, hips and knees line
// up. The signal is the hip angle (shoulder-hip-knee) above its resting value in this clip: how far
// the hip rests open depends on where the feet are set, the lift is about 35-50 deg on any setup.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { joint, quantile, VISIBLE, type Side } from '../signals.js';
import { atPeak, bodyLying, clamp, dwellFrames, dwellUnseen, extreme, hipAngle, kneeAngle, onRepSide, repSide, round, sideOn, graded, rule } from './common.js';
import { hipAngleSeen, kneeAngleSeen } from './end-on.js';
import { repInPicture } from './in-picture.js';

/** Lying with the knees bent; the knee read in 3D end-on (end-on.ts kneeAngleSeen), where the picture draws it straight. */
const bridgeGate = (f: FrameCtx) => bodyLying(f, 45) && kneeAngleSeen(f) < 140;

/**
 * Resting hip angle: the low end of the hip angles seen while lying with bent knees. The angle is
 * end-on.ts hipAngleSeen's: filmed from the feet or the head the picture's hip angle is the
 * projection's (a bridge from the feet read 18 deg at rest and 93 at the top, from the head 153 and
 * 162), so there it is read in 3D (129 and 165: the 35 deg of a full rep).
 */
export function restingHipAngle(frames: FrameCtx[]): number {
  return clamp(quantile(frames.filter(bridgeGate).map((f) => hipAngleSeen(f)), 0.1), 95, 150) || 125;
}

export const bridgeProgress = (f: FrameCtx, rest = 125) => (hipAngleSeen(f) - rest) / 35;

/**
 * The hip angle (shoulder-hip-knee) past straight read as past it: over 180 deg with the hips
 * pushed through the shoulder-knee line (on the side of it away from the ankle, which lies on the
 * floor beyond the knee). The plain angle folds back at 180, so a bridge whose hips pass the line
 * reads its top twice, as two brief moments at 180 with a dip between: a bridge with the feet set
 * far, held 0.6 s at the top, read "No pause at the top" on 24 of its 32 reps side-on and on all
 * 64 from 45-60 deg (test/analysis/first-nine-faults.unit). The counter keeps the plain angle
 * (bridgeProgress).
 */
export function hipExtension(f: FrameCtx, s: Side): number {
  const a = hipAngle(f, s);
  if (!Number.isFinite(a)) return NaN;
  const [sh, hip, kn, an] = (['shoulder', 'hip', 'knee', 'ankle'] as const).map((j) => f.p[joint(s, j)]!);
  if (an!.score < VISIBLE) return a;
  const side = (p: { x: number; y: number }) => (kn!.x - sh!.x) * (p.y - sh!.y) - (kn!.y - sh!.y) * (p.x - sh!.x);
  return side(hip!) * side(an!) < 0 ? 360 - a : a;
}

/**
 * The shin's tilt from square to the floor, degrees: positive with the ankle further toward the
 * feet' end than the knee (feet set far), negative with it pulled in toward the hips (feet close).
 * The floor is the line from the shoulder to the ankle, both on it in a bridge, so a camera that
 * is not level reads the same.
 */
export function shinTilt(f: FrameCtx, s: Side): number {
  const [sh, kn, an] = (['shoulder', 'knee', 'ankle'] as const).map((j) => f.p[joint(s, j)]!);
  if (Math.min(sh!.score, kn!.score, an!.score) < VISIBLE) return NaN;
  const fx = an!.x - sh!.x, fy = an!.y - sh!.y, len = Math.hypot(fx, fy);
  if (!(len > 0)) return NaN;
  const vx = an!.x - kn!.x, vy = an!.y - kn!.y;
  const along = (vx * fx + vy * fy) / len, across = Math.abs(vx * fy - vy * fx) / len;
  return (Math.atan2(along, across) * 180) / Math.PI;
}

/**
 * Good foot placement: at the top the shin leans at most this far in toward the hips (heels pulled
 * under the knees) or out past square (feet walked away). The far end keeps where the knee-angle
 * band it replaced ended (115 deg: about 40 deg of shin at a thigh sloping 25 deg); the near end
 * was 70 deg, a shin still 5 deg out, so a square shin was "too close".
 */
export const SHIN_IN_LIMIT = 25;
export const SHIN_OUT_LIMIT = 40;

export const gluteBridge: ExerciseDef = {
  id: 'glute-bridge',
  name: 'Glute bridge',
  description: 'Hip bridge from the floor: lying on the back with knees bent, drive the hips up until shoulders, hips and knees form a line.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at floor level so the line from shoulders through hips to knees is visible.',
  filmingAdvice: 'Put the camera on the floor side-on, 2 m away, with shoulders, hips, knees and feet in frame.',
  signal: 'hip extension angle (shoulder-hip-knee) above its resting value in the clip; 35 deg of lift is a full rep',
  calibrate: (frames) => ({ rest: restingHipAngle(frames) }),
  progress: (f, cal) => bridgeProgress(f, cal.rest),
  // Shoulders on the floor (torso low) and knees bent: rules out standing hip extension.
  gate: bridgeGate,
  gateDescription: 'lying on the back with knees bent, torso within 45 deg of horizontal',
  rules: [
    rule({
      id: 'bridge-extension', category: 'range_of_motion', name: 'Hips not fully extended',
      correction: 'Drive through the heels and squeeze the glutes until the hips line up with shoulders and knees.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // A knee (or shoulder, or hip) the picture's edge cuts off is the pose model's guess: a
        // phone 1.5-2.5 m away with the body off-centre cuts the knees off, and a clean bridge read
        // 0.1-2.6 band short of straight hips from 12 of 360 phones (16zd). Not checked, as the
        // feet rule is.
        if (!repInPicture(rep, ['shoulder', 'hip', 'knee'], repSide(rep) ?? undefined)) return undefined;
        const { value, index } = extreme(rep, onRepSide(rep, hipExtension), 'max');
        if (!Number.isFinite(value)) return undefined;
        const fault = judge.verdict(165 - value, 8, 15);
        return fault && { ...fault, evidence: index, description: `The hips opened only to about ${round(value)} deg at the top.` };
      },
      strength: { category: 'range_of_motion', name: 'Full hip extension', description: 'Hips reached a straight line.' },
    }),
    rule({
      id: 'bridge-feet', category: 'setup', name: 'Foot placement',
      correction: 'Set the heels about a forearm length from the glutes so the shins are vertical at the top.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // The shin's angle in the picture is the true one only with the leg's plane seen flat.
        if (!sideOn(rep)) return undefined;
        // The correction asks for shins square to the floor at the top, so that is what is read:
        // the knee's angle it replaced (70-115 deg) also holds the thigh's slope, which runs up
        // 20-30 deg from the hips to the knees at the top of a bridge, so a vertical shin read
        // 60-70 deg and was "feet too close" (a trainer's bridge, lenagalanova: 53-56 deg, the
        // shin 11 deg in from square). The feet must be in the picture: a cut-off ankle is a guess.
        if (!repInPicture(rep, ['ankle', 'knee'], repSide(rep) ?? undefined)) return undefined;
        // At the top, the median of the peak frame and its neighbours: one frame's knee is not the stance.
        const v = atPeak(rep, onRepSide(rep, shinTilt));
        if (!Number.isFinite(v)) return undefined;
        const excess = Math.max(-v - SHIN_IN_LIMIT, v - SHIN_OUT_LIMIT);
        if (judge.pastLimit(excess, 10) <= 0) return null;
        return { ...graded(excess, 10, 20), evidence: rep.peak,
          description: v > 0 ? `The shins leaned ${round(v)} deg past square to the floor at the top: the feet are too far away.` : `The shins leaned ${round(-v)} deg back toward the hips at the top: the feet are too close.` };
      },
      strength: { category: 'setup', name: 'Good foot position', description: 'Shins near vertical at the top.' },
    }),
    rule({
      id: 'bridge-hold', category: 'tempo', name: 'No pause at the top',
      correction: 'Hold the top for a full second while squeezing the glutes before lowering.',
      // Not from the feet (or the head) end: there shoulders, hips and knees lie along the line of
      // sight and the hip angle is a few pixels' guess. Filmed from the feet, a bridge bounced
      // through its top was faulted on none of 8 cameras, and one held 0.6 s at the top with the
      // feet set far or close was faulted on 8 of 32 reps (test/analysis/first-nine-faults.unit).
      views: ['side', 'diagonal'],
      check(rep) {
        const hip = onRepSide(rep, hipExtension);
        const top = extreme(rep, hip, 'max').value;
        if (!Number.isFinite(top)) return undefined;
        // The time within 6 deg of the top from interpolated crossings (dwellFrames), not a count
        // of frames: at 12 fps the same hold read two frames or three by where the frames fell.
        const fps = rep.frames.length / Math.max(0.1, rep.durationS);
        const hips = rep.frames.map(hip);
        const held = dwellFrames(hips, top, 6) / fps;
        // Only a top that is not held at all (a bounce through it) is a fault; a short squeeze is fine.
        if (held >= 0.2) return null;
        // A top that runs into frames where the hip angle is unseen may have been held through them.
        if (dwellUnseen(hips, top, 6)) return undefined;
        return { severity: 'minor', evidence: rep.peak, description: `The top was held for only about ${held.toFixed(1)} s.` };
      },
      strength: { category: 'tempo', name: 'Controlled top', description: 'Paused at the top.' },
    }),
  ],
};
