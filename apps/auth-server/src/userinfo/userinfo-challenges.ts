import { DPOP_SIGNING_ALGORITHMS } from '@platform/dpop';
import {
  bearerChallenge,
  type BearerChallenge,
  dpopChallenge,
  InsufficientScopeError,
  InvalidDpopProofError,
  InvalidRequestError,
  InvalidTokenError,
  type OAuthError,
} from '@platform/oauth-errors';
import { MalformedAuthorizationError, MissingTokenError, type TokenScheme } from './userinfo-credentials';

/** RFC 6750 §3.1's codes and RFC 9449 §7.1's. */
type ChallengeCode = NonNullable<BearerChallenge['error']> | 'invalid_dpop_proof';

interface ChallengeParams {
  error?: ChallengeCode;
  errorDescription?: string;
  scope?: string;
}

/**
 * Userinfo's WWW-Authenticate header for an error, in one place (RFC 6750 §3, RFC 9449 §7.1):
 * - 401: a challenge for each scheme userinfo accepts, Bearer then DPoP (RFC 9449 §7.1: a server
 *   taking both "can" answer both), the error code in the challenge of the scheme the request
 *   used; none without credentials (RFC 6750 §3.1);
 * - 400 and 403: about the credentials sent, so their scheme's challenge only (both when the
 *   header named neither).
 * `scheme`: the one the request presented its token with, if it got that far.
 */
export function withUserInfoChallenge(error: OAuthError, scheme?: TokenScheme): OAuthError {
  if (error instanceof MissingTokenError) return error.withHeader('www-authenticate', both({}, undefined));
  if (!hasChallengeCode(error)) return error;
  const params: ChallengeParams = {
    error: error.error,
    errorDescription: error.description,
    ...(error instanceof InsufficientScopeError ? { scope: error.requiredScopes.join(' ') } : {}),
  };
  const used = error instanceof MalformedAuthorizationError ? error.scheme : scheme;
  if (error.status === 401 || used === undefined) return error.withHeader('www-authenticate', both(params, used ?? 'Bearer'));
  return error.withHeader('www-authenticate', challenge(used, params));
}

function both(params: ChallengeParams, used: TokenScheme | undefined): string {
  return `${challenge('Bearer', used === 'Bearer' ? params : {})}, ${challenge('DPoP', used === 'DPoP' ? params : {})}`;
}

/** RFC 9449 §7.1: the DPoP challenge names the proof algorithms accepted. */
function challenge(scheme: TokenScheme, params: ChallengeParams): string {
  return scheme === 'Bearer' ? bearerChallenge(params as BearerChallenge) : dpopChallenge(params, DPOP_SIGNING_ALGORITHMS);
}

function hasChallengeCode(error: OAuthError): error is OAuthError & { error: ChallengeCode } {
  return (
    error instanceof InvalidTokenError ||
    error instanceof InsufficientScopeError ||
    error instanceof InvalidRequestError ||
    error instanceof InvalidDpopProofError
  );
}
