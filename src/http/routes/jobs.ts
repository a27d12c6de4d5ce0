import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cancelJob, readFresh, submitJob } from '../../commands/partner.js';
import { JobNotFound, MalformedRequest, PoseNotAvailable } from '../../commands/errors.js';
import { jobById, listJobs, presentJob } from '../../projections/jobs.js';
import { fromStorage } from '../../commands/partner.js';
import { decodePose } from '../../storage/poses.js';
import type { Service } from '../../service.js';
import { keyOf } from '../auth.js';
import { errorResponses, Job, JobList, JobListQuery, JobParams, JobSummary, PoseTrackSchema, SubmitJobBody } from '../schemas.js';
import type { FastifyReply } from 'fastify';

/** gzip named in Accept-Encoding with a non-zero q (RFC 9110 12.5.3). */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === 'x-gzip') && (q === undefined || Number(q.slice(2)) > 0);
  });
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
      return presentJob(row);
    });

    app.get(
      '/v1/jobs/:job_id/pose',
      { schema: { summary: 'Get the pose track of a completed job', operationId: 'getJobPose', params: JobParams, response: { 200: PoseTrackSchema, ...errorResponses(401, 404, 409, 503) } } },
      async (request, reply) => {
        const row = await readFresh(svc, () => jobById(svc.readDb(), request.params.job_id));
        if (!row || row.key_id !== keyOf(request).key_id) throw new JobNotFound();
        if (row.status !== 'completed') throw new PoseNotAvailable(`The pose track is available once the job has completed; it is ${row.status}.`);
        const stored = await fromStorage(() => svc.storage.loadPose(row.job_id));
        if (!stored) throw new PoseNotAvailable('No pose track was stored for this job (it completed before pose tracks were kept).');
        // The stored bytes are already gzipped JSON: sent as they are when the client takes gzip.
        // (A Buffer bypasses the response serializer; the schema above documents its shape.)
        const raw: FastifyReply = reply.header('vary', 'accept-encoding').type('application/json; charset=utf-8');
        if (acceptsGzip(request.headers['accept-encoding'])) return raw.header('content-encoding', 'gzip').send(stored);
        return raw.send(decodePose(stored));
      },
    );

    app.post(
      '/v1/jobs/:job_id/cancel',
      { schema: { params: JobParams, response: { 200: JobSummary, ...errorResponses(401, 404, 409, 503) } } },
      async (request) => cancelJob(svc, request.params.job_id, { partner: keyOf(request).key_id }),
    );
  };
