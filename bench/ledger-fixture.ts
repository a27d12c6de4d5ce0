// Writes a plausible ledger straight into an events table: many keys, each job minted, uploaded,
// claimed, queued, started and finished (or cancelled while queued), with real-sized results.
// Used by bench:rebuild and by tests that need more events than a test can append through the API.
import Database from 'better-sqlite3';
import { CURRENT_SCHEMA_VERSION } from '../src/events/ledger.js';

const DDL = `CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT, stream TEXT NOT NULL, revision INTEGER NOT NULL, type TEXT NOT NULL,
  schema_version INTEGER NOT NULL, data TEXT NOT NULL, recorded_at TEXT NOT NULL, UNIQUE (stream, revision));`;

const issue = (n: number) => ({
  category: 'depth', name: 'shallow_squat', description: `Repetition ${n} stopped above parallel.`,
  correction: 'Sit back until the hips reach knee height.', severity: 'moderate', impact_on_score: -12, evidence_timestamp_ms: 1200 * n,
});

export const sampleResult = {
  repetitions: [1, 2, 3].map((n) => ({
    attempt_number: n, start_time_ms: 2000 * n, end_time_ms: 2000 * n + 1800, is_valid_rep: true, quality_score: 88,
    issues: [issue(n)], strengths: [{ category: 'tempo', name: 'steady_tempo', description: 'Even pace on the way down and up.' }],
  })),
  overall_feedback: {
    brief_summary: 'Three controlled squats; depth is the main thing to work on.',
    key_improvement_areas: [1, 2].map((p) => ({
      priority: p, category: 'depth', name: 'shallow_squat', description: 'Depth stops above parallel.', correction: 'Sit lower.',
      impact: 'moderate', pattern_of_occurrence: 'consistent', affected_reps: [1, 2, 3],
    })),
    strengths: ['Steady tempo.'],
    visibility_context: { camera_angle: 'side', recommended_angle: 'side', angle_recommendation: 'Keep the camera at hip height.' },
  },
};

/** Appends about `events` events over `keys` keys to the events table at `path`; returns the count. */
export function writeLedger(path: string, opts: { events: number; keys?: number; seed?: number; schemaVersion?: number }): number {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.exec(DDL);
  const insert = db.prepare('INSERT INTO events (stream, revision, type, schema_version, data, recorded_at) VALUES (?, ?, ?, ?, ?, ?)');
  const keys = opts.keys ?? 1_000;
  const version = opts.schemaVersion ?? CURRENT_SCHEMA_VERSION;
  let seed = opts.seed ?? 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const revisions = new Array<number>(keys).fill(-1);
  let clock = Date.parse('2026-01-01T00:00:00Z');
  let written = 0;
  let n = 0;
  /** `sameAppend`: recorded with the previous event (SpotClaimed + JobQueued are one append). */
  const put = (k: number, type: string, data: Record<string, unknown>, sameAppend = false) => {
    if (!sameAppend) clock += 7;
    const at = new Date(clock).toISOString();
    insert.run(`ledger-key_${k}`, ++revisions[k]!, type, version, JSON.stringify({ ...data, at }), at);
    written++;
  };
  const tx = db.transaction((until: number) => {
    while (written < until) {
      const k = Math.floor(random() * keys);
      if (revisions[k] === -1) {
        put(k, 'KeyIssued', { keyId: `key_${k}`, partnerId: `p_${k}`, partnerName: `Partner ${k}`, keyHash: `hash_${k}`, limit: null });
        continue;
      }
      const handle = `h_${++n}`;
      const jobId = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
      const roll = random();
      put(k, 'SpotMinted', { handle, expiresAt: new Date(clock + 900_000).toISOString() });
      if (roll < 0.05) {
        put(k, 'SpotExpired', { handle });
        continue;
      }
      put(k, 'SpotUploaded', { handle, size: 1_000_000 + n });
      put(k, 'SpotClaimed', { handle, jobId, exerciseId: 'squat', size: 1_000_000 + n });
      put(k, 'JobQueued', { jobId, handle, exerciseId: 'squat' }, true);
      if (roll < 0.15) {
        put(k, 'JobCancelled', { jobId, by: 'partner', fromStatus: 'queued' });
        continue;
      }
      put(k, 'JobStarted', { jobId, worker: 'w1', attempt: 1, leaseUntil: new Date(clock + 60_000).toISOString() });
      if (roll < 0.3) {
        const failed = { jobId, errorCode: 'video_processing_failed', message: 'The video could not be processed for analysis.' };
        put(k, 'JobFailed', version >= 2 ? { ...failed, retryable: false } : failed);
      } else {
        put(k, 'JobCompleted', { jobId, result: sampleResult, engineVersion: 'rep-coach/1.0 movenet-lightning/4' });
      }
    }
  });
  while (written < opts.events) tx(Math.min(opts.events, written + 50_000));
  db.close();
  return written;
}
