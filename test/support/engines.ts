// Test doubles of the analysis engine, for tests of the API and the runner (never product wiring).
import type { AnalysisEngine } from '../../src/analysis/engine.js';
import type { AnalysisResult } from '../../src/analysis/result.js';

export const sampleResult: AnalysisResult = {
  repetitions: [
    {
      attempt_number: 1,
      start_time_ms: 0,
      end_time_ms: 2000,
      is_valid_rep: true,
      quality_score: 85,
      issues: [
        { category: 'depth', name: 'Shallow squat', description: 'Hips stayed above the knees.', correction: 'Sit lower.', severity: 'moderate', impact_on_score: -15, evidence_timestamp_ms: 1000 },
      ],
      strengths: [{ category: 'tempo', name: 'Controlled tempo', description: 'Steady descent.' }],
    },
  ],
  overall_feedback: {
    brief_summary: 'One squat.',
    key_improvement_areas: [
      { priority: 1, category: 'depth', name: 'Depth', description: 'Go lower.', correction: 'Sit lower.', impact: 'high', pattern_of_occurrence: 'every_rep', affected_reps: [1] },
      { priority: 2, category: 'tempo', name: 'Tempo', description: 'Keep it.', correction: 'Keep it.', impact: 'low', pattern_of_occurrence: 'none', affected_reps: [] },
    ],
    strengths: ['Controlled tempo.'],
    visibility_context: { camera_angle: 'side', recommended_angle: 'side', angle_recommendation: 'Good angle.' },
  },
};

export function fixedEngine(result: AnalysisResult = sampleResult): AnalysisEngine & { calls: string[] } {
  const calls: string[] = [];
  return {
    version: 'test-fixed/1',
    calls,
    async analyze(input) {
      calls.push(input.exerciseId);
      return result;
    },
  };
}

export function failingEngine(error: () => Error): AnalysisEngine & { calls: number } {
  const engine = {
    version: 'test-failing/1',
    calls: 0,
    async analyze(): Promise<AnalysisResult> {
      engine.calls++;
      throw error();
    },
  };
  return engine;
}

/** Holds every analysis until release(): lets a test see a job in processing. */
export function gatedEngine(): AnalysisEngine & { started: Promise<void>; release(): void } {
  let release!: () => void;
  let markStarted!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const started = new Promise<void>((r) => (markStarted = r));
  return {
    version: 'test-gated/1',
    started,
    release,
    async analyze() {
      markStarted();
      await gate;
      return sampleResult;
    },
  };
}

export async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
