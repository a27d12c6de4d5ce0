// The request log: one line per request at info (the default LOG_LEVEL), written when the answer is
// out: request id, method, path (never headers or query strings: app.ts's serializers), status and
// response time. Fastify's default is two lines per request ("incoming request", then "request
// completed" with only the status); at the API's request rates the log was a large share of a
// request's fixed cost (issue 22), so the arrival line is logged at debug: LOG_LEVEL=debug still
// shows when a request that never completes arrived.
//
// Each request's logger (request.log) is made only when it is needed (issue 22): fastify makes a
// pino child per request to carry its reqId, which costs more than the one line most requests log.
// Until something needs the child itself, a line is written by the parent with the reqId first in
// its object, which pino writes byte for byte as the child would (reqId right after the parent's
// own bindings); a line whose level is off costs a level check.
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions, Logger, LogFn } from 'pino';

export class RequestLog extends LogController {
  /** `answered`: called for every answer as it goes out, before its line (the HTTP metrics: metrics/http.ts). */
  private readonly answered: (request: FastifyRequest, reply: FastifyReply) => void;

  constructor(answered: (request: FastifyRequest, reply: FastifyReply) => void = () => {}) {
    super();
    this.answered = answered;
  }

  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.answered(request, reply);
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type Level = (typeof LEVELS)[number];

/** request.log: pino's child with `bindings`, made on first need. */
class RequestLogger {
  #child: FastifyBaseLogger | undefined;

  private readonly parent: Logger;
  private readonly bindings: Bindings;

  constructor(parent: Logger, bindings: Bindings) {
    this.parent = parent;
    this.bindings = bindings;
  }

  private get real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings));
  }

  write(level: Level, args: unknown[]): void {
    if (this.#child) return (this.#child[level] as (...a: unknown[]) => void)(...args);
    if (!this.parent.isLevelEnabled(level)) return;
    const [first, ...rest] = args;
    // An object of fields (the request lines): the parent writes it with the bindings first. A
    // message, an Error or anything else: the child itself, as pino handles those.
    if (first === null || typeof first !== 'object' || Object.getPrototypeOf(first) !== Object.prototype) {
      return (this.real[level] as (...a: unknown[]) => void)(...args);
    }
    (this.parent[level] as (...a: unknown[]) => void)({ ...this.bindings, ...first }, ...rest);
  }

  silent(): void {}

  get level(): string {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}
// The level methods live on the prototype: a request makes one object, not one closure per level.
interface RequestLogger extends Record<Level, LogFn> {}
for (const level of LEVELS) {
  RequestLogger.prototype[level] = function (this: RequestLogger, ...args: unknown[]) {
    this.write(level, args);
  } as LogFn;
}

/**
 * Fastify's childLoggerFactory for a pino logger. Options for the child (a route's own level or
 * serializers; none are set today) make the child at once.
 */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (Object.keys(options).length > 0) return logger.child(bindings, options);
  return new RequestLogger(logger as Logger, bindings);
}
