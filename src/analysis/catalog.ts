// The exercise catalog served by GET /v1/exercises. Ids are kebab-case and stable.
// (Placeholder entries; the engine issue fills in signals, rules and camera angles.)
export interface CatalogEntry {
  exercise_id: string;
  name: string;
  description: string;
}

export const catalog: readonly CatalogEntry[] = [
  { exercise_id: 'squat', name: 'Squat', description: 'Bodyweight or loaded squat.' },
  { exercise_id: 'push-up', name: 'Push-up', description: 'Standard push-up.' },
  { exercise_id: 'lunge', name: 'Lunge', description: 'Forward, reverse or split-stance lunge.' },
  { exercise_id: 'side-lunge', name: 'Side lunge', description: 'Lateral lunge.' },
  { exercise_id: 'bicep-curl', name: 'Bicep curl', description: 'Dumbbell or barbell curl.' },
  { exercise_id: 'shoulder-press', name: 'Shoulder press', description: 'Overhead press.' },
  { exercise_id: 'jumping-jack', name: 'Jumping jack', description: 'Jumping jacks.' },
  { exercise_id: 'glute-bridge', name: 'Glute bridge', description: 'Hip bridge from the floor.' },
  { exercise_id: 'sit-up', name: 'Sit-up', description: 'Full sit-up from lying.' },
];

export function findExercise(id: string): CatalogEntry | undefined {
  return catalog.find((e) => e.exercise_id === id);
}
