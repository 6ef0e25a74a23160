/**
 * CORS (cors/cors-policy.ts) on the real server: browser-based OAuth clients read metadata and
 * keys, register, redeem and revoke from any origin, without credentials; the authorization
 * endpoint and its pages send no CORS header at all.
 */
import { startTestAuthServer, type TestAuthServer } from './support/test-auth-server';

jest.setTimeout(60_000);

const ORIGIN = 'https://inspector.example';
let server: TestAuthServer;

beforeAll(async () => {
  server = await startTestAuthServer();
});

afterAll(() => server?.close());

const open: [string, string][] = [
  ['GET', '/.well-known/oauth-authorization-server'],
  ['GET', '/.well-known/openid-configuration'],
  ['GET', '/.well-known/jwks.json'],
  ['POST', '/api/oauth/register'],
  ['POST', '/api/oauth/token'],
  ['POST', '/api/oauth/revoke'],
  ['GET', '/api/oauth/userinfo'],
  ['POST', '/api/oauth/userinfo'],
];

describe('CORS', () => {
  it.each(open)('answers the preflight of %s %s: any origin, no credentials', async (method, path) => {
    const response = await fetch(`${server.issuer}${path}`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, OPTIONS');
    expect(response.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, MCP-Protocol-Version, DPoP');
    expect(response.headers.get('access-control-max-age')).toBe('600');
  });

  it.each(open)('%s %s carries Access-Control-Allow-Origin: * and exposes WWW-Authenticate, errors included', async (method, path) => {
    const response = await fetch(`${server.issuer}${path}`, {
      method,
      headers: { origin: ORIGIN, ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(method === 'POST' ? { body: '' } : {}),
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate, Retry-After, DPoP-Nonce');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it.each([
    ['GET', '/oauth/authorize'],
    ['POST', '/oauth/authorize/login'],
    ['POST', '/oauth/authorize/consent'],
    ['POST', '/api/oauth/introspect'],
  ])('sends no CORS header on %s %s, and no preflight answer', async (method, path) => {
    const preflight = await fetch(`${server.issuer}${path}`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': method },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    expect(preflight.status).toBe(404);
    const response = await fetch(`${server.issuer}${path}`, { method, headers: { origin: ORIGIN }, redirect: 'manual' });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
