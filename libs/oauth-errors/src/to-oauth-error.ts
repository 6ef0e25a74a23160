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
import { classifyRegistered, hasCodeInChain, internalDetailOf } from './error-classifiers';

/**
 * Node's socket errors (libuv errno codes): a peer this service depends on did not answer. They stay
 * here, not with the data layer (libs/database-errors), because they are the transport's, not any
 * store's: PostgreSQL, Redis and an HTTP peer (fetch's `cause`) fail with the same codes, and "a peer
 * did not answer, retry later" holds in every service, including one that registers no classifier
 * (apps/gateway's upstream-error.ts reads the same codes for the same reason).
 */
const UNREACHABLE_PEER_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);

/**
 * The one mapping from anything thrown to an OAuth error. OAuth errors pass through; what a
 * registered classifier recognises (the data layer's own codes: registerErrorClassifier) becomes
 * what it says; an unreachable peer becomes temporarily_unavailable; framework errors (routing, body
 * parsing, size limits) become their RFC 6749-style equivalents; everything else is a server_error
 * whose detail is logged and never returned.
 */
export function toOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  const classified = classifyRegistered(error);
  if (classified !== undefined) return classified;
  if (hasCodeInChain(error, UNREACHABLE_PEER_CODES)) return new TemporarilyUnavailableError(undefined, internalDetailOf(error));
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
        return new UnsupportedMediaTypeError('Unsupported content type', internalDetailOf(error));
      case 429:
        return new TooManyRequestsError(60);
      default:
        return new InvalidRequestError(clientMessage(error), internalDetailOf(error));
    }
  }
  if (status === 503) return new TemporarilyUnavailableError(undefined, internalDetailOf(error));
  return new ServerError(internalDetailOf(error));
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
