// Every exercise the engine judges, by catalog id.
import type { ExerciseDef } from '../exercise.js';
import { benchPress } from './bench-press.js';
import { bicepCurl } from './bicep-curl.js';
import { burpee } from './burpee.js';
import { calfRaise } from './calf-raise.js';
import { deadlift } from './deadlift.js';
import { frontRaise } from './front-raise.js';
import { gluteBridge } from './glute-bridge.js';
import { jumpingJack } from './jumping-jack.js';
import { lateralRaise } from './lateral-raise.js';
import { lunge } from './lunge.js';
import { pullUp } from './pull-up.js';
import { pushUp } from './push-up.js';
import { shoulderPress } from './shoulder-press.js';
import { sideLunge } from './side-lunge.js';
import { sitUp } from './sit-up.js';
import { squat } from './squat.js';
import { thruster } from './thruster.js';
import { tricepPushdown } from './tricep-pushdown.js';
import { bentOverRow } from './bent-over-row.js';
import { chestFly } from './chest-fly.js';
import { crunch } from './crunch.js';
import { dips } from './dips.js';
import { facePull } from './face-pull.js';
import { hammerCurl } from './hammer-curl.js';
import { kettlebellSwing } from './kettlebell-swing.js';
import { legRaise } from './leg-raise.js';
import { mountainClimber } from './mountain-climber.js';
import { overheadTricepExtension } from './overhead-tricep-extension.js';
import { romanianDeadlift } from './romanian-deadlift.js';
import { seatedRow } from './seated-row.js';
import { anyMovement } from './any.js';

export const exercises: readonly ExerciseDef[] = [
  squat, pushUp, lunge, sideLunge, bicepCurl, shoulderPress, jumpingJack, gluteBridge, sitUp,
  // Added with issue 9; built from the biomechanics, checked on synthetic poses and the shared clips.
  deadlift, lateralRaise, frontRaise, burpee, pullUp, calfRaise, benchPress, thruster, tricepPushdown,
  // Added with issue 20: definitions over the shared measurements (rules/body.ts, reach.ts).
  dips, crunch, legRaise, romanianDeadlift, bentOverRow, kettlebellSwing, hammerCurl, mountainClimber,
  facePull, seatedRow, chestFly, overheadTricepExtension,
  // Last: the counter for a movement the catalog has no definition for (rules/any.ts).
  anyMovement,
];

export function exerciseDef(id: string): ExerciseDef | undefined {
  return exercises.find((e) => e.id === id);
}
