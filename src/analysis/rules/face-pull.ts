// Face pull (rope on a high cable): standing tall, the hands pull the rope from straight arms in
// front toward the face, elbows high and flaring out, then return. The signal is the pull of a row
// (hand distance from the shoulder with depth, blended with the elbow bend): from behind, where it
// is often filmed, the arms reach away from the camera and only the depth shows their length.
import type { ExerciseDef, FrameCtx } from '../exercise.js';
import { extreme, repSide, round, sideOn, upright, rule } from './common.js';
import { leanInPicture } from './in-picture.js';
import { dropBelowShoulder, maxOf } from './body.js';
import { pullProgress } from './bent-over-row.js';
import { elbowFlare, meanFinite } from './reach.js';

/** The elbows' height against the shoulders at the end of the pull (arm lengths, + below). */
const elbowDrop = (f: FrameCtx) => maxOf([dropBelowShoulder(f, 'left', 'elbow'), dropBelowShoulder(f, 'right', 'elbow')]);

export const facePull: ExerciseDef = {
  id: 'face-pull',
  name: 'Face pull',
  description: 'Cable face pull with a rope at head height: standing tall, pull the rope toward the face with the elbows high and out, hands finishing beside the ears, then straighten the arms under control. Film from the side at shoulder height, 2-3 m away, with the head, hands and hips in frame; from behind, the count and the elbow height still read.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at shoulder height: how far the hands come back and the elbow height are clearest there; from behind the count and the elbow height read, the arm extension less well.',
  filmingAdvice: 'Place the camera 2-3 m away at shoulder height, with the head, both hands, the elbows and the hips in frame.',
  signal: 'the row\'s pull (hand distance from the shoulder with depth, blended with the elbow bend) on the arm that pulls further, blended with the elbow flare (1.2 to 2.1 shoulder widths)',
  // Filmed from behind, the straight arms hide in front of the body; the elbows, flaring out to
  // about twice the shoulder width at the end of each pull, still show it.
  progress: (f) => maxOf([maxOf([pullProgress(f, 'left'), pullProgress(f, 'right')]), (elbowFlare(f) - 1.2) / 0.9]),
  gate: (f) => upright(f, 35),
  gateDescription: 'standing upright, torso within 35 deg of vertical',
  rules: [
    rule({
      id: 'face-pull-range', category: 'range_of_motion', name: 'Short pull',
      correction: 'Pull until the hands are beside the ears and the elbows are behind the shoulders.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        return judge.fault(0.8 - rep.peakProgress, 0.15, 0.3, { evidence: rep.peak, description: `The hands came back about ${round(rep.peakProgress * 100)}% of a full pull.` });
      },
      strength: { category: 'range_of_motion', name: 'Full pull', description: 'Pulled the rope to the face.' },
    }),
    rule({
      id: 'face-pull-elbows-low', category: 'technique', name: 'Elbows dropping',
      correction: 'Keep the elbows at shoulder height or above so the rear shoulders do the work.',
      views: ['side', 'diagonal', 'front'],
      check(rep, judge) {
        const p = rep.peak;
        // Side-on the far elbow is hidden behind the body and only guessed: the lower of the two
        // elbows would often be that guess, so a side-on rep reads the elbow facing the camera.
        const side = sideOn(rep) ? repSide(rep) : null;
        const v = side ? dropBelowShoulder(rep.frames[p]!, side, 'elbow') : elbowDrop(rep.frames[p]!);
        if (!Number.isFinite(v)) return undefined;
        // Elbows more than a fifth of an arm below the shoulders at the end of the pull.
        return judge.fault(v - 0.2, 0.1, 0.2, { evidence: p, description: `At the end of the pull the elbows were ${round(v * 100)}% of an arm length below the shoulders.` });
      },
      strength: { category: 'technique', name: 'Elbows high', description: 'Pulled with the elbows at shoulder height.' },
    }),
    rule({
      id: 'face-pull-lean', category: 'posture', name: 'Leaning back to pull',
      correction: 'Stand tall and still; step closer or lighten the stack instead of leaning back into the pull.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const lean = leanInPicture(rep), max = extreme(rep, lean, 'max'), min = extreme(rep, lean, 'min');
        if (!Number.isFinite(max.value) || !Number.isFinite(min.value)) return undefined;
        const swing = max.value - min.value;
        return judge.fault(swing - 12, 6, 12, { evidence: max.index, description: `The torso swung through about ${round(swing)} deg during the pull.` });
      },
      strength: { category: 'posture', name: 'Still torso', description: 'Stood still while pulling.' },
    }),
  ],
};
