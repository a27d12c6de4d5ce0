// Sit-up: from lying, the torso curls up until it is near vertical. The signal is how high the
// shoulders stand above the hips, in torso lengths: from the side that is the sine of the torso
// angle, and from the feet (where the angle in the image is always near vertical) the lying torso
// is foreshortened, so the same measure still rises from near 0 to near 1.
import type { Calibration, ExerciseDef, FrameCtx, RepView } from '../exercise.js';
import { HEAD_SIDE_YAW, headDrop } from './push-up.js';
import { atPeak, extreme, kneeAngle, onRepSide, over, repSide, repYaw, round, torsoElevation, hipHeight, rule } from './common.js';
import { feetInPicture, repInPicture } from './in-picture.js';
import { ankleY } from './squat.js';
import { dist, joint, pairPoint, VISIBLE, windowedScale } from '../signals.js';
import { halfWindow, perFrame, storePerFrame } from './body.js';

export function shoulderRise(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip');
  return sh && hip && f.torsoLen > 0 ? (hip.y - sh.y) / f.torsoLen : NaN;
}

/**
 * The least torso length a sit-up's rise is read in, in shoulder breadths (joint to joint). The
 * torso length (exercise.ts, the q85 of the last and next 5 s) is the picture's: filmed from the
 * head or the feet with the person lying still for 5 s or more, the torso is drawn end-on, 0.02-0.3
 * shoulder breadths long from the head end and 0.3-0.95 from the feet (test/analysis/camera.ts
 * figure, whose torso is one breadth), and its vertical extent reads as most of that length: a body
 * lying still read 0.8-1.2 of a sit-up and sway and noise over it whole sit-ups
 * (bench/still-sweep.ts: 15 of 63 takes of the start held counted 1-6, and around a set most of
 * the 12 misses counted one more, on the lying before or after the set). The shoulder breadth is
 * square-on exactly there and does not shorten when the torso lies down. Over a set, where the
 * window holds the torso sitting up, the torso reads at least 0.51 breadths (from the head end 2 m
 * up and 1.5 m away, the shoulders nearer the phone than the hips); a broad-shouldered build (13%
 * broader, figure3d.ts) 0.45. 0.4 stays under both, so the torso length decides wherever a sit-up
 * is seen; 0.75 read that set's sit-ups at 0.3 of full (bench/camera-sweep.ts 0 of 3).
 */
export const TORSO_PER_BREADTH = 0.4;

/** Shoulder breadth, joint to joint, pixels: NaN unless both shoulders are seen. */
export function shoulderBreadth(f: FrameCtx): number {
  const l = f.p[joint('left', 'shoulder')], r = f.p[joint('right', 'shoulder')];
  return l && r && Math.min(l.score, r.score) >= VISIBLE ? dist(l, r) : NaN;
}

/**
 * Per frame, the shoulder breadth over the same 5 s either side as the torso length (its q85): a
 * shoulder the model loses for a frame, or one hidden from the side, leaves the window's.
 */
export function situpCalibration(frames: FrameCtx[]): Calibration {
  return storePerFrame({}, 'breadth', frames, windowedScale(frames.map(shoulderBreadth), halfWindow(frames, 5)));
}

/** The torso length a sit-up's rise is read in: the picture's, or TORSO_PER_BREADTH of the shoulder breadth when that is more. */
export function situpScale(f: FrameCtx, cal: Calibration): number {
  const breadth = perFrame(cal, 'breadth', f);
  return Number.isFinite(breadth) ? Math.max(f.torsoLen, TORSO_PER_BREADTH * breadth) : f.torsoLen;
}

/**
 * The least rise of a sit-up attempt in its own signal (ExerciseDef.minRise): the torso lifted
 * about 8 deg off its lying 15 (sin 23 - sin 15 is 0.13 torso lengths, 0.2 of the 0.65 the signal
 * spans), short of a crunch's shoulder blades off the floor. Held still from the feet or the head
 * at floor height, where the torso is drawn end-on, sway, breathing and +-5 px still rise 0.15-0.25
 * over the lying (bench/still-sweep.ts --stats); real sit-ups rise 0.36 or more (q02), one done to
 * a fifth of the way up 0.25.
 */
export const SITUP_MIN_RISE = 0.2;

/** 0 lying (rise about sin 15 deg), 1 sitting up (about sin 65 deg). */
export function situpProgress(f: FrameCtx, cal: Calibration = {}): number {
  const sh = pairPoint(f.p, 'shoulder'), hip = pairPoint(f.p, 'hip'), scale = situpScale(f, cal);
  return sh && hip && scale > 0 ? ((hip.y - sh.y) / scale - 0.26) / 0.65 : NaN;
}

/**
 * The shoulders and hips, the joints the signal and the torso's angle read, stay inside the picture
 * over the rep. A phone on the floor 1.5 m away (landscape, a metre of height across) has the
 * shoulders out of its top for the upper half of a sit-up: the torso's angle there, and the moment
 * the rep turned, went unseen (16zd: clean sit-ups "Not sitting all the way up" read 56-58 deg at
 * the last frame seen, and "Dropping back down" timing the way up to the end of the gap).
 */
