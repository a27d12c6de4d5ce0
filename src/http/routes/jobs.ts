import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cancelJob, readFresh, submitJob } from '../../commands/partner.js';
import { JobNotFound, MalformedRequest } from '../../commands/errors.js';
import { jobById, listJobs, type JobRow } from '../../projections/jobs.js';
import type { Service } from '../../service.js';
import { keyOf } from '../auth.js';
import { errorResponses, Job, JobList, JobListQuery, JobParams, JobSummary, SubmitJobBody } from '../schemas.js';

/** The job as SPEC shows it: result only when completed, error_code and message only when failed. */
function present(row: JobRow) {
  if (row.status === 'completed' && row.result) return { job_id: row.job_id, status: row.status, result: JSON.parse(row.result) };
  if (row.status === 'failed') return { job_id: row.job_id, status: row.status, error_code: row.error_code ?? 'analysis_failed', message: row.message ?? 'The analysis job failed.' };
  return { job_id: row.job_id, status: row.status };
}

export const jobRoutes =
  (svc: Service, wakeRunner: () => void): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/jobs',
      { schema: { body: SubmitJobBody, response: { 201: JobSummary, ...errorResponses(400, 401, 404, 409, 410, 429, 500, 503) } } },
      async (request, reply) => {
        const body = request.body as SubmitJobBody & { video_url?: unknown };
        if (body.video_url !== undefined) {
          throw new MalformedRequest('Malformed request: video_url is no longer accepted; upload the video to an upload spot and send upload_handle.');
        }
        const keyId = keyOf(request).key_id;
        const outcome = await submitJob(svc, keyId, body.upload_handle, body.exercise_id);
        if (outcome.created) wakeRunner();
        const status = outcome.created ? outcome.status : (jobById(svc.readDb(), outcome.job_id)?.status ?? outcome.status);
        return reply.code(201).send({ job_id: outcome.job_id, status });
      },
    );

    app.get('/v1/jobs', { schema: { querystring: JobListQuery, response: { 200: JobList, ...errorResponses(400, 401, 503) } } }, async (request) => {
      const limit = Math.min(1000, Math.max(1, Number(request.query.limit ?? 100)));
      const beforeSeq = request.query.cursor === undefined ? undefined : Number(request.query.cursor);
      const rows = listJobs(svc.readDb(), { keyId: keyOf(request).key_id, status: request.query.status, beforeSeq, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const next = rows.length > limit ? page[page.length - 1] : undefined;
      return { jobs: page.map((r) => ({ job_id: r.job_id, status: r.status })), ...(next ? { next_cursor: String(next.seq) } : {}) };
    });

    app.get('/v1/jobs/:job_id', { schema: { params: JobParams, response: { 200: Job, ...errorResponses(401, 404, 503) } } }, async (request) => {
      const row = await readFresh(svc, () => jobById(svc.readDb(), request.params.job_id));
      if (!row || row.key_id !== keyOf(request).key_id) throw new JobNotFound();
      return present(row);
    });

    app.post(
      '/v1/jobs/:job_id/cancel',
      { schema: { params: JobParams, response: { 200: JobSummary, ...errorResponses(401, 404, 409, 503) } } },
      async (request) => cancelJob(svc, request.params.job_id, { partner: keyOf(request).key_id }),
    );
  };
