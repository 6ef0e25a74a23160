import { AccessDeniedError, InvalidScopeError } from '@platform/oauth-errors';
import { authorizationResponseUrl, buildRedirectUrl, descriptionForRedirect, errorResponseUrl } from './redirect';

const ISSUER = 'https://auth.example.test';

describe('buildRedirectUrl', () => {
  it.each([
    ['no query', 'http://127.0.0.1:8765/callback', 'http://127.0.0.1:8765/callback?code=abc&state=xyz'],
    ['an existing query, kept', 'http://127.0.0.1:8765/cb?app=1', 'http://127.0.0.1:8765/cb?app=1&code=abc&state=xyz'],
    // Re-serializing the query with URLSearchParams would turn %20 into + and `flag` into `flag=`.
    ['an existing query, byte for byte', 'http://localhost:9/cb?a=b%20c&flag', 'http://localhost:9/cb?a=b%20c&flag&code=abc&state=xyz'],
    ['a bare origin', 'http://[::1]:4000', 'http://[::1]:4000/?code=abc&state=xyz'],
  ])('appends to %s', (_name, redirectUri, expected) => {
    expect(buildRedirectUrl(redirectUri, { code: 'abc', state: 'xyz' })).toBe(expected);
  });

  it('encodes values and leaves out undefined ones', () => {
    const url = buildRedirectUrl('http://127.0.0.1:1/cb', { state: 'a b&c=d#e', nonce: undefined });
    expect(url).toBe('http://127.0.0.1:1/cb?state=a+b%26c%3Dd%23e');
    expect(new URL(url).searchParams.get('state')).toBe('a b&c=d#e');
  });
});

describe('authorization responses', () => {
  it('carries code, state and iss (RFC 9207)', () => {
    const url = new URL(authorizationResponseUrl('http://127.0.0.1:8765/callback', 'the-code', 'st', ISSUER));
    expect(Object.fromEntries(url.searchParams)).toEqual({ code: 'the-code', state: 'st', iss: ISSUER });
  });

  it('omits state when the request had none', () => {
    const url = new URL(authorizationResponseUrl('http://127.0.0.1:8765/callback', 'the-code', undefined, ISSUER));
    expect(url.searchParams.has('state')).toBe(false);
  });

  it('carries error, error_description, state and iss', () => {
    const url = new URL(errorResponseUrl('http://127.0.0.1:8765/callback', new AccessDeniedError(), 'st', ISSUER));
    expect(Object.fromEntries(url.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The resource owner denied the request',
      state: 'st',
      iss: ISSUER,
    });
  });

  it('keeps error_description within the characters RFC 6749 §4.1.2.1 allows', () => {
    const error = new InvalidScopeError('Unknown scope: "x\\y" — é');
    const url = new URL(errorResponseUrl('http://127.0.0.1:8765/callback', error, undefined, ISSUER));
    expect(url.searchParams.get('error_description')).toBe("Unknown scope: 'x/y' - e");
    expect(descriptionForRedirect('a'.repeat(1000))).toHaveLength(500);
  });
});