export const torsoInPicture = (rep: RepView): boolean => repInPicture(rep, ['shoulder', 'hip']);

/** Hips near the floor: hips below shoulders' top position and about level with the ankles. */
export function seatedOrLying(f: FrameCtx): boolean {
  const hip = pairPoint(f.p, 'hip'), knee = pairPoint(f.p, 'knee');
  if (!hip || !knee) return false;
  // Standing people have the hips far above the ankles; on the floor hips are near ankle level.
  const h = hipHeight(f);
  return !(h > 0.6);
}

export const sitUp: ExerciseDef = {
  id: 'sit-up',
  name: 'Sit-up',
  description: 'Full sit-up from lying on the back, knees bent: curl the torso up until it is upright, then lower under control.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at floor level so the torso angle, the head and the feet are visible.',
  filmingAdvice: 'Put the camera on the floor side-on, 2-3 m away, with head, hips and feet in frame.',
  signal: 'shoulder height above the hips in torso lengths (at least 0.4 shoulder breadths): 0.26 lying, 0.91 sitting up',
  calibrate: situpCalibration,
  progress: situpProgress,
  minRise: SITUP_MIN_RISE,
  gate: (f) => seatedOrLying(f),
  gateDescription: 'on the floor, hips near ankle height',
  rules: [
    rule({
      id: 'situp-range', category: 'range_of_motion', name: 'Not sitting all the way up',
      correction: 'Come up until the chest is over the thighs and the torso is upright.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        if (!torsoInPicture(rep)) return undefined;
        const { value, index } = extreme(rep, torsoElevation, 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(70 - value, 8, 15, { evidence: index, description: `The torso rose to about ${round(value)} deg from the floor.` });
      },
      strength: { category: 'range_of_motion', name: 'Full sit-up', description: 'Torso came fully upright.' },
    }),
    rule({
      id: 'situp-neck', category: 'posture', name: 'Pulling on the neck',
      correction: 'Keep the chin a fist away from the chest and lift with the abs, not the hands.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        // A neutral neck already reads 50-65 deg against the shoulder-hip line (the ear sits in
        // front of the shoulder joint when curled up), so only a clearly tucked chin is flagged.
        // Judged where the body's midline plane faces the camera (push-up.ts HEAD_SIDE_YAW): seen
        // obliquely the head's turn off the back's line is drawn larger or smaller with the
        // camera's height and the torso foreshortened; a clean sit-up's neutral neck filmed from
        // 30-45 deg off the feet on the floor read past the limit on every rep
        // (test/analysis/first-nine-faults.unit).
        if (repYaw(rep) < HEAD_SIDE_YAW) return undefined;
        const side = repSide(rep);
        const { value, index } = over(rep, (f) => -headDrop(f, side), 0.5);
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 75, 10, 20, { evidence: index, description: `The head was pulled about ${round(value)} deg forward of the spine.` });
      },
      strength: { category: 'posture', name: 'Neutral neck', description: 'Head stayed in line with the torso.' },
    }),
    rule({
      id: 'situp-descent', category: 'tempo', name: 'Dropping back down',
      correction: 'Lower the torso slowly, taking at least as long as on the way up.',
      views: ['side', 'diagonal', 'front'],
      readsReturn: true,
      check(rep) {
        // The peak is where the top was seen: with the shoulders out of the picture it is not.
        if (!torsoInPicture(rep)) return undefined;
        const up = rep.frames[rep.peak]!.t - rep.frames[0]!.t;
        const down = rep.frames[rep.frames.length - 1]!.t - rep.frames[rep.peak]!.t;
        if (up <= 0 || down >= 0.6 * up) return null;
        return { severity: 'minor', evidence: rep.peak, description: `The way down took ${(down / 1000).toFixed(1)} s against ${(up / 1000).toFixed(1)} s up.` };
      },
      strength: { category: 'tempo', name: 'Controlled descent', description: 'Lowered under control.' },
    }),
    rule({
      id: 'situp-feet', category: 'stability', name: 'Feet lifting',
      correction: 'Keep the feet flat on the floor; anchor them or bend the knees more if they lift.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        if (!feetInPicture(rep)) return undefined;
        const start = ankleY(rep.frames[0]!);
        if (!Number.isFinite(start)) return undefined;
        // Feet lift when the torso comes up, so the rise is read at the top of the rep.
        const value = atPeak(rep, (f) => (start - ankleY(f)) / f.legLen), index = rep.peak;
        if (!Number.isFinite(value) || !(onRepSide(rep, kneeAngle)(rep.frames[0]!) < 150)) return undefined;
        return judge.fault(value - 0.15, 0.05, 0.1, { evidence: index, description: 'The feet came off the floor as the torso rose.' });
      },
      strength: { category: 'stability', name: 'Feet anchored', description: 'Feet stayed down.' },
    }),
  ],
};
