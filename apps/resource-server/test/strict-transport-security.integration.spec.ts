/**
 * HSTS from the resource server itself (RFC 6797), as the auth server sends it: on every answer
 * when its public origin is https, never when it is http (§7.2: not over non-secure transport).
 * Behind TLS termination the service speaks plain HTTP, so the public origin decides.
 */
import { startTestResourceServer, type TestResourceServer } from './support/test-resource-server';

jest.setTimeout(60_000);

const HSTS = 'max-age=63072000; includeSubDomains';

describe.each([
  ['https://academy.example', HSTS],
  ['http://127.0.0.1:3000', undefined],
])('public origin %s', (publicBaseUrl, expected) => {
  let server: TestResourceServer;

  beforeAll(async () => {
    server = await startTestResourceServer({ env: { PUBLIC_BASE_URL: publicBaseUrl } });
  });

  afterAll(async () => {
    await server?.close();
  });

  it.each([
    ['the protected resource metadata', 'GET', '/.well-known/oauth-protected-resource', 200],
    ['an anonymous read', 'GET', '/api/v1/courses', 200],
    ['a challenge', 'POST', '/api/v1/courses', 401],
    ['an unknown path', 'GET', '/nothing-here', 404],
    ['/mcp without a session', 'GET', '/mcp', 405],
  ])('%s answers with the expected Strict-Transport-Security', async (_what, method, url, status) => {
    const response = await server.app.inject({ method: method as 'GET' | 'POST', url });
    expect(response.statusCode).toBe(status);
    expect(response.headers['strict-transport-security']).toBe(expected);
  });
});
