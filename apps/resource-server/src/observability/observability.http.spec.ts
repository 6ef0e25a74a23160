/**
 * What the resource server writes to its logs and metrics while validating bearer tokens
 * through a (stub) authorization server: no token in any line, request ids on every line, and
 * the cache and introspection counters of libs/bearer-auth.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TokenValidator } from '@platform/bearer-auth';
import { randomBytes } from 'node:crypto';
import { waitFor } from '../../../../tools/test-support';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { createResourceServer } from '../bootstrap';
import { loadResourceConfig } from '../config/resource-config';
import { AuthServerStub } from '../../test/support/auth-server.stub';

jest.setTimeout(60_000);

type Line = Record<string, unknown> & { level: string; msg: string; reqId?: string };

const output: string[] = [];
const lines = () => output.map((chunk) => JSON.parse(chunk) as Line);
const completed = (reqId: string) => lines().find((line) => line.reqId === reqId && line.msg === 'request completed');
// Fresh values every run: answers cached in a shared Redis by an earlier run must not count as hits.
const token = () => `tok-${randomBytes(16).toString('hex')}`;
const TOKENS = { valid: token(), unknown: token(), inQuery: token(), whileDown: token() };

const authServer = new AuthServerStub();
let database: TestDatabase;
let app: NestFastifyApplication;

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

beforeAll(async () => {
  await authServer.start();
  authServer.tokens.set(TOKENS.valid, { scope: 'students:read courses:read' });
  database = await createTestDatabase('resource');
  const config = loadResourceConfig({
    NODE_ENV: 'test',
    PUBLIC_BASE_URL: authServer.origin,
    AUTH_SERVER_URL: authServer.origin,
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: String(database.poolSize),
    INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
    SEED_DEMO_DATA: 'true',
    ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}),
  });
  app = await createResourceServer(config, { logger: ['verbose'], logDestination: { write: (chunk) => void output.push(chunk) } });
  await app.getHttpAdapter().getInstance().ready();
  // With Redis the cache is used once the bus's first heartbeat is heard back: the counts below
  // assume a cached answer for the second request, which a busy machine could otherwise deny.
  await waitFor(() => app.get(TokenValidator).cacheIsTrusted(), 10_000, 'the bus heartbeat was never heard');

  const bearer = { authorization: `Bearer ${TOKENS.valid}` };
  expect((await get('/api/v1/students', { ...bearer, 'x-request-id': 'rs-first' })).statusCode).toBe(200);
  expect((await get('/api/v1/students', { ...bearer, 'x-request-id': 'rs-second' })).statusCode).toBe(200);
  expect((await get(`/api/v1/students?access_token=${TOKENS.inQuery}`, { 'x-request-id': 'rs-query' })).statusCode).toBe(400);
  expect((await get('/api/v1/students', { authorization: `Bearer ${TOKENS.unknown}` })).statusCode).toBe(401);
  expect((await get('/api/v1/courses/no-such-course', bearer)).statusCode).toBe(404);
  expect((await get('/healthz')).statusCode).toBe(200);
  await authServer.stop();
  const down = await get('/api/v1/students', { authorization: `Bearer ${TOKENS.whileDown}`, 'x-request-id': 'rs-down' });
  expect(down.statusCode).toBe(503);
});

afterAll(async () => {
  await app?.close();
  await authServer.stop();
  await database?.drop();
});

describe('request logs', () => {
  it('never contain a bearer token, from the header or the query', () => {
    const text = output.join('');
    for (const value of Object.values(TOKENS)) expect(text).not.toContain(value);
    expect(completed('rs-first')).toMatchObject({ req: { url: '/api/v1/students', headers: { authorization: '[Redacted]' } } });
    expect(completed('rs-query')).toMatchObject({ req: { url: '/api/v1/students' }, res: { statusCode: 400 } });
  });

  it('carry the incoming request id and the service on every line', () => {
    expect(completed('rs-second')).toMatchObject({ service: 'resource-server', level: 'info', res: { statusCode: 200 } });
    for (const line of lines().filter((line) => line.msg === 'request completed')) expect(line.reqId).toEqual(expect.any(String));
  });

  it('put a 503 at error level, with the internal detail on a line of the same request', () => {
    expect(completed('rs-down')?.level).toBe('error');
    const detail = lines().find((line) => line.reqId === 'rs-down' && line.msg !== 'request completed');
    expect(detail).toMatchObject({ level: 'error', context: 'OAuthError' });
    expect(String(detail?.msg)).toContain('introspection request failed');
  });

  it('pass the request id on to the introspection made for the request', () => {
    const unknownTokenRequest = lines().find((line) => line.msg === 'request completed' && (line['res'] as { statusCode: number }).statusCode === 401);
    expect(unknownTokenRequest?.reqId).toEqual(expect.any(String));
    expect(authServer.introspectionRequestIds).toEqual(['rs-first', unknownTokenRequest?.reqId]);
  });

  it('keep probes below info', () => {
    const probe = lines().find((line) => (line['req'] as { url?: string } | undefined)?.url === '/healthz');
    expect(probe?.level).toBe('debug');
  });
});

describe('metrics', () => {
  let text: string;

  beforeAll(async () => {
    const response = await get('/metrics');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    text = response.body;
  });

  it('are served without a token', () => {
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('count introspections by outcome', () => {
    expect(text).toContain('introspection_requests_total{outcome="active"} 1');
    expect(text).toContain('introspection_requests_total{outcome="inactive"} 1');
    expect(text).toContain('introspection_requests_total{outcome="error"} 1');
  });

  it('count cache lookups by layer and result', () => {
    // valid (miss, then hit twice: the second list and the course), unknown, whileDown: misses.
    expect(text).toContain('introspection_cache_total{layer="memory",result="hit"} 2');
    expect(text).toContain('introspection_cache_total{layer="memory",result="miss"} 3');
    expect(text).toMatch(/introspection_cache_total\{layer="redis",result="(hit|miss)"\} \d+/);
  });

  it('label HTTP requests with route patterns and leave probes out', () => {
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/api/v1/students",status="200"} 2');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/api/v1/students",status="401"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/api/v1/courses/:courseId",status="404"} 1');
    expect(text).not.toContain('no-such-course');
    expect(text).not.toContain('route="/healthz"');
  });
});

describe('the MCP endpoint, whose answers the SDK writes on the raw response', () => {
  it('answers with the request id and the CORS headers Fastify held, and logs every header it sent', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        origin: authServer.origin,
        'x-request-id': 'rs-mcp',
      },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toBe('rs-mcp');
    // The request comes from the public origin's page: granted by name at /mcp (not *).
    expect(response.headers['access-control-allow-origin']).toBe(authServer.origin);
    expect(response.headers['access-control-expose-headers']).toBe('WWW-Authenticate, Retry-After, DPoP-Nonce');
    // At debug every line is detailed: the headers of both Fastify and the SDK.
    expect(completed('rs-mcp')).toMatchObject({
      res: { statusCode: 200, headers: { 'x-request-id': 'rs-mcp', 'access-control-allow-origin': authServer.origin, 'content-type': expect.stringMatching(/^(application\/json|text\/event-stream)/) } },
    });
  });
});
