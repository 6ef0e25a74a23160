/**
 * Redirect URI tricks, at registration and at authorization, through the one origin. RFC 8252
 * §7.3 and §8.3: loopback IP literals (and here `localhost`), any port at authorization time;
 * RFC 9700 §4.1.3: otherwise exact string matching. An unmatched redirect URI is an HTML error
 * page, never a redirect (RFC 6749 §4.1.2.1).
 */
import { authorizationPath, pkce, register, REDIRECT_URI, send, type RegisteredClient } from './support';

jest.setTimeout(60_000);

async function registration(redirectUri: string) {
  return send('/api/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'redirect tricks', redirect_uris: [redirectUri] }),
  });
}

describe('at registration', () => {
  it.each([
    ['userinfo', 'http://user:pass@127.0.0.1:8765/callback'],
    ['userinfo naming a loopback host before an evil one', 'http://127.0.0.1@evil.example/callback'],
    ['a fragment', 'http://127.0.0.1:8765/callback#frag'],
    ['an empty fragment', 'http://127.0.0.1:8765/callback#'],
    ['dot segments', 'http://127.0.0.1:8765/a/../callback'],
    ['encoded dot segments', 'http://127.0.0.1:8765/a/%2e%2e/callback'],
    ['a host that starts like localhost', 'http://localhost.evil.example:8765/callback'],
    ['a host that ends in a loopback address', 'http://evil.example.127.0.0.1.nip.io/callback'],
    ['another host', 'http://evil.example/callback'],
    ['https (only loopback http is registered)', 'https://127.0.0.1:8765/callback'],
    ['an uppercase scheme', 'HTTP://127.0.0.1:8765/callback'],
    ['an uppercase host', 'http://LOCALHOST:8765/callback'],
    ['a spelled-out IPv6 loopback', 'http://[0:0:0:0:0:0:0:1]:8765/callback'],
    ['an IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]:8765/callback'],
    ['a short IPv4 loopback', 'http://127.1:8765/callback'],
    ['a decimal IPv4 loopback', 'http://2130706433:8765/callback'],
    ['a hexadecimal IPv4 loopback', 'http://0x7f.0.0.1:8765/callback'],
    ['another 127/8 address', 'http://127.0.0.2:8765/callback'],
    ['the default port spelled out', 'http://127.0.0.1:80/callback'],
    ['a javascript: URI', 'javascript:alert(1)'],
    ['a data: URI', 'data:text/html,<script>alert(1)</script>'],
    ['a file: URI', 'file:///etc/passwd'],
    ['a private-use scheme', 'com.example.app:/callback'],
    ['a relative URI', '/callback'],
    ['a backslash', 'http://127.0.0.1:8765\\@evil.example/callback'],
    ['a space', 'http://127.0.0.1:8765/call back'],
    ['a CRLF', 'http://127.0.0.1:8765/callback\r\nSet-Cookie: x=1'],
    ['a NUL', 'http://127.0.0.1:8765/callback\u0000'],
  ])('refuses %s', async (_name, uri) => {
    const response = await registration(uri);
    expect(response.status).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_redirect_uri', error_description: expect.any(String) });
  });

  it.each([
    ['an IPv4 loopback with a port', 'http://127.0.0.1:8765/callback'],
    ['an IPv6 loopback with a port', 'http://[::1]:8765/callback'],
    ['localhost with a port', 'http://localhost:8765/callback'],
    ['a loopback without a port', 'http://127.0.0.1/callback'],
    ['a query', 'http://127.0.0.1:8765/callback?tenant=a'],
  ])('accepts %s exactly as sent', async (_name, uri) => {
    const response = await registration(uri);
    expect(response.status).toBe(201);
    expect(response.json()['redirect_uris']).toEqual([uri]);
  });
});

describe('at authorization, for a client registered with http://127.0.0.1:8765/callback', () => {
  let client: RegisteredClient;

  beforeAll(async () => {
    client = await register();
  });

  const open = (redirectUri: string) => send(authorizationPath(client.client_id, pkce().challenge, { redirect_uri: redirectUri }));

  it.each([
    ['a trailing slash', 'http://127.0.0.1:8765/callback/'],
    ['a longer path', 'http://127.0.0.1:8765/callbackx'],
    ['a sub-path', 'http://127.0.0.1:8765/callback/x'],
    ['another case', 'http://127.0.0.1:8765/Callback'],
    ['dot segments', 'http://127.0.0.1:8765/x/../callback'],
    ['percent-encoding', 'http://127.0.0.1:8765/%63allback'],
    ['an added query', 'http://127.0.0.1:8765/callback?x=1'],
    ['a fragment', 'http://127.0.0.1:8765/callback#x'],
    ['userinfo', 'http://evil@127.0.0.1:8765/callback'],
    ['an at-sign in the path', 'http://127.0.0.1:8765/callback@evil.example'],
    ['an uppercase scheme', 'HTTP://127.0.0.1:8765/callback'],
    ['https', 'https://127.0.0.1:8765/callback'],
    ['localhost for 127.0.0.1', 'http://localhost:8765/callback'],
    ['the IPv6 loopback for 127.0.0.1', 'http://[::1]:8765/callback'],
    ['a host that starts like localhost', 'http://localhost.evil.example:8765/callback'],
    ['another host', 'http://evil.example/callback'],
    ['a short IPv4 loopback', 'http://127.1:8765/callback'],
    ['a backslash', 'http://127.0.0.1:8765\\callback'],
    ['nothing but the origin', 'http://127.0.0.1:8765'],
  ])('refuses %s with an error page, without redirecting', async (_name, uri) => {
    const response = await open(uri);
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.text).toContain('redirect_uri');
  });

  it.each([
    ['the registered URI', REDIRECT_URI],
    ['another port (RFC 8252 §7.3)', 'http://127.0.0.1:49152/callback'],
    ['no port (RFC 8252 §7.3)', 'http://127.0.0.1/callback'],
  ])('accepts %s: the login page', async (_name, uri) => {
    const response = await open(uri);
    expect(response.status).toBe(200);
    expect(response.text).toContain('name="password"');
  });

  it('sends errors found later back only to the redirect URI as presented, which matched', async () => {
    const response = await send(authorizationPath(client.client_id, pkce().challenge, { redirect_uri: 'http://127.0.0.1:49152/callback', scope: 'no-such-scope' }));
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:49152/callback');
    expect(location.searchParams.get('error')).toBe('invalid_scope');
  });
});
