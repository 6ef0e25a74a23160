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
  const scope = requiredScopes.join(' ') || undefined;
  if (error instanceof MissingTokenError) {
    return error.withHeader('www-authenticate', bearerChallenge({ resourceMetadata: resourceMetadataUrl, scope }));
  }
  if (error instanceof InvalidTokenError || error instanceof InsufficientScopeError || error instanceof InvalidRequestError) {
    return error.withHeader(
      'www-authenticate',
      bearerChallenge({
        error: error.error as 'invalid_token' | 'insufficient_scope' | 'invalid_request',
        errorDescription: error.description,
        scope: error instanceof InsufficientScopeError ? scope : undefined,
        resourceMetadata: resourceMetadataUrl,
      }),
    );
  }
  return error;
}
