import type { FastifyInstance } from 'fastify';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';

/** FastifyAdapter / Fastify option: the request id is the incoming x-request-id when sane. */
export function genReqId(req: { headers: Record<string, string | string[] | undefined> }): string {
  return requestIdFrom(req.headers[REQUEST_ID_HEADER]);
}

/**
 * Every response says which request it answers. Set on the raw response at the start, so
 * that errors and handlers writing to the raw response (MCP) carry it too.
 */
export function echoRequestId(fastify: FastifyInstance): void {
  // A callback hook: no promise per request.
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
    done();
  });
}
