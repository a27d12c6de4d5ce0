// createClient({ baseUrl, apiKey }): one method per operation of the OpenAPI document, named by
// its operationId and typed from the generated schema, plus analyze() for the whole flow.
import { randomUUID } from 'node:crypto';
import { operationTable } from './generated/operations.js';
import type { operations } from './generated/schema.js';
import { RepCoachError } from './errors.js';
import { defaultRetryPolicy, retryDelay, sleep, type RetryPolicy } from './retry.js';
import { send, type ApiResponse, type RequestOptions, type Transport } from './transport.js';
import { putVideo, type UploadProgress, type VideoSource } from './upload.js';

export type OperationId = keyof typeof operationTable & keyof operations;
type Op<K extends OperationId> = operations[K];

type PathParams<O> = O extends { parameters: { path: infer P } } ? (P extends object ? P : unknown) : unknown;
type QueryParams<O> = O extends { parameters: { query?: infer Q } } ? ([NonNullable<Q>] extends [never] ? unknown : { query?: NonNullable<Q> }) : unknown;
type BodyOf<O> = O extends { requestBody: { content: { 'application/json': infer B } } } ? { body: B } : unknown;

/** A method's input: its path parameters by name, `query` and `body` when the operation has them. */
export type Input<K extends OperationId> = PathParams<Op<K>> & QueryParams<Op<K>> & BodyOf<Op<K>>;

type SuccessStatus = 200 | 201 | 202 | 204;
type Success<R> = { [S in keyof R]: S extends SuccessStatus ? (R[S] extends { content: { 'application/json': infer J } } ? J : undefined) : never }[keyof R];
/** A method's result: the body of the operation's success answer. */
export type Output<K extends OperationId> = Op<K> extends { responses: infer R } ? Success<R> : never;

type Args<K extends OperationId> = {} extends Input<K> ? [input?: Input<K>, options?: RequestOptions] : [input: Input<K>, options?: RequestOptions];
export type OperationMethod<K extends OperationId> = (...args: Args<K>) => Promise<Output<K>>;

export type Job = Output<'getJob'>;
export type JobSummary = Output<'submitJob'>;
export type JobStatus = Job['status'];
export type AnalysisResult = NonNullable<Job['result']>;
export type Repetition = AnalysisResult['repetitions'][number];
export type Issue = Repetition['issues'][number];
export type Identity = Output<'getIdentity'>;
export type Exercise = Output<'listExercises'>['exercises'][number];
export type UploadSpot = Output<'createUpload'>;
export type UploadStatus = Output<'getUpload'>;
export type JobList = Output<'listJobs'>;
export type PoseTrack = Output<'getJobPose'>;
/** Every error code some operation of the document lists. */
export type ErrorCode = (typeof operationTable)[OperationId]['errorCodes'][number];

export const TERMINAL_STATUSES: ReadonlySet<JobStatus> = new Set(['completed', 'failed', 'cancelled']);

/** The server's own message for 404 unknown_exercise (test/client/client.int compares it with a real answer). */
export const UNKNOWN_EXERCISE_MESSAGE = 'The exercise_id is not in the exercise catalog.';
/** How long a catalog read is trusted for an id it holds; an id it lacks is always checked live. */
const CATALOG_TTL_MS = 10 * 60_000;

export interface ClientOptions {
  /** The API's base URL, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  apiKey: string;
  /** Overrides for the retry policy (defaults: 4 retries, 1 s exponential backoff, waits up to 5 min). */
  retry?: Partial<RetryPolicy>;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  userAgent?: string;
}

export interface WaitOptions {
  /** Time between polls; SPEC recommends (and the default is) 10 s. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  /** Called with every state of the job read while waiting. */
  onJobUpdate?: (job: Job) => void;
}

export interface AnalyzeOptions extends WaitOptions {
  exerciseId: string;
  onUploadProgress?: (progress: UploadProgress) => void;
  /** Content-Type of the upload; default from the file extension or the Blob's type. */
  contentType?: string;
  /** Called once the job is accepted, before polling starts. */
  onSubmitted?: (job: JobSummary & { handle: string }) => void;
}

export type RepCoachClient = { [K in OperationId]: OperationMethod<K> } & {
  readonly baseUrl: string;
  /** Any request to the API, for an operation this client version does not know yet. */
  request<T = unknown>(method: string, path: string, init?: RequestOptions & { query?: Record<string, string | number | boolean | undefined>; body?: unknown }): Promise<ApiResponse<T>>;
  /** Polls a job until it is completed, failed or cancelled, and returns it. */
  waitForJob(jobId: string, options?: WaitOptions): Promise<Job>;
  /**
   * The whole flow: mints an upload spot, streams the video to it with progress, submits the job
   * with an Idempotency-Key, polls until the job ends and returns it (completed, failed or
   * cancelled: look at status). Throws RepCoachError when a step is refused; after
   * internal_error nothing is resubmitted (SPEC: the handle may already be claimed). The exercise
   * id is checked against the catalog first (GET /v1/exercises, kept for 10 min; an id it lacks is
   * looked up live again): an unknown one throws 404 unknown_exercise, as the server would, before
   * anything is minted or uploaded.
   */
  analyze(video: VideoSource, options: AnalyzeOptions): Promise<Job>;
};

