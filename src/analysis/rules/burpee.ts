// Burpee: from standing, drop the hands to the floor, jump or step back to a plank, return the
// feet and jump up. The rep is the trip from standing down to the floor and back, so the signal
// is how far the shoulders come down toward the feet, in leg lengths: about 1.5 standing and under
// 0.5 in the plank, from any side. The jump and the plank are judged by the rules.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { pairPoint, quantile } from '../signals.js';
import { bodyLine, extreme, repSide, round, torsoLean, rule } from './common.js';
import { perFrame, rollingLevel, storePerFrame } from './body.js';

/** Shoulders above the lower of the ankles, in leg lengths. */
export function shoulderHeight(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder'), an = pairPoint(f.p, 'ankle');
  return sh && an && f.legLen > 0 ? (an.y - sh.y) / f.legLen : NaN;
}

/** The shoulders' height in the picture, in leg lengths down from its top (larger = lower). */
export function shoulderLevel(f: FrameCtx): number {
  const sh = pairPoint(f.p, 'shoulder');
  return sh && f.legLen > 0 ? sh.y / f.legLen : NaN;
}

export const burpee: ExerciseDef = {
  id: 'burpee',
  name: 'Burpee',
  description: 'Burpee: from standing, hands to the floor, feet back to a plank, feet back in, and jump up with the arms overhead.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side so the plank line and the jump are visible; a front view still counts the reps.',
  filmingAdvice: 'Place the camera 3-4 m away at hip height, side-on, with room for the plank and the jump in frame.',
  signal: 'shoulder height above the ankles, in leg lengths, from standing (0) down to the plank (1), or the shoulders\' drop from the standing level of the surrounding seconds where that reads deeper',
  calibrate: (frames) => storePerFrame({ standing: quantile(frames.map(shoulderHeight), 0.9) || 1.5 }, 'up', frames, rollingLevel(frames, shoulderLevel, 0.1, -Infinity, Infinity, NaN)),
  // The deeper of the shoulders' height over the feet and their drop from the standing level of
  // the surrounding seconds (both against the same scale). Filmed from behind or the rear diagonal
  // by a phone 1-2 m up and 1.5 m away, the feet jumping back toward it are drawn a whole leg lower
  // in the picture, and the height over the feet read standing again in the plank (1.47 standing,
  // 0.82 squatting, 1.84 in the plank from behind 2 m up): two reps a burpee. The drop reads the
  // plank low throughout; from the front the feet going away are drawn higher, and the height over
  // them reads deeper than the drop.
  progress: (f, cal) => {
    const scale = Math.max(0.6, cal.standing! - 0.4);
    const overFeet = (cal.standing! - shoulderHeight(f)) / scale;
    const drop = (shoulderLevel(f) - perFrame(cal, 'up', f)) / scale;
    return Number.isFinite(drop) && Number.isFinite(overFeet) ? Math.max(overFeet, drop) : overFeet;
  },
  // Every posture belongs to a burpee; the count's own range check keeps noise out.
  gate: () => true,
  gateDescription: 'none: standing, squatting and the plank are all part of the movement',
  rules: [
    rule({
      id: 'burpee-jump', category: 'range_of_motion', name: 'No jump at the top',
      correction: 'Finish each rep with a jump: feet off the floor and arms overhead.',
      views: ['side', 'diagonal', 'front'],
      check(rep) {
        // The feet leave the floor in the last part of the rep: the ankles rise above their floor level.
        const tail = rep.frames.slice(Math.floor(rep.frames.length * 0.55));
        const ankleY = (f: FrameCtx) => pairPoint(f.p, 'ankle')?.y ?? NaN;
        const floor = quantile(rep.frames.map(ankleY), 0.9);
        const scale = quantile(rep.frames.map((f) => f.legLen), 0.5);
        if (!Number.isFinite(floor) || !(scale > 0) || tail.length < 2) return undefined;
        const lift = (floor - quantile(tail.map(ankleY), 0.05)) / scale;
        if (lift >= 0.06) return null;
        const at = rep.frames.length - tail.length + tail.reduce((b, f, i) => (ankleY(f) < ankleY(tail[b]!) ? i : b), 0);
        return { severity: 'minor', evidence: at, description: 'The feet barely left the floor at the top of the rep.' };
      },
      strength: { category: 'range_of_motion', name: 'Full jump', description: 'Jumped at the top of every rep.' },
    }),
    rule({
      id: 'burpee-plank', category: 'alignment', name: 'Hips sagging in the plank',
      correction: 'Land the plank with the abs braced so shoulders, hips and ankles make one line.',
      views: ['side'],
      check(rep, judge) {
        const side = repSide(rep);
        const { value, index } = extreme(rep, (f) => { const l = bodyLine(f, side); return l && l.below && shoulderHeight(f) < 0.6 ? l.bend : NaN; }, 'max');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 20, 8, 18, { evidence: index, description: `In the plank the hips sagged about ${round(value)} deg below the shoulder-ankle line.` });
      },
      strength: { category: 'alignment', name: 'Solid plank', description: 'Body straight in the plank.' },
    }),
    rule({
      id: 'burpee-stand', category: 'range_of_motion', name: 'Not standing tall',
      correction: 'Stand all the way up, hips and chest open, before dropping into the next rep.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const ends = [rep.frames[0]!, rep.frames[rep.frames.length - 1]!].map(torsoLean).filter(Number.isFinite);
        if (!ends.length) return undefined;
        const v = Math.min(...ends);
        return judge.fault(v - 25, 10, 20, { evidence: 0, description: `Between reps the torso stayed about ${round(v)} deg forward of upright.` });
      },
      strength: { category: 'range_of_motion', name: 'Full stand', description: 'Stood tall between reps.' },
    }),
  ],
};
