import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LocalEventBus } from '@platform/event-bus';
import { beginClosing } from '@platform/lifecycle';
import { PrivateRedis } from '../../../../tools/test-support/private-redis';
import { startTestResourceServer, type TestResourceServer } from '../../test/support/test-resource-server';
import { createResourceServer } from '../bootstrap';
import { loadResourceConfig } from '../config/resource-config';
import { AuthServerStub } from '../../test/support/auth-server.stub';

jest.setTimeout(60_000);

describe('health of a working resource server', () => {
  const authServer = new AuthServerStub();
  let server: TestResourceServer;

  beforeAll(async () => {
    await authServer.start();
    server = await startTestResourceServer({ authServerUrl: authServer.origin });
  });

  afterAll(async () => {
    await server?.close();
    await authServer.stop();
  });

  it('is live without a token (public to the bearer guard), not cached, with the request id', async () => {
    const response = await server.app.inject({ url: '/healthz', headers: { 'x-request-id': 'probe-1' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-request-id']).toBe('probe-1');
  });

  it('is ready: the database, Redis when configured, and the authorization server answer', async () => {
    const response = await server.app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(200);
    const expected = {
      database: { status: 'up' },
      ...(process.env['REDIS_URL'] ? { redis: { status: 'up' } } : {}),
      authorization_server: { status: 'up' },
    };
    expect(response.json()).toEqual({ status: 'ok', info: expected, error: {}, details: expected });
  });

  it('stays ready while the authorization server, once reached, is not alive: it says so, and serves without it', async () => {
    authServer.healthy = false;
    try {
      const response = await server.app.inject({ url: '/readyz' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        status: 'ok',
        info: { database: { status: 'up' }, authorization_server: { status: 'up', message: 'unavailable; serving without it' } },
      });
    } finally {
      authServer.healthy = true;
    }
  });

  it('keeps the probes out of the OpenAPI document', async () => {
    const paths = Object.keys((await server.app.inject({ url: '/openapi.json' })).json().paths as object);
    expect(paths.filter((path) => ['/healthz', '/readyz', '/metrics'].includes(path))).toEqual([]);
  });
});

describe('health of a resource server with nothing around it', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const config = loadResourceConfig({
      NODE_ENV: 'test',
      DATABASE_URL: 'postgresql://nobody:nothing@127.0.0.1:9/none',
      REDIS_URL: 'redis://127.0.0.1:9',
      AUTH_SERVER_URL: 'http://127.0.0.1:9',
      INTROSPECTION_CLIENT_SECRET: 'not-used-in-this-test-0123',
      SEED_DEMO_DATA: 'false',
    });
    // The Redis event bus would wait for Redis at start; readiness does not (the shared connection keeps trying).
    app = await createResourceServer(config, { logger: false, eventBus: new LocalEventBus() });
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('is still live', async () => {
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });

  it('is not ready, and says which dependency is down without naming internals', async () => {
    const response = await app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(503);
    const down = {
      database: { status: 'down', message: 'unavailable' },
      redis: { status: 'down', message: 'unavailable' },
      authorization_server: { status: 'down', message: 'unavailable' },
    };
    expect(response.json()).toEqual({ status: 'error', info: {}, error: down, details: down });
    expect(response.body).not.toContain('127.0.0.1');
  });
});

describe('readiness of a resource server around which Redis and the authorization server go away', () => {
  const authServer = new AuthServerStub();
  const redis = new PrivateRedis();
  let server: TestResourceServer;

  beforeAll(async () => {
    await authServer.start();
    if (PrivateRedis.available()) await redis.start();
    server = await startTestResourceServer({
      authServerUrl: authServer.origin,
      env: PrivateRedis.available() ? { REDIS_URL: redis.url } : {},
    });
  });

  afterAll(async () => {
    await server?.close();
    await authServer.stop();
    await redis.destroy();
  });

  it('requires each until reached, then stays ready without them: every replica shares them, and all run degraded without them', async () => {
    const first = await server.app.inject({ url: '/readyz' });
    expect(first.statusCode).toBe(200);
    await authServer.stop();
    await redis.stop();

    const response = await server.app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(200);
    const degraded = { status: 'up', message: 'unavailable; serving without it' };
    expect(response.json()).toMatchObject({
      status: 'ok',
      info: {
        database: { status: 'up' },
        authorization_server: degraded,
        ...(PrivateRedis.available() ? { redis: degraded } : {}),
      },
    });
  });

  it('is not ready from the moment its shutdown begins, while it still answers', async () => {
    beginClosing(server.app.getHttpAdapter().getInstance());
    const response = await server.app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      status: 'error',
      info: {},
      error: { shutdown: { status: 'down', message: 'shutting down' } },
      details: { shutdown: { status: 'down', message: 'shutting down' } },
    });
    expect((await server.app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});
