// Seated cable or machine row: sitting tall, the hands pull a handle from straight arms in front
// to the lower ribs, elbows travelling back past the torso. Counted on the bent-over row's pull
// signal (hand distance from the shoulder with depth, blended with the elbow bend), which also
// reads from behind, where the arms reach away from the camera; only the posture differs.
import type { ExerciseDef } from '../exercise.js';
import { atEnds, elbowAngle, extreme, round, upright, rule } from './common.js';
import { leanInPicture } from './in-picture.js';
import { pullingElbow, pullProgress } from './bent-over-row.js';
import { maxOf } from './body.js';

export const seatedRow: ExerciseDef = {
  id: 'seated-row',
  name: 'Seated row',
  description: 'Seated cable or machine row: sit tall with the chest up, pull the handle from straight arms to the lower ribs, squeeze the shoulder blades, return under control without rocking. Film from the side at chest height, 2-3 m away, with the head, hands and hips in frame; from behind, the count still reads.',
  recommendedAngle: 'side',
  angleAdvice: 'Film from the side at chest height: the torso rock, the elbow path and the full extension are clearest there; from behind only the count and the torso rock can be judged.',
  filmingAdvice: 'Place the camera 2-3 m away at chest height, side-on, with the head, both hands and the hips in frame.',
  signal: 'the bent-over row\'s pull: hand distance from the shoulder with depth, blended with the elbow bend, on the arm that pulls higher',
  progress: (f) => maxOf([pullProgress(f, 'left'), pullProgress(f, 'right')]),
  gate: (f) => upright(f, 40),
  gateDescription: 'sitting or standing upright, torso within 40 deg of vertical',
  rules: [
    rule({
      id: 'seated-row-range', category: 'range_of_motion', name: 'Short pull',
      correction: 'Pull until the handle touches the lower ribs and the elbows pass the torso.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const { value, index } = extreme(rep, pullingElbow(rep), 'min');
        if (!Number.isFinite(value)) return undefined;
        return judge.fault(value - 100, 15, 30, { evidence: index, description: `The elbows bent only to about ${round(value)} deg at the end of the pull.` });
      },
      strength: { category: 'range_of_motion', name: 'Full pull', description: 'Pulled the handle to the torso.' },
    }),
    rule({
      id: 'seated-row-rock', category: 'posture', name: 'Rocking the torso',
      correction: 'Keep the torso still and upright; only the arms and shoulder blades move.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const lean = leanInPicture(rep), max = extreme(rep, lean, 'max'), min = extreme(rep, lean, 'min');
        if (!Number.isFinite(max.value) || !Number.isFinite(min.value)) return undefined;
        const rock = max.value - min.value;
        return judge.fault(rock - 15, 8, 15, { evidence: max.index, description: `The torso rocked through about ${round(rock)} deg during the rep.` });
      },
      strength: { category: 'posture', name: 'Still torso', description: 'The torso stayed still while the arms pulled.' },
    }),
    rule({
      id: 'seated-row-extension', category: 'range_of_motion', name: 'Arms not straightening',
      correction: 'Let the arms straighten fully in front between pulls so the back stretches.',
      views: ['side', 'diagonal'],
      check(rep, judge) {
        const v = atEnds(rep, elbowAngle);
        if (!Number.isFinite(v)) return undefined;
        return judge.fault(145 - v, 15, 30, { evidence: 0, description: `The elbows only opened to about ${round(v)} deg between pulls.` });
      },
      strength: { category: 'range_of_motion', name: 'Full extension', description: 'Straightened the arms between pulls.' },
    }),
  ],
};
