/**
 * The skeleton both services are built on, on a one-route service: the framework errors as
 * RFC 6749 bodies, X-Forwarded-For believed only from TRUSTED_PROXIES, the request id echoed,
 * the body limit of the route table, the bounds of every input, HSTS on an https origin, the
 * metrics counted, the event bus closed with the app.
 */
import { Body, Controller, type DynamicModule, Get, Ip, Module, Post, Query, Req } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LocalEventBus } from '@platform/event-bus';
import { nestLoggerParams, REQUEST_LOGGING, requestLogging } from '@platform/logging';
import { ServiceMetrics } from '@platform/metrics';
import { SERVICE_BODY_LIMITS } from '@platform/route-table';
import type { FastifyRequest } from 'fastify';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { INPUT_LIMITS } from './input-limits';
import { completeServiceApp, createServiceApp, type ServiceAppDefinition } from './service-app';
import { STRICT_TRANSPORT_SECURITY } from './strict-transport-security';

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

  /** What the route sees of the parsed body and query. */
  @Post('/body')
  body(@Body() body: unknown, @Query() query: unknown) {
    return { body, query: { ...(query as object) } };
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

async function serviceApp(bus?: LocalEventBus, definition: Partial<ServiceAppDefinition> = {}): Promise<NestFastifyApplication> {
  const app = await createServiceApp(
    { service: 'auth-server', trustedProxies: ['10.0.0.1'], logLevel: 'silent', module: () => TestServiceModule.register(), metrics: ServiceMetrics, ...definition },
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

describe('the bounds of every input (INPUT_LIMITS), at parse, for every route', () => {
  let app: NestFastifyApplication;
  beforeAll(async () => {
    // The resource server's body limit (1 MiB): room for the deepest body.
    app = await serviceApp(undefined, { service: 'resource-server' });
  });
  afterAll(async () => app?.close());

  const post = (payload: string, contentType: string, url = '/body') => app.inject({ method: 'POST', url, headers: { 'content-type': contentType }, payload });
  const refusal = (description: string) => ({ error: 'invalid_request', error_description: description });

  it('parses JSON and forms as before: values, repeated names as arrays', async () => {
    expect((await post('{"title":"𝕏 ok","tags":["a"]}', 'application/json; charset=utf-8')).json()).toEqual({ body: { title: '𝕏 ok', tags: ['a'] }, query: {} });
    expect((await post('a=1&r=x&r=y', 'application/x-www-form-urlencoded', '/body?q=1&q=2')).json()).toEqual({ body: { a: '1', r: ['x', 'y'] }, query: { q: ['1', '2'] } });
  });

  it('keeps Fastify\'s refusals of malformed JSON and of prototype keys', async () => {
    const malformed = await post('{"a":', 'application/json');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual(refusal("Body is not valid JSON but content-type is set to 'application/json'"));
    expect((await post('{"__proto__":{"polluted":1}}', 'application/json')).json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a lone surrogate in a JSON string or key with 400, not 500 (issue 33)', async () => {
    for (const payload of ['{"title":"a\\ud800"}', '{"a\\udc00":1}', '[{"x":["\\udfff"]}]']) {
      const response = await post(payload, 'application/json');
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(refusal('The JSON body has a string that is not well-formed Unicode (a lone UTF-16 surrogate)'));
    }
  });

  it('refuses a megabyte of nesting (500,000 levels) with 400, before parsing it (issue 33)', async () => {
    const deep = '['.repeat(500_000) + ']'.repeat(500_000);
    const response = await post(deep, 'application/json');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(refusal('The JSON body is nested deeper than 64 levels'));
    expect((await post(`${'['.repeat(INPUT_LIMITS.jsonDepth)}${']'.repeat(INPUT_LIMITS.jsonDepth)}`, 'application/json')).statusCode).toBe(201);
  });

  it('refuses a form or a query past its bounds with 400 invalid_request', async () => {
    const repeated = Array.from({ length: 1000 }, () => 'resource=x').join('&');
    expect((await post(repeated, 'application/x-www-form-urlencoded')).json()).toEqual(refusal('A parameter in the form body is repeated more than 16 times'));
    const query = await post('{}', 'application/json', `/body?${repeated}`);
    expect(query.statusCode).toBe(400);
    expect(query.json()).toEqual(refusal('A parameter in the query is repeated more than 16 times'));
    expect((await post(`state=${'/'.repeat(60_000)}x`, 'application/x-www-form-urlencoded')).json()).toEqual(refusal('A parameter value in the form body is longer than 8192 characters'));
  });
});

describe('Strict-Transport-Security (RFC 6797)', () => {
  it('is on every answer when the public origin is https: a route, a refusal, a 404', async () => {
    const app = await serviceApp(undefined, { publicBaseUrl: 'https://platform.example' });
    try {
      const answers = await Promise.all([
        app.inject({ method: 'GET', url: '/ip' }),
        app.inject({ method: 'POST', url: '/body', headers: { 'content-type': 'application/json' }, payload: '{"a":"\\ud800"}' }),
        app.inject({ method: 'GET', url: '/nowhere' }),
      ]);
      expect(answers.map((answer) => [answer.statusCode, answer.headers['strict-transport-security']])).toEqual([
        [200, STRICT_TRANSPORT_SECURITY],
        [400, STRICT_TRANSPORT_SECURITY],
        [404, STRICT_TRANSPORT_SECURITY],
      ]);
      expect(STRICT_TRANSPORT_SECURITY).toBe('max-age=63072000; includeSubDomains');
    } finally {
      await app.close();
    }
  });

  it.each([['an http origin', 'http://127.0.0.1:3000'], ['no origin given', undefined]])('is never sent for %s (§7.2)', async (_name, publicBaseUrl) => {
    const app = await serviceApp(undefined, { publicBaseUrl });
    try {
      expect((await app.inject({ method: 'GET', url: '/ip' })).headers['strict-transport-security']).toBeUndefined();
    } finally {
      await app.close();
    }
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
