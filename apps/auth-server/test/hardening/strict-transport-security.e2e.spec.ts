/**
 * HSTS from the auth server itself (RFC 6797): on every answer when its public origin is https,
 * never when it is http (§7.2: not over non-secure transport). Behind TLS termination the
 * service speaks plain HTTP, so the public origin decides, not the socket.
 */
import { startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';

jest.setTimeout(60_000);

const HSTS = 'max-age=63072000; includeSubDomains';

describe.each([
  ['https://academy.example', HSTS],
  [undefined, null],
])('public origin %s', (publicBaseUrl, expected) => {
  let server: TestAuthServer;

  beforeAll(async () => {
    server = await startTestAuthServer(publicBaseUrl ? { PUBLIC_BASE_URL: publicBaseUrl } : {});
  });

  afterAll(async () => {
    await server?.close();
  });

  it.each([
    ['discovery', 'GET', '/.well-known/openid-configuration', 200],
    ['an OAuth error', 'POST', '/api/oauth/token', 400],
    ['a page', 'GET', '/oauth/authorize', 400],
    ['an unknown path', 'GET', '/nothing-here', 404],
  ])('%s answers with the expected Strict-Transport-Security', async (_what, method, path, status) => {
    const response = await fetch(`http://127.0.0.1:${server.config.port}${path}`, { method });
    expect(response.status).toBe(status);
    expect(response.headers.get('strict-transport-security')).toBe(expected);
  });
});
