import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { BUSINESS_SCOPES } from '@platform/scopes';
// Test-only: the real authorization server issues the tokens and answers introspection.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startTestAuthServer, type TestAuthServer } from '../../../auth-server/test/support/test-auth-server';
import { startTestResourceServer, type TestResourceServer } from '../../test/support/test-resource-server';
import { mintAccessToken } from '../../test/support/tokens';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { PrismaService as AuthPrisma } from '../../../auth-server/src/database/prisma.service';

/**
 * The request limits through the real resource server (its guard, /mcp, the exception filter),
 * with real tokens. Addresses: X-Forwarded-For from loopback, which TRUSTED_PROXIES=loopback
 * believes like the gateway. HARDENING_OFF=rate-limits (RATE_LIMITS_ENABLED=false) shows which
 * tests stand for the limits: they fail.
 */
const off = (process.env['HARDENING_OFF'] ?? '').split(',').includes('rate-limits');

describe('the resource server’s request limits', () => {
  let auth: TestAuthServer;
  let resource: TestResourceServer;
  let app: NestFastifyApplication;
  const tokens = { ada: '', grace: '' };

  /** A token of a user of the demo school of its own (each test spends its own user's budget). */
  async function tokenOfNewUser(): Promise<string> {
    const userId = `limits-user-${++addresses}`;
    await auth.app.get(AuthPrisma).$executeRaw`
      INSERT INTO users (id, school_id, email, name, role, password_hash, email_verified)
      VALUES (${userId}, 'demo-school', ${`${userId}@academy.test`}, 'Test User', 'member', 'not-a-password-hash', true)`;
    return mintAccessToken(auth, { userId, schoolId: 'demo-school', scopes: BUSINESS_SCOPES });
  }
  let addresses = 0;
  const address = () => `10.20.${Math.floor(++addresses / 250)}.${1 + (addresses % 250)}`;

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, options: { token?: string; ip?: string; json?: unknown } = {}) =>
    app.inject({
      method,
      url,
      remoteAddress: '127.0.0.1',
      headers: {
        'x-forwarded-for': options.ip ?? address(),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.json !== undefined ? { payload: JSON.stringify(options.json) } : {}),
    });

  const mcp = (message: unknown, options: { token?: string; ip?: string } = {}) =>
    app.inject({
      method: 'POST',
      url: '/mcp',
      remoteAddress: '127.0.0.1',
      headers: {
        'x-forwarded-for': options.ip ?? address(),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
      payload: JSON.stringify(message),
    });

  beforeAll(async () => {
    auth = await startTestAuthServer();
    resource = await startTestResourceServer({
      authServerUrl: auth.issuer,
      env: {
        RATE_LIMITS_ENABLED: off ? 'false' : 'true',
        RATE_LIMIT_WRITES_PER_USER: '3',
        RATE_LIMIT_ANONYMOUS_PER_IP: '4',
        TRUSTED_PROXIES: 'loopback',
      },
    });
    app = resource.app;
    tokens.ada = await tokenOfNewUser();
    tokens.grace = await tokenOfNewUser();
  }, 180_000);

  afterAll(async () => {
    await resource?.close();
    await auth?.close();
  });

  it('API writes: per user once the token is validated, 429 with Retry-After and an RFC 6749-style body; another user and the same user’s reads go on', async () => {
    // Invalid bodies: refused by validation, after the admission has counted them.
    for (let i = 0; i < 3; i++) expect((await call('POST', '/api/v1/courses', { token: tokens.ada, json: {} })).statusCode).toBe(400);
    const refused = await call('POST', '/api/v1/courses', { token: tokens.ada, json: {} });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['content-type']).toContain('application/json');
    expect(refused.json()).toEqual({ error: 'too_many_requests', error_description: expect.stringMatching(/^Too many writes by this user; retry after \d+ seconds$/) });
    expect((await call('PATCH', '/api/v1/school', { token: tokens.ada, json: {} })).statusCode).toBe(429);
    expect((await call('POST', '/api/v1/courses', { token: tokens.grace, json: {} })).statusCode).toBe(400);
    expect((await call('GET', '/api/v1/courses', { token: tokens.ada })).statusCode).toBe(200);
  });

  it('API reads without a token: per address; another address, or a token from the same one, goes on', async () => {
    const ip = address();
    for (let i = 0; i < 4; i++) expect((await call('GET', '/api/v1/courses', { ip })).statusCode).toBe(200);
    const refused = await call('GET', '/api/v1/courses', { ip });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'too_many_requests', error_description: expect.stringMatching(/^Too many requests without an access token from this address;/) });
    expect((await call('GET', '/api/v1/courses', { ip: address() })).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/courses', { ip, token: tokens.grace })).statusCode).toBe(200);
  });

  it('/mcp: a tools/call that writes counts as a write of the token’s user; a 429 carries the JSON-RPC error with the id', async () => {
    const create = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_post', arguments: {} } });
    const token = await tokenOfNewUser();
    for (let i = 1; i <= 3; i++) expect((await mcp(create(i), { token })).statusCode).toBe(200);
    const refused = await mcp(create(4), { token });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/^Too many writes by this user;/) }, id: 4 });
    // Reads of that user: not counted.
    expect((await mcp({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'list_students', arguments: {} } }, { token })).statusCode).toBe(200);
  });

  it('/mcp without a token: per address', async () => {
    const ip = address();
    const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
    for (let i = 1; i <= 4; i++) expect((await mcp(list(i), { ip })).statusCode).toBe(200);
    expect((await mcp(list(5), { ip })).statusCode).toBe(429);
    expect((await mcp(list(6), { ip: address() })).statusCode).toBe(200);
  });

  it('/mcp with a token that does not validate: the handler’s own 401, never counted', async () => {
    for (let i = 0; i < 6; i++) expect((await mcp({ jsonrpc: '2.0', id: i, method: 'tools/list' }, { token: 'not-a-token-of-ours-0123456789' })).statusCode).toBe(401);
  });
});
