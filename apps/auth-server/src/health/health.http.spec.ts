import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LocalEventBus } from '@platform/event-bus';
import { beginClosing } from '@platform/lifecycle';
import { PrivateRedis } from '../../../../tools/test-support/private-redis';
import { createServer, type Server, type Socket } from 'node:net';
import { startTestAuthServer, type TestAuthServer } from '../../test/support/test-auth-server';
import { createAuthServer } from '../bootstrap';
import { loadAuthConfig } from '../config/auth-config';

jest.setTimeout(60_000);

describe('health of a working auth-server', () => {
  let server: TestAuthServer;

  beforeAll(async () => {
    server = await startTestAuthServer();
  });

  afterAll(async () => {
    await server?.close();
  });

  it('is live: 200 with terminus’ report, not cached, with the request id', async () => {
    const response = await server.app.inject({ url: '/healthz', headers: { 'x-request-id': 'probe-1' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-request-id']).toBe('probe-1');
  });

  it('is ready: the database answers, and Redis when configured', async () => {
    const response = await server.app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(200);
    const expected = { database: { status: 'up' }, ...(process.env['REDIS_URL'] ? { redis: { status: 'up' } } : {}) };
    expect(response.json()).toEqual({ status: 'ok', info: expected, error: {}, details: expected });
  });
});

describe('health of an auth-server whose database and Redis are away', () => {
  let app: NestFastifyApplication;
  let blackHole: Server;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    // Accepts connections and never answers: the database "hangs".
    blackHole = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const { port } = blackHole.address() as { port: number };
    const config = loadAuthConfig({
      NODE_ENV: 'test',
      DATABASE_URL: `postgresql://nobody:nothing@127.0.0.1:${port}/none`,
      REDIS_URL: 'redis://127.0.0.1:9',
      INTROSPECTION_CLIENT_SECRET: 'not-used-in-this-test-0123',
      HEALTH_CHECK_TIMEOUT_MS: '300',
    });
    // The Redis event bus would wait for Redis at start; readiness does not (the shared connection keeps trying).
    app = await createAuthServer(config, { logger: false, eventBus: new LocalEventBus() });
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await app?.close();
    await new Promise((resolve) => blackHole?.close(resolve));
  });

  it('is still live', async () => {
    expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });

  it('is not ready: 503 with the report, within the deadline, naming no internals', async () => {
    const started = Date.now();
    const response = await app.inject({ url: '/readyz' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(response.statusCode).toBe(503);
    expect(response.headers['cache-control']).toBe('no-store');
    const down = {
      database: { status: 'down', message: 'no answer within 300 ms' },
      redis: { status: 'down', message: 'unavailable' },
    };
    expect(response.json()).toEqual({ status: 'error', info: {}, error: down, details: down });
  });
});

(PrivateRedis.available() ? describe : describe.skip)('readiness of an auth-server whose Redis goes away', () => {
  const redis = new PrivateRedis();
  let server: TestAuthServer;

  beforeAll(async () => {
    await redis.start();
    server = await startTestAuthServer({ REDIS_URL: redis.url });
  });

  afterAll(async () => {
    await server?.close();
    await redis.destroy();
  });

  it('requires Redis until reached, then stays ready without it: every replica shares it, and all run degraded without it', async () => {
    expect((await server.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    await redis.stop();
    const response = await server.app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      status: 'ok',
      info: { database: { status: 'up' }, redis: { status: 'up', message: 'unavailable; serving without it' } },
    });
  });

  it('is not ready from the moment its shutdown begins, while it still answers', async () => {
    beginClosing(server.app.getHttpAdapter().getInstance());
    const response = await server.app.inject({ url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 'error', error: { shutdown: { status: 'down', message: 'shutting down' } } });
    expect((await server.app.inject({ url: '/healthz' })).statusCode).toBe(200);
  });
});
