import { DPOP_SIGNING_ALGORITHMS } from '@platform/dpop';
import { InsufficientScopeError, InvalidDpopProofError, InvalidTokenError, ServerError, type OAuthError } from '@platform/oauth-errors';
import { withUserInfoChallenge } from './userinfo-challenges';
import { MalformedAuthorizationError, MissingTokenError } from './userinfo-credentials';

const ALGS = `algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`;

const challengeOf = (error: OAuthError, scheme?: 'Bearer' | 'DPoP') => withUserInfoChallenge(error, scheme).headers['www-authenticate'];

describe('withUserInfoChallenge (RFC 6750 §3, RFC 9449 §7.1)', () => {
  it('a request without credentials: both schemes, no error code', () => {
    expect(challengeOf(new MissingTokenError('An access token is required'))).toBe(`Bearer, DPoP ${ALGS}`);
  });

  it('a bad Bearer token: the error in the Bearer challenge, DPoP offered beside it', () => {
    expect(challengeOf(new InvalidTokenError('expired'), 'Bearer')).toBe(`Bearer error="invalid_token", error_description="expired", DPoP ${ALGS}`);
  });

  it('a bad DPoP token or proof: the error in the DPoP challenge, Bearer offered beside it', () => {
    expect(challengeOf(new InvalidTokenError('Invalid DPoP key binding'), 'DPoP')).toBe(
      `Bearer, DPoP error="invalid_token", error_description="Invalid DPoP key binding", ${ALGS}`,
    );
    expect(challengeOf(new InvalidDpopProofError('The DPoP proof is too old').withStatus(401), 'DPoP')).toBe(
      `Bearer, DPoP error="invalid_dpop_proof", error_description="The DPoP proof is too old", ${ALGS}`,
    );
  });

  it('403 insufficient_scope: the scheme used only, with the scope', () => {
    expect(challengeOf(new InsufficientScopeError(['openid']), 'DPoP')).toBe(
      `DPoP error="insufficient_scope", error_description="The access token lacks a required scope: openid", scope="openid", ${ALGS}`,
    );
    expect(challengeOf(new InsufficientScopeError(['openid']), 'Bearer')).toBe(
      'Bearer error="insufficient_scope", error_description="The access token lacks a required scope: openid", scope="openid"',
    );
  });

  it('400 on a malformed header: the scheme it named, or both when it named neither', () => {
    expect(challengeOf(new MalformedAuthorizationError('DPoP', "The Authorization header must be 'DPoP <token>'"))).toBe(
      `DPoP error="invalid_request", error_description="The Authorization header must be 'DPoP <token>'", ${ALGS}`,
    );
    expect(challengeOf(new MalformedAuthorizationError(undefined, 'bad'))).toBe(`Bearer error="invalid_request", error_description="bad", DPoP ${ALGS}`);
  });

  it('an error that is not about the credentials: no challenge', () => {
    expect(challengeOf(new ServerError())).toBeUndefined();
  });
});
