import {
  bearerChallenge,
  type BearerChallenge,
  dpopChallenge,
  type DpopChallenge,
  InsufficientScopeError,
  InvalidDpopProofError,
  InvalidRequestError,
  InvalidTokenError,
  OAuthError,
  UseDpopNonceError,
} from '@platform/oauth-errors';
import { MalformedDpopHeaderError, MissingTokenError, type TokenScheme } from './bearer-header';

/** What every challenge of one protected resource names besides the error. */
export interface ChallengeContext {
  /** RFC 9728 §5.1: where the client finds the protected resource metadata. */
  resourceMetadataUrl: string;
  /** RFC 9449 §7.1: the DPoP challenge's `algs`, the proof algorithms accepted. */
  dpopAlgorithms: readonly string[];
}

/**
 * The one place the resource server's 401 and 403 answers get their WWW-Authenticate header
 * (RFC 6750 §3, RFC 9449 §7.1, RFC 9728 §5.1: resource_metadata lets clients find the
 * authorization server; `scope` on insufficient_scope lets MCP clients step up). `scheme`: the
 * one the request presented its token with, if any.
 */
export function withChallenge(error: OAuthError, requiredScopes: readonly string[], context: ChallengeContext, scheme?: TokenScheme): OAuthError {
  const challenge = challengeOf(error, requiredScopes, context, scheme);
  return challenge === undefined ? error : error.withHeader('www-authenticate', challenge);
}

/**
 * The WWW-Authenticate value withChallenge gives this error, if any (the guard builds a route's
 * fixed ones once):
 * - 401: a challenge for each scheme this resource accepts, Bearer then DPoP (RFC 9110 §11.6.1
 *   allows several; RFC 9449 §7.2 names this case), each with resource_metadata; the error code
 *   in the challenge of the scheme the request used (none without a token: RFC 6750 §3.1).
 * - 400 and 403: about the credentials the request sent, so only their scheme's challenge.
 */
export function challengeOf(error: OAuthError, requiredScopes: readonly string[], context: ChallengeContext, scheme?: TokenScheme): string | undefined {
  const scope = requiredScopes.join(' ') || undefined;
  const resourceMetadata = context.resourceMetadataUrl;
  if (error instanceof MissingTokenError) {
    const params = { scope, resourceMetadata };
    return `${bearerChallenge(params)}, ${dpopChallenge(params, context.dpopAlgorithms)}`;
  }
  if (!hasChallengeCode(error)) return undefined;
  const params: DpopChallenge = {
    error: error.error,
    errorDescription: error.description,
    scope: error instanceof InsufficientScopeError ? scope : undefined,
    resourceMetadata,
  };
  const used = scheme ?? (error instanceof MalformedDpopHeaderError ? 'DPoP' : 'Bearer');
  if (error.status === 401) {
    const plain = { resourceMetadata };
    return used === 'DPoP'
      ? `${bearerChallenge(plain)}, ${dpopChallenge(params, context.dpopAlgorithms)}`
      : `${bearerChallenge(params as BearerChallenge)}, ${dpopChallenge(plain, context.dpopAlgorithms)}`;
  }
  return used === 'DPoP' ? dpopChallenge(params, context.dpopAlgorithms) : bearerChallenge(params as BearerChallenge);
}

/** RFC 6750 §3.1's codes, and RFC 9449 §7.1's and §9's for the DPoP scheme. */
type ChallengeCode = NonNullable<DpopChallenge['error']>;

function hasChallengeCode(error: OAuthError): error is OAuthError & { error: ChallengeCode } {
  return (
    error instanceof InvalidTokenError ||
    error instanceof InsufficientScopeError ||
    error instanceof InvalidRequestError ||
    error instanceof InvalidDpopProofError ||
    error instanceof UseDpopNonceError
  );
}
