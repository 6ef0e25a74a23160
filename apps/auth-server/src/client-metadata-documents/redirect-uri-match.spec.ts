import { matchesClientRedirectUri, onlyLoopbackRedirects } from './redirect-uri-match';

describe('matchesClientRedirectUri', () => {
  const registered = ['https://lms.acme.example/oauth/callback', 'http://127.0.0.1:33418/'];
  it.each([
    ['the https URI itself', 'https://lms.acme.example/oauth/callback', true],
    ['a trailing slash more', 'https://lms.acme.example/oauth/callback/', false],
    ['an extra query', 'https://lms.acme.example/oauth/callback?x=1', false],
    ['another port', 'https://lms.acme.example:8443/oauth/callback', false],
    ['uppercase host', 'https://LMS.acme.example/oauth/callback', false],
    ['a sibling host', 'https://evil.acme.example/oauth/callback', false],
    ['http instead of https', 'http://lms.acme.example/oauth/callback', false],
    ['a fragment', 'https://lms.acme.example/oauth/callback#x', false],
    ['loopback on another port (RFC 8252 §7.3)', 'http://127.0.0.1:50000/', true],
    ['loopback on another path', 'http://127.0.0.1:33418/other', false],
  ])('%s → %s', (_name, presented, expected) => expect(matchesClientRedirectUri(registered, presented)).toBe(expected));
});

describe('onlyLoopbackRedirects', () => {
  it.each([
    [['http://127.0.0.1/cb'], true],
    [['http://127.0.0.1/cb', 'https://vscode.dev/redirect'], false],
    [[], false],
  ])('%j → %s', (uris, expected) => expect(onlyLoopbackRedirects(uris)).toBe(expected));
});
