import { bearerChallenge, InsufficientScopeError, InvalidRequestError, InvalidTokenError, OAuthError } from '@platform/oauth-errors';

/** RFC 6750 §3.1: a request without credentials gets a challenge with no error code. */
export class MissingTokenError extends OAuthError {
  readonly error = 'unauthorized';
  readonly status = 401;
}

/**
 * The one place the resource server's 401 and 403 answers get their WWW-Authenticate header
 * (RFC 6750 §3, RFC 9728 §5.1: resource_metadata lets clients find the authorization server;
 * `scope` on insufficient_scope lets MCP clients step up).
 */
export function withChallenge(error: OAuthError, requiredScopes: readonly string[], resourceMetadataUrl: string): OAuthError {
  const challenge = challengeOf(error, requiredScopes, resourceMetadataUrl);
  return challenge === undefined ? error : error.withHeader('www-authenticate', challenge);
}

/** The WWW-Authenticate value withChallenge gives this error, if any (the guard builds a route's once). */
export function challengeOf(error: OAuthError, requiredScopes: readonly string[], resourceMetadataUrl: string): string | undefined {
  const scope = requiredScopes.join(' ') || undefined;
  if (error instanceof MissingTokenError) {
    return bearerChallenge({ resourceMetadata: resourceMetadataUrl, scope });
  }
  if (error instanceof InvalidTokenError || error instanceof InsufficientScopeError || error instanceof InvalidRequestError) {
    return bearerChallenge({
      error: error.error as 'invalid_token' | 'insufficient_scope' | 'invalid_request',
      errorDescription: error.description,
      scope: error instanceof InsufficientScopeError ? scope : undefined,
      resourceMetadata: resourceMetadataUrl,
    });
  }
  return undefined;
}
