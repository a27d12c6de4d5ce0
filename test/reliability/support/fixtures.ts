// Shared fixtures of the reliability tests: a schema-valid analysis result, recorded events for a
// stream, and a comparable dump of the read models.
import type Database from 'better-sqlite3';
import type { AnalysisResult } from '../../../src/analysis/result.js';
import type { LedgerEvent } from '../../../src/events/ledger.js';
import type { RecordedEvent } from '../../../src/events/store/port.js';

export const RESULT: AnalysisResult = {
  repetitions: [
    { attempt_number: 1, start_time_ms: 0, end_time_ms: 1500, is_valid_rep: true, quality_score: 90, issues: [], strengths: [] },
  ],
  overall_feedback: {
    brief_summary: 'One clean repetition.',
    key_improvement_areas: [1, 2].map((priority) => ({
      priority, category: 'depth', name: `area ${priority}`, description: 'Go lower.', correction: 'Sit back.',
      impact: 'moderate', pattern_of_occurrence: 'consistent', affected_reps: [1],
    })),
    strengths: ['Steady tempo.'],
    visibility_context: { camera_angle: 'side', recommended_angle: 'side', angle_recommendation: 'Keep the side view.' },
  },
};

/** The events of one stream as the store would record them, positions from `firstPosition`. */
export function recorded(stream: string, events: readonly LedgerEvent[], firstPosition = 1): RecordedEvent[] {
  return events.map((e, i) => ({
    ...e,
    stream,
    revision: i,
    position: firstPosition + i,
    schemaVersion: 1,
    recordedAt: (e.data as { at: string }).at,
  })) as RecordedEvent[];
}

/** Every row of every read-model table, in primary-key order. */
export function dumpReadModels(db: Database.Database) {
  return {
    checkpoint: db.prepare('SELECT * FROM checkpoint').all(),
    keys: db.prepare('SELECT * FROM keys ORDER BY key_id').all(),
    uploads: db.prepare('SELECT * FROM uploads ORDER BY handle').all(),
    jobs: db.prepare('SELECT * FROM jobs ORDER BY job_id').all(),
  };
}
