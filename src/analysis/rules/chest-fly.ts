// Chest fly (cable crossover, pec deck, dumbbell fly): arms slightly bent and fixed, the hands
// sweep from wide open to together in front of the chest and back. The signal is the gap between
// the hands in arm lengths (with depth, so a fly seen from the side still reads) against the open
// position of the surrounding seconds: 0 open, 1 with the gap closed by 70% of that.
import type { Calibration, ExerciseDef, FrameCtx } from '../exercise.js';
import { elbowAngle, extreme, onRepSide, over, round, rule } from './common.js';
import { leanInPicture } from './in-picture.js';
import { perFrame, rollingLevel, storePerFrame } from './body.js';
import { handGap } from './reach.js';

export const chestFly: ExerciseDef = {
  id: 'chest-fly',
  name: 'Chest fly',
  description: 'Cable crossover, pec-deck or dumbbell fly: elbows softly bent and fixed, sweep the hands from wide open to together in front of the chest, then open under control until the chest stretches. Film from the front at chest height, 2-3 m away, with both hands at their widest in frame.',
  recommendedAngle: 'front',
  angleAdvice: 'Film from the front at chest height: how far the hands open and meet, and the elbow bend, are clearest there; from the side the count still reads.',
  filmingAdvice: 'Place the camera 2-3 m away at chest height, facing the person, with both hands at their widest, the head and the hips in frame.',
  signal: 'hand gap (with depth) against the open gap of the surrounding seconds: 0 open, 1 at 70% closed',
  calibrate(frames) {
    return storePerFrame({}, 'open', frames, rollingLevel(frames, handGap, 0.9, 0.8, 3, 1.8));
  },
  progress: (f: FrameCtx, cal: Calibration) => (perFrame(cal, 'open', f) - handGap(f)) / (0.7 * perFrame(cal, 'open', f)),
  // Sitting or standing; the fly itself sets no posture beyond a torso off the floor.
  gate: (f) => Number.isFinite(handGap(f)),
  gateDescription: 'both hands seen',
  rules: [
    rule({
      id: 'fly-squeeze', category: 'range_of_motion', name: 'Hands not meeting',
      correction: 'Bring the hands together in front of the chest and squeeze for a moment.',
      views: ['front', 'diagonal'],
      check(rep, judge) {
        return judge.fault(0.9 - rep.peakProgress, 0.15, 0.3, { evidence: rep.peak, description: `The hands closed about ${round(rep.peakProgress * 100)}% of the way together.` });
      },
      strength: { category: 'range_of_motion', name: 'Full squeeze', description: 'Brought the hands together.' },
    }),
    rule({
      id: 'fly-pressing', category: 'technique', name: 'Pressing instead of flying',
      correction: 'Keep the elbow bend fixed and slight; bending and straightening the arms turns the fly into a press.',
      views: ['front', 'diagonal', 'side'],
      check(rep, judge) {
        // The elbow's range over the rep: a fly holds it, a press opens and closes it.
        const elbow = onRepSide(rep, elbowAngle);
        const hi = over(rep, elbow, 0.9), lo = over(rep, elbow, 0.1);
        if (!Number.isFinite(hi.value) || !Number.isFinite(lo.value)) return undefined;
        const range = hi.value - lo.value;
        return judge.fault(range - 45, 15, 30, { evidence: lo.index, description: `The elbows bent and straightened through about ${round(range)} deg during the rep.` });
      },
      strength: { category: 'technique', name: 'Fixed elbows', description: 'Held the elbow bend through the sweep.' },
    }),
    rule({
      id: 'fly-swing', category: 'posture', name: 'Body swinging',
      correction: 'Keep the torso still; the arms alone sweep the handles together.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const lean = leanInPicture(rep), max = extreme(rep, lean, 'max'), min = extreme(rep, lean, 'min');
        if (!Number.isFinite(max.value) || !Number.isFinite(min.value)) return undefined;
        const swing = max.value - min.value;
        return judge.fault(swing - 12, 6, 12, { evidence: max.index, description: `The torso rocked through about ${round(swing)} deg during the rep.` });
      },
      strength: { category: 'posture', name: 'Still torso', description: 'The torso stayed still.' },
    }),
  ],
};
