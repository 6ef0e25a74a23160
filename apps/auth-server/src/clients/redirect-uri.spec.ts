import { checkHttpsRedirectUri, checkRedirectUri, matchesRegisteredRedirectUri } from './redirect-uri';

describe('checkRedirectUri (registration)', () => {
  it.each([
    ['http://127.0.0.1:8080/callback', null],
    ['http://127.0.0.1/callback', null],
    ['http://[::1]:8080/callback', null],
    ['http://localhost:3333/oauth/callback', null],
    ['http://127.0.0.1:8080', null],
    ['https://app.example.com/callback', 'not-http'],
    ['https://127.0.0.1/callback', 'not-http'],
    ['com.example.app:/callback', 'not-http'],
    ['http://example.com/callback', 'not-loopback'],
    ['http://localhost.evil.com/callback', 'not-loopback'],
    ['http://127.0.0.2/callback', 'not-loopback'],
    ['http://user:pass@127.0.0.1/callback', 'has-userinfo'],
    ['http://evil.com@127.0.0.1/callback', 'has-userinfo'],
    ['http://127.0.0.1/callback#fragment', 'has-fragment'],
    ['HTTP://127.0.0.1/callback', 'not-normalized'],
    ['http://LOCALHOST/callback', 'not-normalized'],
    ['http://127.0.0.1/a/../callback', 'not-normalized'],
    ['http://127.0.0.1/%2e%2e/callback', 'not-normalized'],
    ['http://127.0.0.1:80/callback', 'not-normalized'],
    ['not a uri', 'not-a-url'],
  ])('%s → %s', (uri, expected) => {
    expect(checkRedirectUri(uri)).toBe(expected);
  });
});

describe('matchesRegisteredRedirectUri (authorization request)', () => {
  const registered = ['http://127.0.0.1:8080/callback', 'http://localhost/cb?x=1'];

  it.each([
    ['the registered URI itself', 'http://127.0.0.1:8080/callback', true],
    ['another port on a loopback IP (RFC 8252 §7.3)', 'http://127.0.0.1:49152/callback', true],
    ['no port', 'http://127.0.0.1/callback', true],
    ['another port on localhost with the same query', 'http://localhost:5000/cb?x=1', true],
    ['a different path', 'http://127.0.0.1:8080/other', false],
    ['a trailing slash', 'http://127.0.0.1:8080/callback/', false],
    ['a different host spelling of loopback', 'http://localhost:8080/callback', false],
    ['IPv6 loopback for an IPv4 registration', 'http://[::1]:8080/callback', false],
    ['an extra query', 'http://127.0.0.1:8080/callback?a=b', false],
    ['a different query', 'http://localhost/cb?x=2', false],
    ['a fragment', 'http://127.0.0.1:8080/callback#x', false],
    ['userinfo', 'http://a@127.0.0.1:8080/callback', false],
    ['an uppercase scheme', 'HTTP://127.0.0.1:8080/callback', false],
    ['encoded dots', 'http://127.0.0.1:8080/x/%2e%2e/callback', false],
    ['https', 'https://127.0.0.1:8080/callback', false],
    ['a look-alike host', 'http://localhost.evil.com/cb?x=1', false],
    ['garbage', '::::', false],
  ])('%s → %s', (_name, presented, expected) => {
    expect(matchesRegisteredRedirectUri(registered, presented)).toBe(expected);
  });
});

describe('checkHttpsRedirectUri (integrations, client ID metadata documents)', () => {
  it.each([
    ['https://lms.acme.example/callback', null],
    ['https://lms.acme.example/cb?x=1', null],
    ['http://lms.acme.example/cb', 'not-https'],
    ['HTTPS://lms.acme.example/cb', 'not-https'],
    ['https://user:pw@lms.acme.example/cb', 'has-userinfo'],
    ['https://lms.acme.example/cb#x', 'has-fragment'],
    ['https://LMS.acme.example/cb', 'not-normalized'],
    ['https://lms.acme.example/a/../cb', 'not-normalized'],
    ['https://lms.acme.example:443/cb', 'not-normalized'],
    ['not a uri', 'not-a-url'],
  ])('%s → %s', (uri, problem) => {
    expect(checkHttpsRedirectUri(uri)).toBe(problem);
  });
});
