// Hammer curl: the bicep curl's movement with the palms facing each other. The pose model sees the
// same wrist path and the grip is not visible to it, so the exercise is the curl's definition as
// data (signal, per-arm counting, rules and their calibrated limits) under its own id and advice.
import type { ExerciseDef } from '../exercise.js';
import { bicepCurl } from './bicep-curl.js';
import { renamed } from './common.js';

export const hammerCurl: ExerciseDef = {
  ...bicepCurl,
  id: 'hammer-curl',
  name: 'Hammer curl',
  description: 'Dumbbell curl with the palms facing each other (neutral grip), both arms together or alternating: elbows at the sides, the dumbbells rise from straight arms to the shoulders. Film from the side at chest height, 2-3 m away, with the upper body, arms and hips in frame.',
  signal: `${bicepCurl.signal} (the curl's signal: the grip does not change the wrist path)`,
  rules: bicepCurl.rules.map((r) => renamed(r, r.id.replace(/^curl-/, 'hammer-curl-'))),
};
