import { InvalidRequestError } from '@platform/oauth-errors';
import { MissingTokenError } from './challenges';

/** RFC 6750 §2.1: `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** RFC 6750 §2.1: `credentials = "Bearer" 1*SP b64token`, the scheme case-insensitive (RFC 9110 §11.1). */
const BEARER_CREDENTIALS = /^Bearer +(\S.*)$/i;
const BEARER_SCHEME = /^Bearer(\s|$)/i;

/** The description of the invalid_request answer to a malformed Bearer header, wherever it is read. */
export const MALFORMED_BEARER_HEADER = 'The Authorization header must be Bearer followed by one access token';

/** Whether a token has the RFC 6750 §2.1 b64token syntax: anything else is a malformed request. */
export function isB64Token(token: string): boolean {
  return B64TOKEN.test(token);
}

/**
 * The access token of a request's Authorization header, for endpoints that authenticate
 * outside the global guard (/mcp). `undefined`: no header, the caller is anonymous. Another
 * scheme is answered like no credentials (RFC 6750 §3.1: a challenge without an error code);
 * a malformed Bearer header is `invalid_request` (400), as the guard answers it.
 */
export function bearerTokenOf(authorization: string | string[] | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  if (typeof authorization !== 'string' || !BEARER_SCHEME.test(authorization)) {
    throw new MissingTokenError('Only Bearer access tokens are accepted');
  }
  const token = BEARER_CREDENTIALS.exec(authorization.trim())?.[1];
  if (token === undefined || !isB64Token(token)) {
    throw new InvalidRequestError(MALFORMED_BEARER_HEADER);
  }
  return token;
}
