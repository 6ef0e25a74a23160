import { bearerChallenge, dpopChallenge } from './www-authenticate';

describe('bearerChallenge (RFC 6750 §3)', () => {
  it('is a bare scheme when there is nothing to say', () => {
    expect(bearerChallenge({})).toBe('Bearer');
  });

  it('lists attributes as quoted strings in a fixed order', () => {
    expect(
      bearerChallenge({
        resourceMetadata: 'http://127.0.0.1:3000/.well-known/oauth-protected-resource',
        scope: 'students:read',
        error: 'insufficient_scope',
      }),
    ).toBe(
      'Bearer error="insufficient_scope", scope="students:read", resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource"',
    );
  });

  it('keeps error_description within RFC 6750 §3 (no quote, no backslash, no control character): the header cannot be split', () => {
    expect(bearerChallenge({ error: 'invalid_token', errorDescription: 'a "b" \\ c\r\nSet-Cookie: x' })).toBe(
      "Bearer error=\"invalid_token\", error_description=\"a 'b' / c  Set-Cookie: x\"",
    );
  });

  it('escapes quotes and drops control characters in the other attributes', () => {
    expect(bearerChallenge({ realm: 'a "b"\r\n' })).toBe('Bearer realm="a \\"b\\""');
  });
});

describe('dpopChallenge (RFC 9449 §7.1)', () => {
  const METADATA = 'https://learn.example/.well-known/oauth-protected-resource';

  it('always names the proof algorithms accepted: a challenge with nothing else is the scheme and algs', () => {
    expect(dpopChallenge({}, ['ES256', 'EdDSA'])).toBe('DPoP algs="ES256 EdDSA"');
  });

  it('takes RFC 6750 §3\'s auth-params in the Bearer order, then algs', () => {
    expect(dpopChallenge({ resourceMetadata: METADATA, scope: 'students:read', error: 'insufficient_scope', errorDescription: 'needs students:read' }, ['ES256'])).toBe(
      `DPoP error="insufficient_scope", error_description="needs students:read", scope="students:read", resource_metadata="${METADATA}", algs="ES256"`,
    );
  });

  it('carries the DPoP error codes (invalid_dpop_proof, and use_dpop_nonce of RFC 9449 §9)', () => {
    expect(dpopChallenge({ error: 'invalid_dpop_proof' }, ['ES256'])).toBe('DPoP error="invalid_dpop_proof", algs="ES256"');
    expect(dpopChallenge({ error: 'use_dpop_nonce' }, ['ES256'])).toBe('DPoP error="use_dpop_nonce", algs="ES256"');
  });

  it('quotes the shared auth-params as the Bearer challenge does: the header cannot be split', () => {
    expect(dpopChallenge({ realm: 'a "b"\r\n', error: 'invalid_token', errorDescription: 'a "b" \\ c\r\nSet-Cookie: x' }, ['ES256'])).toBe(
      'DPoP realm="a \\"b\\"", error="invalid_token", error_description="a \'b\' / c  Set-Cookie: x", algs="ES256"',
    );
  });
});
