import type { FastifyInstance, FastifyReply } from 'fastify';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';

/** FastifyAdapter / Fastify option: the request id is the incoming x-request-id when sane. */
export function genReqId(req: { headers: Record<string, string | string[] | undefined> }): string {
  return requestIdFrom(req.headers[REQUEST_ID_HEADER]);
}

/**
 * Every response says which request it answers: errors included, since Fastify's error
 * answers keep the headers a reply already holds. Set among Fastify's reply headers, not on
 * the raw response: a header set on the raw response before Fastify's writeHead makes Node
 * merge and validate every header one by one, on every request. Handlers that write on the raw response take the headers with them
 * through handOverToRaw.
 */
export function echoRequestId(fastify: FastifyInstance): void {
  // A callback hook: no promise per request.
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}

/**
 * Hands the response to code that writes on the raw Node response itself (the MCP SDK's
 * transport): the headers Fastify holds so far (the request id, CORS) are copied onto the raw
 * response first, then Fastify lets go of it (reply.hijack).
 */
export function handOverToRaw(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
}
