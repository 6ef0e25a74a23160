import Fastify, { type FastifyInstance } from 'fastify';
import { request as httpRequest } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
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

  /** A request through node:http, which (unlike fetch) lets the test send Connection and Expect. */
  const rawRequest = (path: string, method: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; echo: Echo }>((resolve, reject) => {
      const outgoing = httpRequest(`${origin}${path}`, { method, headers, agent: false }, (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (text += chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, echo: JSON.parse(text) as Echo }));
      });
      outgoing.on('error', reject);
      if (headers['expect']) outgoing.on('continue', () => outgoing.end(body));
      else outgoing.end(body);
    });

  it('drops hop-by-hop headers and the ones Connection names (RFC 9110 §7.6.1), keeps the rest', async () => {
    const { echo } = await rawRequest('/api/me', 'GET', { connection: 'keep-alive, x-hop-only', 'x-hop-only': 'secret', 'keep-alive': 'timeout=5', 'x-end-to-end': 'kept' });
    expect(echo.headers['x-hop-only']).toBeUndefined();
    expect(echo.headers['keep-alive']).toBeUndefined();
    expect(echo.headers['x-end-to-end']).toBe('kept');
  });

  it('forwards a body sent after 100 Continue (Expect is answered here, not forwarded)', async () => {
    const { status, echo } = await rawRequest('/oauth/token', 'POST', { expect: '100-continue', 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=x');
    expect(status).toBe(200);
    expect(echo).toMatchObject({ service: 'auth', body: 'grant_type=x' });
    expect(echo.headers['expect']).toBeUndefined();
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

  describe('request bodies over the service limit', () => {
    let limited: FastifyInstance;
    let limitedOrigin: string;

    beforeAll(async () => {
      limited = await createGateway({
        upstreams: { 'auth-server': auth.url, 'resource-server': resource.url },
        bodyLimits: { 'auth-server': 100, 'resource-server': 1000 },
        uploadMaxBytes: 3000,
      });
      await limited.listen({ host: '127.0.0.1', port: 0 });
      limitedOrigin = `http://127.0.0.1:${(limited.server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await limited?.close();
    });

    /** POSTs `body` in `chunks` pieces without Content-Length (Transfer-Encoding: chunked). */
    function postChunked(path: string, body: string, chunks: number, contentType = 'application/x-www-form-urlencoded'): Promise<{ status: number; text: string }> {
      return new Promise((resolve, reject) => {
        const outgoing = httpRequest(`${limitedOrigin}${path}`, { method: 'POST', headers: { 'content-type': contentType, 'transfer-encoding': 'chunked' } }, (incoming) => {
          let text = '';
          incoming.on('data', (chunk: Buffer) => (text += chunk.toString()));
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
        });
        outgoing.on('error', reject);
        const size = Math.ceil(body.length / chunks);
        for (let i = 0; i < body.length; i += size) outgoing.write(body.slice(i, i + size));
        outgoing.end();
      });
    }

    const tooLarge = { error: 'invalid_request', error_description: 'The request body is too large' };

    it.each([
      ['/api/oauth/token', 101],
      ['/api/v1/courses', 1001],
    ])('answers 413 itself when Content-Length says more than %s takes', async (path, length) => {
      const response = await fetch(`${limitedOrigin}${path}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(length) });
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual(tooLarge);
    });

    it('lets bodies up to the upload limit through to the upload route only', async () => {
      const post = (path: string) => fetch(`${limitedOrigin}${path}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'u'.repeat(2000) });
      expect((await post('/api/v1/storage/files')).status).toBe(200);
      expect((await post('/api/v1/courses')).status).toBe(413);
    });

    it('holds a JSON body on the upload route to the service limit (the service takes uploads only as files)', async () => {
      const post = (contentType: string) => fetch(`${limitedOrigin}/api/v1/storage/files`, { method: 'POST', headers: { 'content-type': contentType }, body: 'u'.repeat(2000) });
      expect((await post('application/json')).status).toBe(413);
      expect((await post('application/x-www-form-urlencoded')).status).toBe(413);
      expect((await post('image/png')).status).toBe(200);
      expect((await post('application/pdf')).status).toBe(200);
    });

    it('passes a body of exactly the limit', async () => {
      const response = await fetch(`${limitedOrigin}/api/oauth/token`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(100) });
      expect(response.status).toBe(200);
      expect(((await response.json()) as Echo).body).toHaveLength(100);
    });

    it('counts a chunked body as it streams and answers 413 once it passes the limit', async () => {
      const response = await postChunked('/api/oauth/token', 'y'.repeat(5000), 50);
      expect(response.status).toBe(413);
      expect(JSON.parse(response.text)).toEqual(tooLarge);
    });

    it('measures a chunked body the gateway parses itself (text/plain)', async () => {
      const response = await postChunked('/api/oauth/token', 'y'.repeat(5000), 50, 'text/plain');
      expect(response.status).toBe(413);
      expect(JSON.parse(response.text)).toEqual(tooLarge);
    });

    it('streams a chunked body under the limit through', async () => {
      const response = await postChunked('/api/oauth/token', 'z'.repeat(90), 9);
      expect(response.status).toBe(200);
      expect((JSON.parse(response.text) as Echo).body).toBe('z'.repeat(90));
    });
  });

  describe('requests Fastify or Node answer before any route', () => {
    /** Sends raw bytes and returns the raw answer (the client cannot send these through fetch). */
    function raw(request: string): Promise<string> {
      return new Promise((resolve, reject) => {
        const socket = connect((gateway.server.address() as AddressInfo).port, '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    }

    const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;

    it('a path that is not valid UTF-8: 400 invalid_request, the path not repeated', async () => {
      const answer = await raw('GET /%C0%AF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(bodyOf(answer)).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      expect(answer).not.toContain('%C0%AF');
    });

    it('headers over 16 KiB: 431 invalid_request', async () => {
      const answer = await raw(`GET /api/v1/courses HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 431 /);
      expect(bodyOf(answer)).toEqual({ error: 'invalid_request', error_description: 'The request headers are too large' });
    });

    it('bytes that are not HTTP: 400 invalid_request', async () => {
      const answer = await raw('HELLO\r\n\r\n');
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(bodyOf(answer)).toEqual({ error: 'invalid_request', error_description: 'The request is not valid HTTP' });
    });
  });

  describe('its own probes', () => {
    it('answers /healthz itself: the gateway is alive', async () => {
      const response = await fetch(`${origin}/healthz`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(await response.json()).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
    });

    it('answers /readyz when every service is alive', async () => {
      const response = await fetch(`${origin}/readyz`);
      expect(response.status).toBe(200);
      const up = { 'auth-server': { status: 'up' }, 'resource-server': { status: 'up' } };
      expect(await response.json()).toEqual({ status: 'ok', info: up, error: {}, details: up });
    });

    it.each([
      ['/auth-server/healthz', 'auth', '/healthz'],
      ['/auth-server/readyz', 'auth', '/readyz'],
      ['/resource-server/healthz', 'resource', '/healthz'],
      ['/resource-server/readyz', 'resource', '/readyz'],
    ])('relays %s to the %s service’s %s, with the request id', async (path, service, target) => {
      const { response, echo } = await get(path, { 'x-request-id': 'probe-7' });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(echo).toMatchObject({ service, method: 'GET', url: target, headers: { 'x-request-id': 'probe-7' } });
    });

    it.each([
      ['GET', '/metrics'],
      ['POST', '/metrics'],
      ['POST', '/internal/security-events'],
      ['GET', '/internal'],
      ['POST', '/internal/'],
      ['POST', '/%69nternal/security-events'],
      ['POST', '/internal/security-events?x=1'],
      ['GET', '/metrics?name[]=x'],
      ['GET', '/auth-server/metrics'],
      ['GET', '/resource-server/metrics'],
      ['GET', '/resource-server'],
      ['DELETE', '/auth-server/healthz/x'],
      ['POST', '/healthz'],
      ['PUT', '/readyz'],
      ['POST', '/resource-server/readyz'],
    ])('answers %s %s with 404 and forwards nothing', async (method, path) => {
      const response = await fetch(`${origin}${path}`, { method });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'not_found', error_description: 'No such resource' });
    });
  });

  /** A request line sent as is: fetch and inject would resolve the dot segments first. */
  const rawGet = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${origin}/`, { path }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on('error', reject);
      request.end();
    });

  it.each(['/./metrics', '/%2e/metrics', '/%2E/healthz', '/api/v1/../../metrics', '/x/%2e%2e/metrics', '/oauth/.', '/a\\b'])(
    'refuses the ambiguous path %s instead of forwarding it',
    async (path) => {
      const { status, body } = await rawGet(path);
      expect(status).toBe(400);
      expect(JSON.parse(body)).toMatchObject({ error: 'invalid_request' });
    },
  );

  it.each(['/api/v1/a.b/.c', '/files/.hidden', '/x/.well-known', '/internalx', '/api/v1/internal/x'])('forwards %s (no dot segment, not under /internal)', async (path) => {
    const { status, body } = await rawGet(path);
    expect(status).toBe(200);
    expect((JSON.parse(body) as Echo).url).toBe(path);
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
      const response = await downGateway.inject({ method: 'GET', url: '/oauth/authorize?client_id=a', headers: { 'x-request-id': 'upstream-down-1' } });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['x-request-id']).toBe('upstream-down-1');
      expect(response.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: expect.stringContaining('auth-server'),
      });
    });

    it('is not ready, and says which service does not answer', async () => {
      const response = await downGateway.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({
        status: 'error',
        info: { 'resource-server': { status: 'up' } },
        error: { 'auth-server': { status: 'down', message: 'unreachable' } },
        details: { 'auth-server': { status: 'down', message: 'unreachable' }, 'resource-server': { status: 'up' } },
      });
    });

    it('answers its probe through the origin with 503', async () => {
      const response = await downGateway.inject({ method: 'GET', url: '/auth-server/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ error: 'temporarily_unavailable' });
    });

    it('is still alive itself', async () => {
      expect((await downGateway.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    });

    it('still serves the other upstream', async () => {
      const response = await downGateway.inject({ method: 'GET', url: '/api/courses' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ service: 'resource' });
    });
  });

  describe('logs', () => {
    const output: string[] = [];
    const lines = () => output.map((line) => JSON.parse(line) as Record<string, unknown> & { reqId?: string; msg: string; level: string });
    let logged: FastifyInstance;

    beforeAll(async () => {
      logged = await createGateway({
        upstreams: { 'auth-server': auth.url, 'resource-server': resource.url },
        logLevel: 'debug',
        logDestination: { write: (chunk: string) => void output.push(chunk) },
      });
      await logged.inject({
        method: 'GET',
        url: '/oauth/authorize?client_id=c&state=state-secret-1&code_challenge=challenge-secret-2',
        headers: { 'x-request-id': 'gw-1', authorization: 'Bearer token-secret-3', cookie: 'sid=cookie-secret-4' },
      });
      await logged.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'gw-probe' } });
    });

    afterAll(async () => {
      await logged?.close();
    });

    it('write one JSON line per request with the request id, the path and the status, nothing secret', () => {
      const line = lines().find((entry) => entry.reqId === 'gw-1' && entry.msg === 'request completed');
      expect(line).toMatchObject({ level: 'info', service: 'gateway', req: { method: 'GET', url: '/oauth/authorize' }, res: { statusCode: 200 } });
      const text = output.join('');
      for (const secret of ['state-secret-1', 'challenge-secret-2', 'token-secret-3', 'cookie-secret-4']) expect(text).not.toContain(secret);
    });

    it('put probes at debug', () => {
      expect(lines().find((entry) => entry.reqId === 'gw-probe')?.level).toBe('debug');
    });
  });
});
