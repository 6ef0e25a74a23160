import type { FastifyReply, FastifyRequest } from 'fastify';

/** A browser exchange of the HTML pages: cookies are read from the request and set on the reply. */
export interface HttpExchange {
  request: FastifyRequest;
  reply: FastifyReply;
}
