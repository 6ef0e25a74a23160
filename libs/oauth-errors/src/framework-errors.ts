import type { FastifyServerOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { OAuthError, ServerError } from './oauth-error';
import { sendOAuthError } from './oauth-exception.filter';

/** An invalid_request with the HTTP status Fastify (or Node's parser) chose for it. */
class FrameworkRequestError extends OAuthError {
  readonly error = 'invalid_request';
  constructor(
    readonly status: number,
    description: string,
    internalDetail?: string,
  ) {
    super(description, internalDetail);
  }
}

/** What the client is told; the offending URL is never repeated back. */
const ROUTER_ERRORS: Record<string, { status: number; description: string }> = {
  FST_ERR_BAD_URL: { status: 400, description: 'The request path is not valid percent-encoded UTF-8' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, description: 'A path segment is too long' },
};

function routerError(code: string | undefined): OAuthError {
  const known = code === undefined ? undefined : ROUTER_ERRORS[code];
  return known ? new FrameworkRequestError(known.status, known.description) : new ServerError(code);
}

/** Node's HTTP parser errors, answered on the raw socket before any request object exists. */
function parserError(error: NodeJS.ErrnoException): OAuthError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new FrameworkRequestError(431, 'The request headers are too large');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new FrameworkRequestError(408, 'The request took too long to arrive');
  return new FrameworkRequestError(400, 'The request is not valid HTTP');
}

function answerOnSocket(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = parserError(error);
  const status = refusal.status;
  const body = JSON.stringify(refusal.toBody());
  // As Node's own handler: answer only if no response has started on this socket (the error
  // may come from the unread rest of a request that was already answered).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Fastify answers a few requests itself, before any route, hook or Nest filter runs: a path
 * that is not valid UTF-8, a path parameter over maxParamLength, and whatever Node's HTTP
 * parser refuses (headers over 16 KiB, garbage). These options give those answers the same
 * RFC 6749 §5.2 body as every other error. Spread into the Fastify (or FastifyAdapter) options.
 */
export const frameworkErrorOptions: Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> = {
  frameworkErrors: (error, _request, reply) => sendOAuthError(reply, routerError(error.code)),
  clientErrorHandler: answerOnSocket,
};
