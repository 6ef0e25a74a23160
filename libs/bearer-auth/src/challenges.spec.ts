import { InsufficientScopeError, InvalidDpopProofError, InvalidRequestError, InvalidTokenError, UseDpopNonceError } from '@platform/oauth-errors';
import { MissingTokenError } from './bearer-header';
import { challengeOf } from './challenges';

const METADATA = 'https://learn.example.com/.well-known/oauth-protected-resource';
const CONTEXT = { resourceMetadataUrl: METADATA, dpopAlgorithms: ['ES256', 'EdDSA'] };
const PLAIN_BEARER = `Bearer resource_metadata="${METADATA}"`;
const PLAIN_DPOP = `DPoP resource_metadata="${METADATA}", algs="ES256 EdDSA"`;

describe('challengeOf (RFC 6750 §3, RFC 9449 §7.1, RFC 9728 §5.1)', () => {
  it('a request without a token: both schemes, the scope on each, no error code', () => {
    expect(challengeOf(new MissingTokenError('x'), ['students:write'], CONTEXT)).toBe(
      `Bearer scope="students:write", resource_metadata="${METADATA}", DPoP scope="students:write", resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
  });

  it('a bad Bearer token: the error in the Bearer challenge, DPoP offered beside it', () => {
    expect(challengeOf(new InvalidTokenError('expired'), ['students:read'], CONTEXT, 'Bearer')).toBe(
      `Bearer error="invalid_token", error_description="expired", resource_metadata="${METADATA}", ${PLAIN_DPOP}`,
    );
  });

  it('a bad DPoP token: the error in the DPoP challenge, Bearer offered beside it', () => {
    expect(challengeOf(new InvalidTokenError('Invalid DPoP key binding'), [], CONTEXT, 'DPoP')).toBe(
      `${PLAIN_BEARER}, DPoP error="invalid_token", error_description="Invalid DPoP key binding", resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
  });

  it('a bad proof: DPoP error="invalid_dpop_proof"', () => {
    expect(challengeOf(new InvalidDpopProofError('The DPoP proof is too old').withStatus(401), [], CONTEXT, 'DPoP')).toBe(
      `${PLAIN_BEARER}, DPoP error="invalid_dpop_proof", error_description="The DPoP proof is too old", resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
  });

  it('a nonce asked for: DPoP error="use_dpop_nonce" (RFC 9449 §9)', () => {
    expect(challengeOf(new UseDpopNonceError('n', 'Resource server requires nonce in DPoP proof').withStatus(401), [], CONTEXT, 'DPoP')).toBe(
      `${PLAIN_BEARER}, DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
  });

  it('403 insufficient_scope on a DPoP request: the DPoP scheme only, with the scope', () => {
    expect(challengeOf(new InsufficientScopeError(['orders:read']), ['orders:read'], CONTEXT, 'DPoP')).toBe(
      `DPoP error="insufficient_scope", error_description="The access token lacks a required scope: orders:read", scope="orders:read", resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
  });

  it('403 insufficient_scope on a Bearer request: the Bearer scheme only', () => {
    expect(challengeOf(new InsufficientScopeError(['orders:read']), ['orders:read'], CONTEXT, 'Bearer')).toBe(
      `Bearer error="insufficient_scope", error_description="The access token lacks a required scope: orders:read", scope="orders:read", resource_metadata="${METADATA}"`,
    );
  });

  it('400 invalid_request: the scheme the malformed header named', () => {
    expect(challengeOf(new InvalidRequestError('bad'), [], CONTEXT, 'DPoP')).toBe(
      `DPoP error="invalid_request", error_description="bad", resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
    expect(challengeOf(new InvalidRequestError('bad'), [], CONTEXT)).toBe(`Bearer error="invalid_request", error_description="bad", resource_metadata="${METADATA}"`);
  });
});
