import { InvalidRequestError, OAuthError } from '@platform/oauth-errors';

/** RFC 6750 §2.1: `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/** RFC 6750 §2.1: `credentials = "Bearer" 1*SP b64token`, the scheme case-insensitive (RFC 9110 §11.1). */
const BEARER_CREDENTIALS = /^Bearer +(\S.*)$/i;
const BEARER_SCHEME = /^Bearer(\s|$)/i;
/** RFC 9449 §7.1: `credentials = "DPoP" 1*SP token68`, token68 (RFC 9110 §11.2) being b64token's grammar. */
const DPOP_CREDENTIALS = /^DPoP +(\S.*)$/i;
const DPOP_SCHEME = /^DPoP(\s|$)/i;

/** The description of the invalid_request answer to a malformed Bearer header, wherever it is read. */
export const MALFORMED_BEARER_HEADER = 'The Authorization header must be Bearer followed by one access token';
export const MALFORMED_DPOP_HEADER = 'The Authorization header must be DPoP followed by one access token';
/** The answer to credentials of a scheme this resource does not take (RFC 6750 §3.1: like none). */
export const UNSUPPORTED_SCHEME = 'Only Bearer and DPoP access tokens are accepted';

/** RFC 6750 §3.1: a request without credentials gets a challenge with no error code. */
export class MissingTokenError extends OAuthError {
  readonly error = 'unauthorized';
  readonly status = 401;
}

/** A malformed `Authorization: DPoP` header (400): challenged in the DPoP scheme it named. */
export class MalformedDpopHeaderError extends InvalidRequestError {}

/** The two schemes an access token is presented with here (RFC 6750 §2.1, RFC 9449 §7.1). */
export type TokenScheme = 'Bearer' | 'DPoP';

export interface PresentedToken {
  scheme: TokenScheme;
  token: string;
}

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
    throw new MissingTokenError(UNSUPPORTED_SCHEME);
  }
  const token = BEARER_CREDENTIALS.exec(authorization.trim())?.[1];
  if (token === undefined || !isB64Token(token)) {
    throw new InvalidRequestError(MALFORMED_BEARER_HEADER);
  }
  return token;
}

/**
 * The access token of an `Authorization: DPoP <token>` header (the scheme case-insensitive);
 * `undefined` when the header is absent or of another scheme; a malformed DPoP header is
 * `invalid_request`. Read by the guard's DPoP strategy and by /mcp.
 */
export function dpopTokenOf(authorization: string | string[] | undefined): string | undefined {
  if (typeof authorization !== 'string' || !DPOP_SCHEME.test(authorization)) return undefined;
  const token = DPOP_CREDENTIALS.exec(authorization.trim())?.[1];
  if (token === undefined || !isB64Token(token)) throw new MalformedDpopHeaderError(MALFORMED_DPOP_HEADER);
  return token;
}

/**
 * The token of a request's Authorization header and the scheme it came with, for endpoints that
 * authenticate outside the global guard (/mcp): `undefined` for none (anonymous); another
 * scheme, several headers and malformed ones are answered as bearerTokenOf answers them.
 */
export function presentedTokenOf(authorization: string | string[] | undefined): PresentedToken | undefined {
  const dpop = dpopTokenOf(authorization);
  if (dpop !== undefined) return { scheme: 'DPoP', token: dpop };
  const bearer = bearerTokenOf(authorization);
  return bearer === undefined ? undefined : { scheme: 'Bearer', token: bearer };
}
