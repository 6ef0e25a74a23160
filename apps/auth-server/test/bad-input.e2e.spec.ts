/** Bad input gets a clear RFC 6749 §5.2 error with the right status: never a 500, never a stack. */
import { startTestAuthServer, type TestAuthServer } from './support/test-auth-server';

jest.setTimeout(60_000);

let server: TestAuthServer;

beforeAll(async () => {
  server = await startTestAuthServer();
});

afterAll(async () => {
  await server?.close();
});

async function send(path: string, init: RequestInit) {
  const response = await fetch(`${server.issuer}${path}`, init);
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), text };
}

describe('malformed requests', () => {
  it.each([
    ['malformed JSON at registration', '/api/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris": [' }, 400, 'invalid_request'],
    ['a JSON array at registration', '/api/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' }, 400, 'invalid_client_metadata'],
    ['XML at the token endpoint', '/api/oauth/token', { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<a/>' }, 415, 'invalid_request'],
    // RFC 6749 §5.2: no client authentication included is invalid_client (401).
    ['JSON at the token endpoint', '/api/oauth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":"authorization_code"}' }, 401, 'invalid_client'],
    ['no body at the token endpoint', '/api/oauth/token', { method: 'POST' }, 400, 'invalid_request'],
    ['a repeated grant_type', '/api/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&grant_type=authorization_code' }, 400, 'invalid_request'],
    ['a 100 KiB body', '/api/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=${'a'.repeat(100 * 1024)}` }, 413, 'invalid_request'],
    ['an unknown client at revocation', '/api/oauth/revoke', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=abc&client_id=nobody' }, 401, 'invalid_client'],
    ['introspection without credentials', '/api/oauth/introspect', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=abc' }, 401, 'invalid_client'],
    ['introspection with a wrong resource server secret', '/api/oauth/introspect', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=abc&client_id=resource-server&client_secret=nope' }, 401, 'invalid_client'],
    ['an unknown path', '/api/oauth/nothing-here', { method: 'GET' }, 404, 'not_found'],
    ['userinfo without a token', '/api/oauth/userinfo', { method: 'GET' }, 401, 'invalid_token'],
    ['userinfo with an unknown token', '/api/oauth/userinfo', { method: 'GET', headers: { authorization: 'Bearer abcdefghijklmnopqrstuvwxyz0123456789' } }, 401, 'invalid_token'],
  ] as [string, string, RequestInit, number, string][])('%s', async (_name, path, init, status, error) => {
    const response = await send(path, init);
    expect(response.status).toBe(status);
    expect(response.contentType).toContain('application/json');
    const body = JSON.parse(response.text) as Record<string, unknown>;
    expect(body).toEqual({ error, error_description: expect.any(String) });
    expect(response.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
  });

  it('answers userinfo with an unknown token with an invalid_token challenge', async () => {
    const response = await fetch(`${server.issuer}/api/oauth/userinfo`, {
      headers: { authorization: 'Bearer abcdefghijklmnopqrstuvwxyz0123456789' },
    });
    expect(response.headers.get('www-authenticate')).toBe(
      // RFC 9449 §7.1: the DPoP scheme is offered beside Bearer, the error in the scheme the request used.
      'Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", DPoP algs="ES256 ES384 ES512 RS256 RS384 RS512 PS256 PS384 PS512 EdDSA Ed25519"',
    );
  });
});

describe('hostile characters', () => {
  it.each([
    ['a NUL byte in client_id at the token endpoint', '/api/oauth/token', 'grant_type=refresh_token&refresh_token=x&client_id=%00'],
    ['a NUL byte in client_id at revocation', '/api/oauth/revoke', 'token=x&client_id=a%00b'],
    ['a NUL byte in client_id at introspection', '/api/oauth/introspect', 'token=x&client_id=a%00b&client_secret=y'],
  ])('%s is a 400, not a 500', async (_name, path, body) => {
    const response = await send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a resource of another origin at the code exchange with invalid_target', async () => {
    const registration = await send('/api/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'] }),
    });
    const { client_id } = JSON.parse(registration.text) as { client_id: string };
    const response = await send('/api/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'x',
        redirect_uri: 'http://127.0.0.1/cb',
        code_verifier: 'a'.repeat(43),
        client_id,
        resource: 'https://evil.example/',
      }).toString(),
    });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ error: 'invalid_target' });
  });
});
