import { bearerChallenge } from './www-authenticate';

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
