// Builds the API; never listens (server.ts does). Tests build it over a real service and a real
// socket.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MalformedRequest, NotReady, ShuttingDown } from '../commands/errors.js';
import { countAnswer } from '../metrics/http.js';
import type { Service } from '../service.js';
import { authenticate } from './auth.js';
import { notReadyMessage, readiness } from './readiness.js';
import { lazyRequestLogger, RequestLog } from './request-log.js';
import { answerClientError, answerOutsideRoutes, installErrorHandling, send, trackRoutes } from './errors.js';
import { exerciseRoutes } from './routes/exercises.js';
import { identityRoutes } from './routes/identity.js';
import { jobRoutes } from './routes/jobs.js';
import { uploadRoutes } from './routes/uploads.js';
import { webhookRoutes } from './routes/webhooks.js';
import { webhookDocs } from './webhook-docs.js';
import { errorResponses, Liveness } from './schemas.js';
import { precompiledCompilers } from './precompiled-schemas.js';

export interface AppOptions {
  /** Pino options (a level, and where to write: stdout when no stream), or false for silence (tests). */
  logger?: boolean | { level: string; stream?: { write(line: string): void } };
  /** Tells the in-process job runner that a job was queued. */
  wakeRunner?: () => void;
  /** How route schemas become validators and serializers: by default the code `npm run build:schemas` generated (precompiled-schemas.ts). */
  schemaCompilers?: ReturnType<typeof precompiledCompilers>;
}

/**
 * Every answer, 404s and errors included: its request id, no MIME sniffing, and nothing under /v1
 * cached (answers carry signed URLs and per-key data). Set once, as the request arrives.
 */
function securityHeaders(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  reply.header('x-request-id', request.id);
  reply.header('x-content-type-options', 'nosniff');
  if (request.url.startsWith('/v1')) reply.header('cache-control', 'no-store');
  return reply;
}

/**
 * Bodies arrive as text whatever their Content-Type (an empty or unparseable one included) and are
 * parsed only by routes that take one: a bad body on /v1/jobs is SPEC's 400. POST /v1/uploads,
 * cancel and DELETE ignore their body (SPEC), so it is never read: no 413 or 415 can come from it,
 * and Node discards the unread bytes once the answer is out.
 */
function bodyWhereRead(request: FastifyRequest): void {
  const headers = request.raw.headers;
  if (request.routeOptions.schema?.body) {
    if (headers['content-type'] !== undefined) headers['content-type'] = 'application/octet-stream';
    return;
  }
  delete headers['content-type'];
  delete headers['content-length'];
  delete headers['transfer-encoding'];
}

/**
 * A path segment that is not valid percent-encoding (`%zz`, a lone `%`, bytes that are not UTF-8)
 * would stop the router with a 400 before authentication. Its `%` signs are taken literally
 * instead, so `/v1/jobs/%zz` is an id like any other: 401 without a key, 404 job_not_found with
 * one (SPEC: an id that does not exist is 404), and an unknown path stays 404 not_found. Paths
 * without a `%` (nearly all) are returned as they are.
 */
