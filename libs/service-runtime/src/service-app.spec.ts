/**
 * The skeleton both services are built on, on a one-route service: the framework errors as
 * RFC 6749 bodies, X-Forwarded-For believed only from TRUSTED_PROXIES, the request id echoed,
 * the body limit of the route table, the metrics counted, the event bus closed with the app.
 */
import { Controller, type DynamicModule, Get, Ip, Module, Post, Req } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LocalEventBus } from '@platform/event-bus';
import { nestLoggerParams, REQUEST_LOGGING, requestLogging, ServiceMetrics } from '@platform/observability';
import { SERVICE_BODY_LIMITS } from '@platform/route-table';
import type { FastifyRequest } from 'fastify';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { completeServiceApp, createServiceApp } from './service-app';

@Controller()
class EchoController {
  constructor(private readonly logger: PinoLogger) {}

  @Get('/ip')
  ip(@Ip() ip: string) {
    return { ip };
  }

  @Post('/echo')
  echo() {
    return { ok: true };
  }

  /** What a handler sees of the raw request; @fastify/middie stamps originalUrl on it when it runs. */
  @Get('/raw')
  raw(@Req() request: FastifyRequest) {
    this.logger.info('inside the handler');
    return { middieRan: 'originalUrl' in request.raw };
  }
}

const metrics = new ServiceMetrics();
const logLines: { reqId?: string; msg: string; res?: { statusCode: number } }[] = [];
/** nestjs-pino's lines outside requests: not what these tests read. */
const discarded = { write: () => undefined };

@Module({})
class TestServiceModule {
  static register(): DynamicModule {
    return {
      module: TestServiceModule,
      imports: [LoggerModule.forRoot(nestLoggerParams({ service: 'test-service', level: 'info', destination: discarded }))],
      controllers: [EchoController],
      providers: [
        { provide: ServiceMetrics, useValue: metrics },
        { provide: REQUEST_LOGGING, useValue: requestLogging({ service: 'test-service', level: 'info', destination: { write: (line: string) => void logLines.push(JSON.parse(line)) } }) },
      ],
    };
  }
}

async function serviceApp(bus?: LocalEventBus): Promise<NestFastifyApplication> {
  const app = await createServiceApp(
    { service: 'auth-server', trustedProxies: ['10.0.0.1'], logLevel: 'silent', module: () => TestServiceModule.register(), metrics: ServiceMetrics },
    { logger: false },
  );
  await completeServiceApp(app, bus);
  await app.getHttpAdapter().getInstance().ready();
  return app;
}

describe('createServiceApp + completeServiceApp', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => {
    app = await serviceApp();
  });
  afterAll(async () => app?.close());

  it('answers an unknown route with the RFC 6749 §5.2 body', async () => {
    const response = await app.inject({ method: 'GET', url: '/nowhere' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ error: 'not_found', error_description: 'No such resource' });
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const forged = await app.inject({ method: 'GET', url: '/ip', remoteAddress: '192.0.2.7', headers: { 'x-forwarded-for': '198.51.100.1' } });
    expect(forged.json()).toEqual({ ip: '192.0.2.7' });
    const proxied = await app.inject({ method: 'GET', url: '/ip', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': '198.51.100.1' } });
    expect(proxied.json()).toEqual({ ip: '198.51.100.1' });
  });

  it('echoes a plain incoming request id, and mints one otherwise', async () => {
    const kept = await app.inject({ method: 'GET', url: '/ip', headers: { 'x-request-id': 'abc-123' } });
    expect(kept.headers['x-request-id']).toBe('abc-123');
    const minted = await app.inject({ method: 'GET', url: '/ip', headers: { 'x-request-id': 'not plain\u0001' } });
    expect(minted.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a body over the route table\'s limit of the service with 413 and an OAuth body', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(SERVICE_BODY_LIMITS['auth-server']) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('ends every request with its completion line, a 404 included, under the request id', async () => {
    await app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'log-404' } });
    await app.inject({ method: 'GET', url: '/ip', headers: { 'x-request-id': 'log-200' } });
    expect(logLines.filter((line) => line.msg === 'request completed').map((line) => [line.reqId, line.res?.statusCode])).toEqual(
      expect.arrayContaining([
        ['log-404', 404],
        ['log-200', 200],
      ]),
    );
  });

  it('runs no Connect middleware (no @fastify/middie work) and still logs inside a request under its id', async () => {
    const response = await app.inject({ method: 'GET', url: '/raw', headers: { 'x-request-id': 'inside-1' } });
    expect(response.json()).toEqual({ middieRan: false });
    expect(logLines).toContainEqual(expect.objectContaining({ reqId: 'inside-1', msg: 'inside the handler' }));
  });

  it('counts every request in the service metrics', async () => {
    await app.inject({ method: 'GET', url: '/ip' });
    expect(await metrics.registry.metrics()).toMatch(/route="\/ip"/);
  });
});

it('closes the event bus it was given to close, with the app', async () => {
  const bus = new LocalEventBus();
  let closed = false;
  const close = bus.close.bind(bus);
  bus.close = async () => {
    closed = true;
    await close();
  };
  const app = await serviceApp(bus);
  expect(closed).toBe(false);
  await app.close();
  expect(closed).toBe(true);
});
