/**
 * What the authorization server writes to its logs and metrics during a real OAuth flow: a
 * confidential client registers, the demo user signs in and approves, the code is exchanged,
 * replayed, refreshed and revoked, all through the real HTTP server. Nothing secret may reach
 * a log line at any level; every line of a request carries its request id.
 */
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHash, randomBytes } from 'node:crypto';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { DEMO_USER, freePort, INTROSPECTION_CLIENT } from '../../test/support/test-auth-server';
import { startAuthServer } from '../bootstrap';
import { loadAuthConfig } from '../config/auth-config';

jest.setTimeout(60_000);

type Line = Record<string, unknown> & { level: string; msg: string; reqId?: string };

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

const output: string[] = [];
const lines = () => output.map((chunk) => JSON.parse(chunk) as Line);
const secrets = new Map<string, string>();
const keep = (name: string, value: unknown) => {
  if (typeof value === 'string' && value.length >= 8) secrets.set(`${name} #${secrets.size}`, value);
  return value as string;
};

let database: TestDatabase;
let app: NestFastifyApplication;
let origin: string;
let tokenResponse: Response;
let redirect: URL;

async function post(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
}

/** The CSRF token of a page's form. */
function csrfToken(html: string): string | undefined {
  return /type="hidden" name="_csrf" value="([^"]*)"/.exec(html)?.[1];
}

beforeAll(async () => {
  database = await createTestDatabase('auth');
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const config = loadAuthConfig({
    NODE_ENV: 'test',
    AUTH_PORT: String(port),
    PUBLIC_BASE_URL: origin,
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: String(database.poolSize),
    INTROSPECTION_CLIENT_ID: INTROSPECTION_CLIENT.id,
    INTROSPECTION_CLIENT_SECRET: INTROSPECTION_CLIENT.secret,
    SEED_DEMO_DATA: 'true',
    // As test-auth-server.ts: request limits are counted in the Redis every suite shares, and the
    // platform's end-to-end suites register from 127.0.0.1 too (30 per window per address): with
    // limits on, this registration got a 429 in a CI run. This spec is about logs and metrics.
    RATE_LIMITS_ENABLED: 'false',
    ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}),
  });
  keep('introspection secret', INTROSPECTION_CLIENT.secret);
  keep('password', DEMO_USER.password);
  // The most verbose level: a secret must not hide at trace either.
  app = await startAuthServer(config, { logger: ['verbose'], logDestination: { write: (chunk) => void output.push(chunk) } });

  const registered = await fetch(`${origin}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Log Test', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_post' }),
  });
  const registration = (await registered.json()) as { client_id: string; client_secret: string };
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}: ${JSON.stringify(registration)}`);
  const client = { id: registration.client_id, secret: keep('client secret', registration.client_secret) };

  const verifier = keep('verifier', randomBytes(32).toString('base64url'));
  const authorizeUrl = new URL('/oauth/authorize', origin);
  authorizeUrl.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile students:read',
    code_challenge: keep('challenge', createHash('sha256').update(verifier).digest('base64url')),
    code_challenge_method: 'S256',
    state: keep('state', randomBytes(16).toString('base64url')),
    nonce: keep('nonce', randomBytes(16).toString('base64url')),
  }).toString();
  const agent = new BrowserLikeAgent(origin);
  const login = await agent.open(authorizeUrl.toString());
  keep('login CSRF token', csrfToken(login.body));
  const consent = await agent.submit(login, { email: DEMO_USER.email, password: DEMO_USER.password });
  keep('consent CSRF token', csrfToken(consent.body));
  const callback = await agent.submit(consent, {}, 'Approve');
  for (const cookie of await agent.jar.getCookies(origin)) keep(`cookie ${cookie.key}`, cookie.value);
  redirect = new URL(callback.location as string);
  const code = keep('code', redirect.searchParams.get('code'));

  const exchange = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier };
  tokenResponse = await post('/api/oauth/token', { ...exchange, client_id: client.id, client_secret: client.secret }, {
    'x-request-id': 'log-test-token',
  });
  const tokens = (await tokenResponse.json()) as Record<string, string>;
  for (const name of ['access_token', 'refresh_token', 'id_token']) keep(name, tokens[name]);

  await fetch(`${origin}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens['access_token']}` } });
  await post(
    '/api/oauth/introspect',
    { token: tokens['access_token'], client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret },
    { 'x-request-id': 'log-test-introspect' },
  );
  const refreshed = (await (
    await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens['refresh_token'], client_id: client.id, client_secret: client.secret })
  ).json()) as Record<string, string>;
  for (const name of ['access_token', 'refresh_token', 'id_token']) keep(`refreshed ${name}`, refreshed[name]);
  await post('/api/oauth/revoke', { token: refreshed['access_token'], client_id: client.id, client_secret: client.secret });
  // A replayed code: refused, logged with its internal detail, and the grant revoked.
  await post('/api/oauth/token', { ...exchange, client_id: client.id, client_secret: client.secret }, { 'x-request-id': 'log-test-replay' });
  // Credentials in the Basic header and a cookie on a request that fails.
  await fetch(`${origin}/api/oauth/introspect`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
      cookie: `stray=${keep('stray cookie', 'stray-cookie-value-1234')}`,
      'x-request-id': 'log-test-basic',
    },
  });
});

