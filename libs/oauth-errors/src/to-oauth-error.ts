import { HttpException } from '@nestjs/common';
import {
  InvalidRequestError,
  MethodNotAllowedError,
  NotFoundError,
  OAuthError,
  PayloadTooLargeError,
  ServerError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
  UnsupportedMediaTypeError,
} from './oauth-error';

/** Error codes of the PostgreSQL driver and Prisma that mean "the database is not reachable". */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'P1001', // can't reach database server
  'P1002', // database server timed out
  'P1017', // server closed the connection
  'P2024', // timed out fetching a connection from the pool
  '57P01', // admin_shutdown
  '57P03', // cannot_connect_now
  '08006', // connection_failure
  '08001', // sqlclient_unable_to_establish_sqlconnection
]);

/** PostgreSQL refuses a NUL byte or an invalid escape in text: the input was bad, not the server. */
const BAD_TEXT_CODES = new Set(['22021', '22P05', '22P02']);

/**
 * The one mapping from anything thrown to an OAuth error. OAuth errors pass through;
 * framework errors (routing, body parsing, size limits) become their RFC 6749-style
 * equivalents; database outages become temporarily_unavailable; everything else is a
 * server_error whose detail is logged and never returned.
 */
export function toOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (hasCode(error, BAD_TEXT_CODES)) return new InvalidRequestError('The request contains characters that are not allowed', describe(error));
  if (isUnavailable(error)) {
    return new TemporarilyUnavailableError(undefined, describe(error));
  }
  const status = statusOf(error);
  if (status !== undefined && status >= 400 && status < 500) {
    switch (status) {
      case 404:
        return new NotFoundError('No such resource');
      case 405:
        return new MethodNotAllowedError('Method not allowed');
      case 413:
        return new PayloadTooLargeError('The request body is too large');
      case 415:
        return new UnsupportedMediaTypeError('Unsupported content type', describe(error));
      case 429:
        return new TooManyRequestsError(60);
      default:
        return new InvalidRequestError(clientMessage(error), describe(error));
    }
  }
  if (status === 503) return new TemporarilyUnavailableError(undefined, describe(error));
  return new ServerError(describe(error));
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof HttpException) return error.getStatus();
  if (typeof error === 'object' && error !== null && 'statusCode' in error) {
    const statusCode = (error as { statusCode: unknown }).statusCode;
    if (typeof statusCode === 'number') return statusCode;
  }
  return undefined;
}

/** Fastify's client-error messages (bad JSON, bad form body) are safe and useful to show. */
function clientMessage(error: unknown): string {
  if (error instanceof HttpException) {
    const response = error.getResponse();
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const message = (response as { message: unknown }).message;
      if (Array.isArray(message)) return message.join('; ');
      if (typeof message === 'string') return message;
    }
    return error.message;
  }
  if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string') {
    const code = (error as unknown as { code: string }).code;
    if (code.startsWith('FST_')) return error.message;
  }
  return 'The request is malformed';
}

function hasCode(error: unknown, codes: ReadonlySet<string>): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function isUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    const name = (current as { name?: unknown }).name;
    if (name === 'PrismaClientInitializationError') return true;
    const message = (current as { message?: unknown }).message;
    if (typeof message === 'string' && /Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|timeout exceeded when trying to connect/.test(message)) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
