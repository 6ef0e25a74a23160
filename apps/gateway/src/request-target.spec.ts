import { isAmbiguousPath, nonOriginTarget } from './request-target';

describe('isAmbiguousPath', () => {
  it.each(['/./metrics', '/oauth/../metrics', '/%2e%2E/x', '/a\\b'])('refuses %s', (path) => {
    expect(isAmbiguousPath(path)).toBe(true);
  });

  it.each(['/', '/api/v1/courses', '/a/...', '/.well-known/jwks.json'])('lets %s through', (path) => {
    expect(isAmbiguousPath(path)).toBe(false);
  });
});

describe('nonOriginTarget', () => {
  const configured = 'https://academy.example';

  describe('absolute-form naming this origin: accepted as the origin-form it stands for, the Host from the target (RFC 9112 §3.2.2)', () => {
    it.each([
      // [method, target, Host header, public origin, path forwarded, Host forwarded]
      ['GET', 'https://academy.example/api/v1/courses?limit=5', 'elsewhere.test', configured, '/api/v1/courses?limit=5', 'academy.example'],
      ['POST', 'HTTPS://Academy.Example:443/oauth/token', undefined, configured, '/oauth/token', 'Academy.Example:443'],
      ['GET', 'https://academy.example', 'academy.example', configured, '/', 'academy.example'],
      ['GET', 'https://academy.example?x=1', 'academy.example', configured, '/?x=1', 'academy.example'],
      ['GET', 'http://127.0.0.1:3000/.well-known/jwks.json', 'whatever', 'http://127.0.0.1:3000', '/.well-known/jwks.json', '127.0.0.1:3000'],
      ['OPTIONS', 'https://academy.example/api/v1/courses', 'academy.example', configured, '/api/v1/courses', 'academy.example'],
      // No PUBLIC_BASE_URL: this origin is the one the client names in Host (or has no Host to name, HTTP/1.0).
      ['GET', 'http://Platform.Local:8080/x//y', 'platform.local:8080', undefined, '/x//y', 'Platform.Local:8080'],
      ['GET', 'http://platform.local/x', undefined, undefined, '/x', 'platform.local'],
    ])('%s %s (Host %s, origin %s) -> %s', (method, target, host, origin, path, authority) => {
      expect(nonOriginTarget(method, target, host, origin)).toEqual({ accepted: true, path, authority });
    });
  });

  it.each([
    // [why, method, target, Host header, public origin, status]
    ['asterisk-form with GET (only OPTIONS may use it)', 'GET', '*', 'x', configured, 400],
    ['asterisk-form: no server-wide OPTIONS here', 'OPTIONS', '*', 'x', configured, 400],
    ['server-wide OPTIONS in absolute-form (RFC 9112 §3.2.4)', 'OPTIONS', 'https://academy.example', 'academy.example', configured, 400],
    ['another origin', 'GET', 'https://evil.test/oauth/token', 'academy.example', configured, 421],
    ['the same host over the other scheme (another origin)', 'GET', 'http://academy.example/x', 'academy.example', configured, 421],
    ['the same host on another port', 'GET', 'https://academy.example:8443/x', 'academy.example:8443', configured, 421],
    ['a host that only ends like this one', 'GET', 'https://evil.academy.example/x', 'academy.example', configured, 421],
    ['a Host that contradicts the target, no origin configured (RFC 9112 §3.2)', 'GET', 'http://evil.test/x', 'platform.local', undefined, 400],
    ['another scheme', 'GET', 'ftp://academy.example/x', 'academy.example', configured, 400],
    ['userinfo (RFC 9110 §4.2.4)', 'GET', 'https://user:pw@academy.example/x', 'academy.example', configured, 400],
    ['an empty host (RFC 9110 §4.2.1)', 'GET', 'https:///x', 'academy.example', configured, 400],
    ['a port without a host', 'GET', 'https://:443/x', 'academy.example', configured, 400],
    ['a URI without an authority', 'GET', 'mailto:someone@academy.example', 'academy.example', configured, 400],
    ['authority-form outside CONNECT', 'GET', 'academy.example:443', 'academy.example', configured, 400],
    ['no path at all', 'GET', 'x', 'x', undefined, 400],
  ])('refuses %s: %s %s -> %s', (_why, method, target, host, origin, status) => {
    const answer = nonOriginTarget(method, target, host, origin);
    expect(answer).toEqual({ accepted: false, refusal: { statusCode: status, body: { error: 'invalid_request', error_description: expect.any(String) } } });
  });

  it('reads a long target in one pass (no backtracking on a run of one character)', () => {
    const long = `https://academy.example${'/'.repeat(200_000)}x`;
    expect(nonOriginTarget('GET', long, undefined, configured)).toMatchObject({ accepted: true });
    expect(nonOriginTarget('GET', `https://${'a'.repeat(200_000)}`, undefined, configured)).toMatchObject({ accepted: false });
    expect(nonOriginTarget('GET', `${'a'.repeat(200_000)}:`, undefined, configured)).toMatchObject({ accepted: false });
  });
});