function fillPath(template: string, input: Record<string, unknown>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = input[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}

export function createClient(options: ClientOptions): RepCoachClient {
  if (!options.baseUrl) throw new TypeError('baseUrl is required');
  if (!options.apiKey) throw new TypeError('apiKey is required');
  let base: URL | undefined;
  try {
    base = new URL(options.baseUrl);
  } catch {
    base = undefined;
  }
  if (!base || (base.protocol !== 'http:' && base.protocol !== 'https:')) throw new TypeError(`baseUrl must be an http(s) URL, got "${options.baseUrl}"`);
  // A key read from a file keeps its line break ("rk_...\n"): fetch refused the header, and the
  // refusal was taken for a dropped connection, retried for 10 s and reported as network_error
  // "no answer" (issue rx). Whitespace around a header value is not part of it on the wire
  // (RFC 9110 5.5), so it is trimmed; a control character inside cannot be sent at all.
  const apiKey = options.apiKey.trim();
  if (!apiKey) throw new TypeError('apiKey is required');
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(apiKey)) throw new TypeError('apiKey holds a control character (a line break inside it?): no HTTP header can carry it');
  const transport: Transport = {
    baseUrl: options.baseUrl,
    apiKey,
    fetch: options.fetch ?? globalThis.fetch,
    retry: { ...defaultRetryPolicy, ...options.retry },
    userAgent: options.userAgent ?? '@rep-coach/client/0.1.0',
  };

  const methods = Object.fromEntries(
    (Object.keys(operationTable) as OperationId[]).map((id) => {
      const { method, path } = operationTable[id];
      const call = async (input: Record<string, unknown> = {}, opts: RequestOptions = {}) => {
        const res = await send(transport, {
          ...opts,
          method,
          path: fillPath(path, input),
          query: input.query as Record<string, string | undefined> | undefined,
          body: input.body,
        });
        return res.body;
      };
      return [id, call];
    }),
  ) as unknown as { [K in OperationId]: OperationMethod<K> };

  // The catalog as last read by this client (any listExercises call refreshes it).
  let catalog: { ids: Set<string>; at: number; requestId: string | undefined } | undefined;
  const listExercises = async (input?: Record<string, unknown>, opts: RequestOptions = {}) => {
    const res = await send<Output<'listExercises'>>(transport, { ...opts, method: operationTable.listExercises.method, path: operationTable.listExercises.path });
    catalog = { ids: new Set(res.body.exercises.map((e) => e.exercise_id)), at: Date.now(), requestId: res.headers.get('x-request-id') ?? undefined };
    return res.body;
  };

  /**
   * SPEC: only an id the live listing returns is accepted. A typo used to cost a mint (one of the
   * key's spots per window), the whole upload and bytes held until the spot expired, before the
   * submission's 404. A cached hit is trusted for CATALOG_TTL_MS (an id removed since then still
   * gets the server's 404 at submission); a miss is read live, so a new exercise is never refused.
   */
  async function checkExercise(exerciseId: string, signal: AbortSignal | undefined): Promise<void> {
    if (catalog && catalog.ids.has(exerciseId) && Date.now() - catalog.at < CATALOG_TTL_MS) return;
    await listExercises(undefined, { signal });
    if (catalog!.ids.has(exerciseId)) return;
    throw new RepCoachError({ code: 'unknown_exercise', message: UNKNOWN_EXERCISE_MESSAGE, status: 404, requestId: catalog!.requestId });
  }

  const client: RepCoachClient = {
    ...methods,
    listExercises: listExercises as unknown as RepCoachClient['listExercises'],
    baseUrl: options.baseUrl,
    request: (method, path, init = {}) => send(transport, { ...init, method, path }),

    async waitForJob(jobId, { pollIntervalMs = 10_000, signal, onJobUpdate } = {}) {
      for (;;) {
        const job = await client.getJob({ job_id: jobId }, { signal });
        onJobUpdate?.(job);
        if (TERMINAL_STATUSES.has(job.status)) return job;
        await sleep(pollIntervalMs, signal);
      }
    },

    async analyze(video, opts) {
      if (!opts?.exerciseId) throw new TypeError('exerciseId is required');
      const { signal } = opts;
      await checkExercise(opts.exerciseId, signal);
      // One key per request kind: a retried mint or submission is replayed, never doubled.
      const spot = await client.createUpload(undefined, { signal, idempotencyKey: randomUUID() });
      await uploadWithRetries(transport.retry, spot.upload_url, video, opts);
      const submitted = await client.submitJob(
        { body: { upload_handle: spot.handle, exercise_id: opts.exerciseId } },
        { signal, idempotencyKey: randomUUID() },
      );
      opts.onSubmitted?.({ ...submitted, handle: spot.handle });
      return client.waitForJob(submitted.job_id, opts);
    },
  };
  return client;
}

/** A PUT of the same bytes before the claim replaces them: safe to repeat on a dropped connection. */
async function uploadWithRetries(policy: RetryPolicy, url: string, video: VideoSource, opts: AnalyzeOptions): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await putVideo(url, video, { contentType: opts.contentType, onProgress: opts.onUploadProgress, signal: opts.signal });
    } catch (err) {
      if (!(err instanceof RepCoachError) || !err.retryable || attempt >= policy.maxRetries) throw err;
      const wait = retryDelay(policy, attempt, err.retryAfterMs);
      if (wait > policy.maxDelayMs) throw err;
      await sleep(wait, opts.signal);
    }
  }
}
