// `admin jobs ...`: cancel any live job, list a key's jobs, show one job whole.
import { DomainError, JobNotFound, OperatorError } from '../commands/errors.js';
import { cancelJob } from '../commands/partner.js';
import { keyById } from '../projections/identity.js';
import { jobById, listJobs, resultOf, type JobStatus } from '../projections/jobs.js';
import { printJson, UsageError, type Command } from './command.js';

const STATUSES: readonly JobStatus[] = ['queued', 'processing', 'completed', 'failed', 'cancelled'];

export const jobs: Record<string, Command> = {
  cancel: {
    usage: 'jobs cancel JOB_ID',
    summary: 'cancel a queued or processing job of any key; its budget unit is returned',
    args: ['JOB_ID'],
    async run({ positionals, service, out }) {
      const jobId = positionals[0]!;
      const svc = await service();
      try {
        printJson(out, await cancelJob(svc, jobId, 'operator'));
      } catch (err) {
        // The partner's wording ("... for this API key") means nothing to an operator, who sees every key.
        if (err instanceof JobNotFound) throw new OperatorError(`cannot cancel job ${jobId}: job_not_found (no job has this id)`);
        if (err instanceof DomainError) throw new OperatorError(`cannot cancel job ${jobId}: ${err.code} (${err.message})`);
        throw err;
      }
    },
  },
  list: {
    usage: 'jobs list --key KEY_ID [--status S]',
    summary: "a key's jobs, newest first, one JSON line each",
    details: `S is one of ${STATUSES.join(', ')}`,
    options: { key: { type: 'string' }, status: { type: 'string' } },
    async run({ values, service, out }) {
      const keyId = values.key as string | undefined;
      if (!keyId) throw new UsageError('--key KEY_ID is required');
      const status = values.status as JobStatus | undefined;
      if (status !== undefined && !STATUSES.includes(status)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}, got "${status}"`);
      const svc = await service();
      if (!keyById(svc.readDb(), keyId)) throw new OperatorError(`no key ${keyId}`);
      for (const r of listJobs(svc.readDb(), { keyId, status, limit: Number.MAX_SAFE_INTEGER })) {
        printJson(out, { job_id: r.job_id, status: r.status, exercise_id: r.exercise_id, created_at: r.created_at, updated_at: r.updated_at });
      }
    },
  },
  show: {
    usage: 'jobs show JOB_ID',
    summary: 'one job with everything the read model knows (key, attempts, worker, result, failure)',
    args: ['JOB_ID'],
    async run({ positionals, service, out }) {
      const svc = await service();
      const row = jobById(svc.readDb(), positionals[0]!);
      if (!row) throw new OperatorError(`no job ${positionals[0]}`);
      printJson(out, { ...row, result: resultOf(row), retryable: row.retryable === null ? null : row.retryable === 1 });
    },
  },
};
