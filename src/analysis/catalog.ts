// The exercise catalog served by GET /v1/exercises. Ids are kebab-case and stable. The entries are
// derived from the engine's exercise definitions so the catalog can never list an exercise the
// engine cannot judge (or the reverse).
import { exercises } from './rules/index.js';

export interface CatalogEntry {
  exercise_id: string;
  name: string;
  description: string;
  /** Camera angle the engine judges this exercise best from. */
  recommended_angle: string;
  /** Form checks the engine applies, by name. */
  form_checks: string[];
}

export const catalog: readonly CatalogEntry[] = exercises.map((e) => ({
  exercise_id: e.id,
  name: e.name,
  description: e.description,
  recommended_angle: e.recommendedAngle,
  form_checks: e.rules.map((r) => r.name),
}));

export function findExercise(id: string): CatalogEntry | undefined {
  return catalog.find((e) => e.exercise_id === id);
}
