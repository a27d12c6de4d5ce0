// Plain-text tables for the partner CLI: columns padded to their widest cell, multi-line cells
// (several issues in one attempt) continued on the next lines.
import type { AnalysisResult, Exercise, Identity, Job } from '@rep-coach/client';

export function table(headers: string[], rows: string[][][], align: ('l' | 'r')[] = []): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.flatMap((r) => (r[c] ?? ['']).map((s) => s.length))));
  const line = (cells: string[]) =>
    cells
      .map((s, c) => (align[c] === 'r' ? s.padStart(widths[c]!) : s.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  const out = [line(headers), line(widths.map((w) => '-'.repeat(w)))];
  for (const row of rows) {
    const height = Math.max(1, ...row.map((cell) => cell.length));
    for (let i = 0; i < height; i++) out.push(line(headers.map((_, c) => row[c]?.[i] ?? '')));
  }
  return out.join('\n') + '\n';
}

const secs = (ms: number) => (ms / 1000).toFixed(1);

/** One row per attempt: time span, valid, score, issues. */
export function attemptTable(result: AnalysisResult): string {
  if (result.repetitions.length === 0) return 'No attempts found.\n';
  return table(
    ['Attempt', 'Time (s)', 'Valid', 'Score', 'Issues'],
    result.repetitions.map((r) => [
      [String(r.attempt_number)],
      [`${secs(r.start_time_ms)}-${secs(r.end_time_ms)}`],
      [r.is_valid_rep ? 'yes' : 'no'],
      [String(Math.round(r.quality_score))],
      r.issues.length ? r.issues.map((i) => `${i.name} (${i.severity}, ${i.impact_on_score}) at ${secs(i.evidence_timestamp_ms)} s`) : ['-'],
    ]),
    ['r', 'l', 'l', 'r', 'l'],
  );
}

/** The whole completed job as a reader wants it: summary, attempts, what to work on. */
export function resultText(job: Job): string {
  const result = job.result!;
  const fb = result.overall_feedback;
  const valid = result.repetitions.filter((r) => r.is_valid_rep).length;
  const lines = [
    `Job ${job.job_id}: completed, ${result.repetitions.length} attempt(s), ${valid} valid.`,
    fb.brief_summary,
    '',
    attemptTable(result),
    'Key improvement areas:',
    ...fb.key_improvement_areas
      .slice()
      .sort((a, b) => a.priority - b.priority)
      .map((a) => `  ${a.priority}. ${a.name}: ${a.correction}${a.affected_reps.length ? ` (attempts ${a.affected_reps.join(', ')})` : ''}`),
  ];
  if (fb.strengths.length) lines.push('Strengths:', ...fb.strengths.map((s) => `  - ${s}`));
  lines.push(`Camera: ${fb.visibility_context.camera_angle} (${fb.visibility_context.angle_recommendation})`);
  return lines.join('\n') + '\n';
}

/** A job in any state: the result for a completed one, else its status (and failure reason). */
export function jobText(job: Job): string {
  if (job.status === 'completed' && job.result) return resultText(job);
  if (job.status === 'failed') return `Job ${job.job_id}: failed, ${job.error_code}: ${job.message}\n`;
  return `Job ${job.job_id}: ${job.status}\n`;
}

export const exercisesText = (list: Exercise[]) =>
  table(['Exercise id', 'Name', 'Description'], list.map((e) => [[e.exercise_id], [e.name], [e.description]]));

export const jobsText = (jobs: { job_id: string; status: string }[]) =>
  jobs.length ? table(['Job id', 'Status'], jobs.map((j) => [[j.job_id], [j.status]])) : 'No jobs.\n';

export function identityText(id: Identity): string {
  const u = id.usage;
  const limit = u.limit === null ? 'uncapped' : String(u.limit);
  return `Partner: ${id.partner_name} (${id.partner_id})\nKey status: ${id.status}\nUsage: ${u.used} used, limit ${limit}, ${u.remaining === null ? 'no limit' : `${u.remaining} remaining`}\n`;
}