export function literalBadEscapes(url: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (!path.includes('%')) return url;
  const fixed = path
    .split('/')
    .map((segment) => {
      try {
        decodeURIComponent(segment);
        return segment;
      } catch {
        return segment.replaceAll('%', '%25');
      }
    })
    .join('/');
  return q < 0 ? fixed : fixed + url.slice(q);
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(svc: Service, opts: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // Silence is pino at level silent rather than no logger: fastify reports every answer done
    // (request-log.ts, where the HTTP metrics are counted) only to a server that has a logger.
    logger: {
      ...(typeof opts.logger === 'object' ? opts.logger : opts.logger === true ? {} : { level: 'silent' }),
      // Never log headers (API keys) or query strings (signed URLs live in bodies, but be safe).
      serializers: {
        req: (req) => ({ id: req.id, method: req.method, path: String(req.url).split('?')[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
    },
    // Every answer is counted for /metrics where fastify reports it done (request-log.ts).
    logController: new RequestLog(countAnswer(svc.metrics.http)),
    // Each request's pino child only when something needs it (request-log.ts).
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: svc.config.bodyLimitBytes,
    // A slow or silent client never holds a socket for long (README "Timeouts"): the request must
    // arrive whole within requestTimeout (Node checks every 5 s), its headers within headersTimeout,
    // a socket with no bytes either way is closed after connectionTimeout, an idle keep-alive after
    // keepAliveTimeout. Refusals are the envelope with 408 request_timeout (errors.ts).
    requestTimeout: svc.config.timeouts.apiRequestMs,
    connectionTimeout: svc.config.timeouts.apiIdleMs,
    keepAliveTimeout: svc.config.timeouts.keepAliveMs,
    // Ids of any length reach the route, so authentication and SPEC's 404 come first; Node's 16 KiB
    // header limit (431) is what bounds a URL.
    routerOptions: { maxParamLength: 16 * 1024 },
    rewriteUrl: (req) => literalBadEscapes(req.url ?? '/'),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: false } },
    // Validators and serializers compiled by the build step, not at every start (issue 22).
    schemaController: { compilersFactory: opts.schemaCompilers ?? precompiledCompilers() },
    // Hostile or broken requests get the envelope too: refused by Node's parser, no Host header
    // (Node would answer an empty 400).
    clientErrorHandler: answerClientError,
    // These answers skip the hooks: the headers every answer carries are set here too.
    frameworkErrors: (err, request, reply) => send(securityHeaders(request, reply), err),
    http: { requireHostHeader: false, headersTimeout: svc.config.timeouts.headersMs, connectionsCheckingInterval: 5_000 },
    // Requests arriving while the server closes get the envelope with Retry-After (below), not
    // fastify's own 503 body.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();
  answerOutsideRoutes(app.server);

  const allowedMethods = trackRoutes(app);
  installErrorHandling(app, allowedMethods);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback-style hooks, one per phase: every request pays for each hook (an async one costs a
  // promise and a turn of the microtask queue), and these run on every request (issue 22).
  // Headers set here stay on whatever answer follows, an error envelope included.
  app.addHook('onRequest', (request, reply, done) => {
    securityHeaders(request, reply);
    if (request.method !== 'GET' && request.method !== 'HEAD') bodyWhereRead(request);
    done(closing ? new ShuttingDown() : undefined);
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  const parseJsonBody = async (request: FastifyRequest) => {
    if (request.body === undefined || request.body === '') throw new MalformedRequest('Malformed request: the body is empty; send a JSON object.');
    if (typeof request.body !== 'string') return;
    // A UTF-8 byte-order mark (some Windows tools write one) is not JSON, but RFC 8259 section 8.1
    // lets a parser ignore it: it is skipped, and only it (a body of nothing else is still empty).
    const text = request.body.charCodeAt(0) === 0xfeff ? request.body.slice(1) : request.body;
    if (text === '') throw new MalformedRequest('Malformed request: the body is empty; send a JSON object.');
    try {
      request.body = JSON.parse(text);
    } catch {
      throw new MalformedRequest('Malformed request: the body is not valid JSON.');
    }
  };
  // Only routes that take a body get the hook: a GET does not pay for it.
  app.addHook('onRoute', (route) => {
    if (!route.schema?.body) return;
    route.preValidation = [parseJsonBody, ...[route.preValidation ?? []].flat()];
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Rep Coach API',
        version: '1.0.0',
        description: 'Analyzes exercise videos repetition by repetition. Authenticate with Authorization: Bearer <API key>. Every error is {"error":{"code","message"}}: branch on code.',
        // No open-source licence: partners use the API and this document under their agreement.
        license: { name: 'Proprietary (partner agreement)', identifier: 'LicenseRef-Proprietary' },
      },
      // What `npm start` listens on by default; a deployment's operator gives partners its own base URL.
      servers: [{ url: 'http://127.0.0.1:8080', description: 'a local `npm start` (default HOST and PORT)' }],
      tags: [
        { name: 'Health', description: 'Liveness, without authentication' },
        { name: 'Identity', description: 'The calling partner and its key' },
        { name: 'Exercises', description: 'The exercise catalog' },
        { name: 'Uploads', description: 'Upload spots: a handle and a signed URL to PUT the video to' },
        { name: 'Jobs', description: 'Analysis jobs and their results' },
        { name: 'Webhooks', description: 'Endpoints that receive job.completed, job.failed and job.cancelled, signed per Standard Webhooks' },
      ],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      webhooks: webhookDocs,
      security: [{ bearer: [] }],
    },
  });

  app.get(
    '/livez',
    {
      schema: {
        operationId: 'getLiveness',
        summary: 'Liveness probe',
        description: 'Confirms the process answers; no authentication, no account data.',
        tags: ['Health'],
        security: [],
        response: { 200: Liveness, ...errorResponses('bad_request') },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // Operators' probe, not partners' API: out of the OpenAPI document, like /metrics (readiness.ts).
  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const failed = await readiness(svc);
    if (Object.keys(failed).length === 0) return { status: 'ready' };
    request.log.warn({ failed }, 'not ready');
    return send(reply, new NotReady(notReadyMessage(failed)));
  });

  await app.register(async (v1) => {
    v1.decorateRequest('apiKey', null);
    v1.addHook('onRequest', authenticate(svc));
    await v1.register(identityRoutes(svc));
    await v1.register(exerciseRoutes(svc));
    await v1.register(uploadRoutes(svc));
    await v1.register(jobRoutes(svc, opts.wakeRunner ?? (() => {})));
    await v1.register(webhookRoutes(svc));
  });

  await app.ready();
  return app;
}
