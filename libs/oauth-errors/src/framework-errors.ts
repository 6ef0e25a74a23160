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

/** Sockets already answered by answerOnSocket: what still arrives on them is the refused request's rest. */
const answered = new WeakSet<Socket>();

/** How long, and how much of a refused request's rest, is read and dropped before its socket closes. */
const LINGER_LIMITS = { ms: 5_000, bytes: 64 * 1024 * 1024 };

function answerOnSocket(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (error.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
  const refusal = parserError(error);
  const status = refusal.status;
  const body = JSON.stringify(refusal.toBody());
  // As Node's own handler: answer only if no response has started on this socket (the error
  // may come from the unread rest of a request that was already answered).
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy(error);
    return;
  }
  socket.write(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
  answered.add(socket);
  lingerThenClose(socket);
}

/**
 * Closes after the answer without losing it. The client may still be sending the refused
 * request (a large body behind a bad header): closing a socket with data unread makes the kernel
 * reset the connection, and the client's side drops the answer with it (ECONNRESET or EPIPE
 * instead of the 4xx). So only the sending side closes now, and what still arrives is read and
 * dropped until the client closes too, for at most LINGER_LIMITS (nginx's lingering_close).
 */
function lingerThenClose(socket: Socket): void {
  // Node's HTTP parser is done with this connection: its listener would parse the rest again.
  socket.removeAllListeners('data');
  socket.end();
  let seen = 0;
  const timer = setTimeout(() => socket.destroy(), LINGER_LIMITS.ms);
  timer.unref();
  socket.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > LINGER_LIMITS.bytes) socket.destroy();
  });
  socket.once('close', () => clearTimeout(timer));
  socket.resume();
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
