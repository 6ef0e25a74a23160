import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { createGateway } from './gateway';

interface Echo {
  service: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A stand-in service that answers every request with what it received. */
async function startEcho(service: string): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.all('/*', async (request, reply) => {
    if (request.url.endsWith('/redirect')) return reply.redirect('/oauth/login?x=1', 302);
    return { service, method: request.method, url: request.url, headers: request.headers, body: request.body ?? '' };
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` };
}

async function closedPortUrl(): Promise<string> {
  const app = Fastify();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  await app.close();
  return `http://127.0.0.1:${port}`;
}

describe('gateway', () => {
  let auth: { app: FastifyInstance; url: string };
  let resource: { app: FastifyInstance; url: string };
  let gateway: FastifyInstance;
  let origin: string;

  beforeAll(async () => {
    [auth, resource] = await Promise.all([startEcho('auth'), startEcho('resource')]);
    gateway = await createGateway({ upstreams: { 'auth-server': auth.url, 'resource-server': resource.url } });
    await gateway.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await Promise.all([gateway?.close(), auth?.app.close(), resource?.app.close()]);
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${origin}${path}`, { headers });
    return { response, echo: (await response.json()) as Echo };
  };

  it.each([
    ['/oauth/authorize?client_id=a&scope=openid+profile%20email&flag', 'auth'],
    ['/api/oauth/clients/42', 'auth'],
    ['/.well-known/oauth-authorization-server', 'auth'],
    ['/.well-known/openid-configuration', 'auth'],
    ['/.well-known/jwks.json', 'auth'],
    ['/', 'resource'],
    ['/api/courses?page=2&sort=-title', 'resource'],
    ['/oauthx/a%2Fb', 'resource'],
  ])('routes %s to the %s service with path and query untouched', async (path, service) => {
    const { response, echo } = await get(path);
    expect(response.status).toBe(200);
    expect(echo.service).toBe(service);
    expect(echo.url).toBe(path);
  });

  it('sends X-Forwarded-* and replaces what the client claimed', async () => {
    const { echo } = await get('/api/me', { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.test' });
    expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(echo.headers['x-forwarded-proto']).toBe('http');
    expect(echo.headers['x-forwarded-host']).toBe(new URL(origin).host);
  });

  it('streams request bodies through', async () => {
    const response = await fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=abc',
    });
    const echo = (await response.json()) as Echo;
    expect(echo).toMatchObject({ service: 'auth', method: 'POST', body: 'grant_type=authorization_code&code=abc' });
    expect(echo.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('passes redirects through unchanged', async () => {
    const response = await fetch(`${origin}/oauth/redirect`, { redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/oauth/login?x=1');
  });

  it('mints a request id, forwards it and returns it', async () => {
    const { response, echo } = await get('/api/courses');
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(echo.headers['x-request-id']).toBe(id);
  });

  it('keeps a sane request id from the client', async () => {
    const { response, echo } = await get('/oauth/authorize', { 'x-request-id': 'trace-1.2_3' });
    expect(response.headers.get('x-request-id')).toBe('trace-1.2_3');
    expect(echo.headers['x-request-id']).toBe('trace-1.2_3');
  });

  it.each([['has spaces'], ['x'.repeat(129)], ['<script>']])('replaces the request id %j', async (sent) => {
    const { response, echo } = await get('/api/courses', { 'x-request-id': sent });
    const id = response.headers.get('x-request-id');
    expect(id).not.toBe(sent);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(echo.headers['x-request-id']).toBe(id);
  });

  describe('when an upstream is down', () => {
    let downGateway: FastifyInstance;

    beforeAll(async () => {
      downGateway = await createGateway({
        upstreams: { 'auth-server': await closedPortUrl(), 'resource-server': resource.url },
      });
    });

    afterAll(async () => {
      await downGateway?.close();
    });

    it('answers 503 temporarily_unavailable in JSON', async () => {
      const response = await downGateway.inject({ method: 'GET', url: '/oauth/authorize?client_id=a' });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-request-id']).toBeDefined();
      expect(response.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: expect.stringContaining('auth-server'),
      });
    });

    it('still serves the other upstream', async () => {
      const response = await downGateway.inject({ method: 'GET', url: '/api/courses' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ service: 'resource' });
    });
  });
});
