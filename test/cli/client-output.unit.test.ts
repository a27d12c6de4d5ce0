// What `cli analyze` prints: the attempt table's layout, and progress as a redrawn bar plus an
// elapsed line on a terminal versus plain lines in a pipe.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '@rep-coach/client';
import { attemptTable, jobText } from '../../src/cli/client/format.js';
import { analyzeProgress } from '../../src/cli/client/progress.js';
import { sampleResult } from '../support/engines.js';

const result = {
  ...sampleResult,
  repetitions: [
    sampleResult.repetitions[0]!,
    { ...sampleResult.repetitions[0]!, attempt_number: 2, start_time_ms: 2100, end_time_ms: 4060, is_valid_rep: false, quality_score: 62.5, strengths: [],
      issues: [
        { ...sampleResult.repetitions[0]!.issues[0]!, name: 'Knees caving', severity: 'major', impact_on_score: -20, evidence_timestamp_ms: 3000 },
        { ...sampleResult.repetitions[0]!.issues[0]!, evidence_timestamp_ms: 3500 },
      ] },
    { ...sampleResult.repetitions[0]!, attempt_number: 3, start_time_ms: 4100, end_time_ms: 6000, quality_score: 100, issues: [] },
  ],
};

test('the attempt table has one row per attempt (time span, valid, score, issues); extra issues continue below', () => {
  assert.equal(
    attemptTable(result),
    [
      'Attempt  Time (s)  Valid  Score  Issues',
      '-------  --------  -----  -----  --------------------------------------',
      '      1  0.0-2.0   yes       85  Shallow squat (moderate, -15) at 1.0 s',
      '      2  2.1-4.1   no        63  Knees caving (major, -20) at 3.0 s',
      '                                 Shallow squat (moderate, -15) at 3.5 s',
      '      3  4.1-6.0   yes      100  -',
      '',
    ].join('\n'),
  );
  assert.equal(attemptTable({ ...result, repetitions: [] }), 'No attempts found.\n');
});

test('a failed or queued job reads as its status and reason', () => {
  assert.equal(jobText({ job_id: 'j', status: 'failed', error_code: 'video_processing_failed', message: 'The video could not be processed for analysis.' } as Job), 'Job j: failed, video_processing_failed: The video could not be processed for analysis.\n');
  assert.equal(jobText({ job_id: 'j', status: 'queued' } as Job), 'Job j: queued\n');
});

function stream(isTTY: boolean) {
  let text = '';
  return { out: { isTTY, columns: 100, write: (s: string) => ((text += s), true) } as unknown as NodeJS.WritableStream & { isTTY: boolean }, text: () => text };
}

test('on a terminal: a redrawn upload bar, then one elapsed-time line redrawn in place', () => {
  let now = 0;
  const s = stream(true);
  const p = analyzeProgress(s.out, () => now);
  for (const loaded of [0, 250_000, 500_000, 1_000_000]) {
    now += 100;
    p.upload({ loaded, total: 1_000_000 });
  }
  p.submitted('job-1', 'queued');
  now += 12_000;
  p.job({ job_id: 'job-1', status: 'processing' } as Job);
  now += 3_000;
  p.job({ job_id: 'job-1', status: 'completed' } as Job);
  p.done();
  const text = s.text();
  assert.match(text, /\rUploading \[#{10}\.{30}\]  25%/);
  assert.match(text, /\rUploading \[#{40}\] 100%  1\.0\/1\.0 MB/);
  assert.match(text, /\rJob job-1: processing  elapsed 0:12\x1b\[K/);
  assert.match(text, /\rJob job-1: completed  elapsed 0:15\x1b\[K\n$/);
});

test('in a pipe: plain lines, upload every 25% and each status change', () => {
  let now = 0;
  const s = stream(false);
  const p = analyzeProgress(s.out, () => now);
  for (let loaded = 0; loaded <= 1_000_000; loaded += 50_000) p.upload({ loaded, total: 1_000_000 });
  p.submitted('job-1', 'queued');
  now += 2_000;
  p.job({ job_id: 'job-1', status: 'queued' } as Job);
  p.job({ job_id: 'job-1', status: 'processing' } as Job);
  now += 5_000;
  p.job({ job_id: 'job-1', status: 'processing' } as Job);
  p.job({ job_id: 'job-1', status: 'completed' } as Job);
  p.done();
  assert.equal(
    s.text(),
    [
      'upload: 0% (0.0 of 1.0 MB)', 'upload: 25% (0.2 of 1.0 MB)', 'upload: 50% (0.5 of 1.0 MB)', 'upload: 75% (0.7 of 1.0 MB)', 'upload: 100% (1.0 of 1.0 MB)',
      'job job-1: queued', 'job job-1: processing (elapsed 2 s)', 'job job-1: completed (elapsed 7 s)', '',
    ].join('\n'),
  );
});
