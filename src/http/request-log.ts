// The request log: one line per request at info (the default LOG_LEVEL), written when the answer is
// out: request id, method, path (never headers or query strings: app.ts's serializers), status and
// response time. Fastify's default is two lines per request ("incoming request", then "request
// completed" with only the status); at the API's request rates the log was a large share of a
// request's fixed cost (issue 22), so the arrival line is logged at debug: LOG_LEVEL=debug still
// shows when a request that never completes arrived.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class RequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
