import { InvalidRequestError, InvalidTokenError } from '@platform/oauth-errors';

/** The two schemes userinfo takes an access token with (RFC 6750 §2.1, RFC 9449 §7.1). */
export type TokenScheme = 'Bearer' | 'DPoP';

export interface PresentedToken {
  scheme: TokenScheme;
  token: string;
}

/**
 * RFC 6750 §2.1 `credentials = "Bearer" 1*SP b64token` and RFC 9449 §7.1 `credentials = "DPoP"
 * 1*SP token68` (the same grammar); schemes are case-insensitive (RFC 9110 §11.1).
 */
const CREDENTIALS = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i;
const SCHEME = /^(Bearer|DPoP)(?:\s|$)/i;

/** A request without credentials: a bare challenge, no error code (RFC 6750 §3.1). */
export class MissingTokenError extends InvalidTokenError {}

/** A malformed Authorization header, and the scheme it named if it named one of ours. */
export class MalformedAuthorizationError extends InvalidRequestError {
  constructor(
    readonly scheme: TokenScheme | undefined,
    description: string,
  ) {
    super(description);
  }
}

/** The access token of userinfo's Authorization header and the scheme it came with. */
export function presentedToken(authorization: string | undefined): PresentedToken {
  if (!authorization) throw new MissingTokenError('An access token is required');
  const match = CREDENTIALS.exec(authorization);
  if (match?.[1] !== undefined && match[2] !== undefined) {
    return { scheme: schemeOf(match[1]), token: match[2] };
  }
  const named = SCHEME.exec(authorization)?.[1];
  const scheme = named === undefined ? undefined : schemeOf(named);
  throw new MalformedAuthorizationError(
    scheme,
    scheme === undefined ? "The Authorization header must be 'Bearer <token>' or 'DPoP <token>'" : `The Authorization header must be '${scheme} <token>'`,
  );
}

function schemeOf(name: string): TokenScheme {
  return name.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
}