afterAll(async () => {
  await app?.close();
  await database?.drop();
});

describe('request logs', () => {
  it('are JSON lines of the auth-server at the configured level', () => {
    expect(output.length).toBeGreaterThan(10);
    for (const line of lines()) expect(line).toMatchObject({ service: 'auth-server', level: expect.any(String), time: expect.any(String) });
  });

  it('never contain a token, code, secret, password, cookie or PKCE value', () => {
    expect(secrets.size).toBeGreaterThanOrEqual(15);
    const text = output.join('');
    const leaked = [...secrets].filter(([, value]) => text.includes(value)).map(([name]) => name);
    expect(leaked).toEqual([]);
    expect(text).not.toContain(Buffer.from(secrets.get('client secret #2') ?? 'unset').toString('base64'));
  });

  it('use the incoming x-request-id, on every line of the request, and echo it', () => {
    expect(tokenResponse.headers.get('x-request-id')).toBe('log-test-token');
    const own = lines().filter((line) => line.reqId === 'log-test-token');
    expect(own.at(-1)).toMatchObject({ msg: 'request completed', req: { method: 'POST', url: '/api/oauth/token' }, res: { statusCode: 200 } });
    const replay = lines().filter((line) => line.reqId === 'log-test-replay').map((line) => line.msg);
    expect(replay.length).toBeGreaterThan(1);
    expect(replay.at(-1)).toBe('request completed');
  });

  it('give every request an id, minted when the caller sent none', () => {
    const completed = lines().filter((line) => line.msg === 'request completed');
    expect(completed.length).toBeGreaterThanOrEqual(10);
    for (const line of completed) expect(line.reqId).toMatch(/^[\w.-]+$/);
  });

  it('keep where the authorization redirect went, not its code', () => {
    const approval = lines().find(
      (line) => line.msg === 'request completed' && (line['req'] as { url: string }).url === '/oauth/authorize/consent',
    );
    expect(approval).toMatchObject({ res: { statusCode: 303, headers: { location: `${REDIRECT_URI}?[Redacted]` } } });
    expect(redirect.searchParams.get('code')).toBeTruthy();
  });

  it('put a successful introspection at debug (its caller logs the request behind it) and a refused one at info', () => {
    const completedLine = (reqId: string) => lines().find((line) => line.reqId === reqId && line.msg === 'request completed');
    expect(completedLine('log-test-introspect')).toMatchObject({ level: 'debug', req: { url: '/api/oauth/introspect' }, res: { statusCode: 200 } });
    expect(completedLine('log-test-basic')).toMatchObject({ level: 'info', req: { url: '/api/oauth/introspect' }, res: { statusCode: 400 } });
  });

  it('redact the Authorization and Cookie headers', () => {
    const basic = lines().find((line) => line.reqId === 'log-test-basic' && line.msg === 'request completed');
    expect(basic).toMatchObject({ req: { headers: { authorization: '[Redacted]', cookie: '[Redacted]' } } });
  });
});

describe('metrics', () => {
  let text: string;

  beforeAll(async () => {
    const response = await fetch(`${origin}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    text = await response.text();
  });

  it('count tokens issued by grant type and revocations by reason', () => {
    expect(text).toContain('oauth_tokens_issued_total{grant_type="authorization_code"} 1');
    expect(text).toContain('oauth_tokens_issued_total{grant_type="refresh_token"} 1');
    expect(text).toContain('oauth_revocations_total{reason="revocation"} 1');
    expect(text).toContain('oauth_revocations_total{reason="code_replay"} 1');
    expect(text).toContain('oauth_revocations_total{reason="refresh_token_reuse"} 0');
  });

  it('count HTTP requests by route pattern and status', () => {
    expect(text).toContain('http_request_duration_seconds_count{method="POST",route="/api/oauth/token",status="200"} 2');
    expect(text).toContain('http_request_duration_seconds_count{method="POST",route="/api/oauth/token",status="400"} 1');
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.1",method="POST",route="\/api\/oauth\/token",status="200"\}/);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).not.toContain('route="/metrics"');
    for (const [, value] of secrets) expect(text).not.toContain(value);
  });
});
