// Every exercise the engine judges, by catalog id.
import type { ExerciseDef } from '../exercise.js';
import { bicepCurl } from './bicep-curl.js';
import { gluteBridge } from './glute-bridge.js';
import { jumpingJack } from './jumping-jack.js';
import { lunge } from './lunge.js';
import { pushUp } from './push-up.js';
import { shoulderPress } from './shoulder-press.js';
import { sideLunge } from './side-lunge.js';
import { sitUp } from './sit-up.js';
import { squat } from './squat.js';

export const exercises: readonly ExerciseDef[] = [
  squat, pushUp, lunge, sideLunge, bicepCurl, shoulderPress, jumpingJack, gluteBridge, sitUp,
];

export function exerciseDef(id: string): ExerciseDef | undefined {
  return exercises.find((e) => e.id === id);
}
