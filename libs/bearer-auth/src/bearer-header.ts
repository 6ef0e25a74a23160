import { InvalidRequestError } from '@platform/oauth-errors';
import { MissingTokenError } from './challenges';

/** RFC 6750 §2.1: `credentials = "Bearer" 1*SP b64token`, b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=". */
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const BEARER_SCHEME = /^Bearer(\s|$)/i;

/**
 * The access token of a request's Authorization header, for endpoints that authenticate
 * outside the global guard (/mcp). `undefined`: no header, the caller is anonymous. Another
 * scheme is answered like no credentials (RFC 6750 §3.1: a challenge without an error code);
 * a malformed Bearer header is `invalid_request` (400), as passport-http-bearer answers it in
 * the guard.
 */
export function bearerTokenOf(authorization: string | string[] | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  if (typeof authorization !== 'string' || !BEARER_SCHEME.test(authorization)) {
    throw new MissingTokenError('Only Bearer access tokens are accepted');
  }
  const match = BEARER_CREDENTIALS.exec(authorization.trim());
  if (!match) throw new InvalidRequestError('The Authorization header must be Bearer followed by one access token');
  return match[1];
}
