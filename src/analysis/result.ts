// The result object of SPEC.md ("Result object"), as TypeBox schemas. The engine produces it, the
// job runner stores it in the JobCompleted event and the HTTP layer serves it with this schema.
import { Type, type Static } from '@sinclair/typebox';

export const IssueSchema = Type.Object({
  category: Type.String(),
  name: Type.String(),
  description: Type.String(),
  correction: Type.String(),
  severity: Type.String(),
  impact_on_score: Type.Number({ maximum: 0 }),
  evidence_timestamp_ms: Type.Integer(),
});

export const RepStrengthSchema = Type.Object({
  category: Type.String(),
  name: Type.String(),
  description: Type.String(),
});

export const RepetitionSchema = Type.Object({
  attempt_number: Type.Integer({ minimum: 1 }),
  start_time_ms: Type.Integer({ minimum: 0 }),
  end_time_ms: Type.Integer({ minimum: 0 }),
  is_valid_rep: Type.Boolean(),
  quality_score: Type.Number({ minimum: 0, maximum: 100 }),
  issues: Type.Array(IssueSchema),
  strengths: Type.Array(RepStrengthSchema),
});

export const KeyImprovementAreaSchema = Type.Object({
  priority: Type.Integer({ minimum: 1, maximum: 3 }),
  category: Type.String(),
  name: Type.String(),
  description: Type.String(),
  correction: Type.String(),
  impact: Type.String(),
  pattern_of_occurrence: Type.String(),
  affected_reps: Type.Array(Type.Integer({ minimum: 1 })),
});

/**
 * The camera angles a result names (SPEC leaves the values open): the body's yaw to the camera
 * (front under about 30 deg, diagonal, side) and whether the person faces away (back); unknown
 * when no one could be seen well enough to tell.
 */
export const CAMERA_ANGLES = ['front', 'side', 'diagonal', 'back', 'unknown'] as const;
/** The angles an exercise is recommended to be filmed from (a back view is never the best one). */
export const RECOMMENDED_ANGLES = ['front', 'side', 'diagonal'] as const;

export const VisibilityContextSchema = Type.Object({
  camera_angle: Type.Union(CAMERA_ANGLES.map((a) => Type.Literal(a)), {
    description: 'Where the camera stood, from the body\'s yaw to it and whether the person faced away: front, side, diagonal, back, or unknown when no one could be seen well enough.',
  }),
  recommended_angle: Type.Union(RECOMMENDED_ANGLES.map((a) => Type.Literal(a)), {
    description: 'The angle this exercise is judged best from: front, side or diagonal.',
  }),
  angle_recommendation: Type.String(),
});

export const OverallFeedbackSchema = Type.Object({
  brief_summary: Type.String(),
  key_improvement_areas: Type.Array(KeyImprovementAreaSchema, { minItems: 2, maxItems: 3 }),
  strengths: Type.Array(Type.String()),
  visibility_context: VisibilityContextSchema,
});

export const AnalysisResultSchema = Type.Object({
  repetitions: Type.Array(RepetitionSchema),
  overall_feedback: OverallFeedbackSchema,
});

export type Issue = Static<typeof IssueSchema>;
export type RepStrength = Static<typeof RepStrengthSchema>;
export type Repetition = Static<typeof RepetitionSchema>;
export type KeyImprovementArea = Static<typeof KeyImprovementAreaSchema>;
export type OverallFeedback = Static<typeof OverallFeedbackSchema>;
export type AnalysisResult = Static<typeof AnalysisResultSchema>;
