import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { cancelJob, readFresh, submitJob } from '../../commands/partner.js';
import { JobNotFound, MalformedRequest, PoseNotAvailable } from '../../commands/errors.js';
import { jobById, listJobs, presentJob, type JobRow } from '../../projections/jobs.js';
import { whileUnchanged } from '../../projections/while-unchanged.js';
import { fromStorage } from '../../commands/partner.js';
import { decodePose } from '../../storage/poses.js';
import type { Service } from '../../service.js';
import { keyOf } from '../auth.js';
import { IdempotencyHeaders, idempotent } from '../idempotency.js';
import { authErrors, errorResponses, idempotencyErrors, ReplayHeaders, withHeaders, Job, JobList, JobListQuery, JobParams, JobSummary, PoseTrackSchema, SubmitJobBody } from '../schemas.js';
import type { FastifyReply } from 'fastify';
import { completedBodies } from '../completed-bodies.js';

/** A body already serialized by the route's schema, with the Content-Type fastify gives a serialized object. */
const sendSerialized = (reply: FastifyReply, body: string) => reply.type('application/json; charset=utf-8').send(body);

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
    const completed = completedBodies();
    // Polls of a job whose row has not changed reuse it (projections/while-unchanged.ts).
    const rows = whileUnchanged<string, JobRow>(svc.readVersion, 10_000);
    app.post(
      '/v1/jobs',
      {
        schema: {
          operationId: 'submitJob',
          summary: 'Submit an analysis job for an uploaded video',
          description: 'Claims the upload spot and holds one unit of the analysis limit. The same handle with the same exercise_id answers 201 with the original job; never resubmit after internal_error.',
          tags: ['Jobs'],
          headers: IdempotencyHeaders,
          body: SubmitJobBody,
          response: {
            201: withHeaders(JobSummary, ReplayHeaders),
            ...errorResponses(
              ...authErrors, 'malformed_request', 'payload_too_large', 'unknown_exercise', 'upload_not_found', 'upload_incomplete',
              'upload_already_claimed', 'upload_spot_expired', 'usage_limit_exceeded', 'catalog_error', 'internal_error', 'storage_stat_unavailable',
              ...idempotencyErrors,
            ),
          },
        },
        ...idempotent(svc),
      },
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

    app.get(
      '/v1/jobs',
      {
        schema: {
          operationId: 'listJobs',
          summary: "List the partner's jobs",
          description: 'Newest first, without results; next_cursor is present when more follow.',
          tags: ['Jobs'],
          querystring: JobListQuery,
          response: { 200: JobList, ...errorResponses(...authErrors, 'malformed_request') },
        },
      },
      async (request) => {
        const limit = Math.min(1000, Math.max(1, Number(request.query.limit ?? 100)));
        const beforeSeq = request.query.cursor === undefined ? undefined : Number(request.query.cursor);
        const rows = listJobs(svc.readDb(), { keyId: keyOf(request).key_id, status: request.query.status, beforeSeq, limit: limit + 1 });
        const page = rows.slice(0, limit);
        const next = rows.length > limit ? page[page.length - 1] : undefined;
        return { jobs: page.map((r) => ({ job_id: r.job_id, status: r.status })), ...(next ? { next_cursor: String(next.seq) } : {}) };
      },
    );

    app.get(
      '/v1/jobs/:job_id',
      {
        schema: {
          operationId: 'getJob',
          summary: 'Read a job, with its result once completed',
          description: 'Poll every 10 s until completed, failed or cancelled. A failed job is a 200 with error_code and message.',
          tags: ['Jobs'],
          params: JobParams,
          response: { 200: Job, ...errorResponses(...authErrors, 'job_not_found') },
        },
      },
      async (request, reply) => {
        const keyId = keyOf(request).key_id;
        const held = completed.get(request.params.job_id, keyId);
        if (held === 'other-key') throw new JobNotFound();
        if (held !== undefined) return sendSerialized(reply, held);
        const jobId = request.params.job_id;
        const row = await readFresh(svc, () => rows(jobId, () => jobById(svc.readDb(), jobId)));
        if (!row || row.key_id !== keyId) throw new JobNotFound();
        const job = presentJob(row);
        if (job.status !== 'completed') return job;
        // Serialized by this route's own schema serializer, so the held body is byte for byte what
        // returning the object would have sent; a string with this type is sent as it is.
        const body = String(reply.serialize(job));
        completed.set(row.job_id, keyId, body);
        return sendSerialized(reply, body);
      },
    );

    app.get(
      '/v1/jobs/:job_id/pose',
      {
        schema: {
          operationId: 'getJobPose',
          summary: 'Get the pose track of a completed job',
          description: 'The keypoint series the result was judged from, to draw skeletons and charts. Send Accept-Encoding: gzip for the compressed form.',
          tags: ['Jobs'],
          params: JobParams,
          response: { 200: PoseTrackSchema, ...errorResponses(...authErrors, 'job_not_found', 'pose_not_available', 'storage_stat_unavailable') },
        },
      },
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
      {
        schema: {
          operationId: 'cancelJob',
          summary: 'Cancel a queued job',
          description: 'Returns the held unit of the analysis limit. Not idempotent: a processing job answers job_already_started, a finished one job_already_finished.',
          tags: ['Jobs'],
          headers: IdempotencyHeaders,
          params: JobParams,
          response: { 200: withHeaders(JobSummary, ReplayHeaders), ...errorResponses(...authErrors, 'job_not_found', 'job_already_started', 'job_already_finished', ...idempotencyErrors) },
        },
        ...idempotent(svc),
      },
      async (request) => cancelJob(svc, request.params.job_id, { partner: keyOf(request).key_id }),
    );
  };
