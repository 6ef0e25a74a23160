/**
 * A service stopping under traffic drops nothing that reaches it: a request that arrives on a
 * kept-alive connection while it closes is answered (with `Connection: close`, so the client's
 * next request goes elsewhere), never refused with a 503; readiness fails from the first moment
 * of shutdown; and during SHUTDOWN_DRAIN_MS it goes on serving, every answer closing its
 * connection, until it stops listening.
 */
import { Controller, type DynamicModule, Get, Module } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { ProbesController } from '@platform/health';
import { nestLoggerParams, REQUEST_LOGGING, requestLogging } from '@platform/logging';
import { ServiceMetrics } from '@platform/metrics';
import { connect, type Socket } from 'node:net';
import { LoggerModule } from 'nestjs-pino';
import { closeService } from './closing';
import { completeServiceApp, createServiceApp } from './service-app';

let release: () => void = () => undefined;
let held = Promise.resolve();
let arrived: () => void = () => undefined;

@Controller()
class SlowController {
  @Get('/held')
  async held() {
    arrived();
    await held;
    return { done: true };
  }

  @Get('/quick')
  quick() {
    return { quick: true };
  }
}

@Controller()
class HealthController extends ProbesController {
  constructor(health: HealthCheckService, adapterHost: HttpAdapterHost) {
    super(health, { checks: () => [] }, adapterHost);
  }
}

const discarded = { write: () => undefined };

@Module({})
class TestServiceModule {
  static register(): DynamicModule {
    return {
      module: TestServiceModule,
      imports: [LoggerModule.forRoot(nestLoggerParams({ service: 'test-service', level: 'silent', destination: discarded })), TerminusModule.forRoot({ logger: false })],
      controllers: [SlowController, HealthController],
      providers: [
        { provide: ServiceMetrics, useValue: new ServiceMetrics() },
        { provide: REQUEST_LOGGING, useValue: requestLogging({ service: 'test-service', level: 'silent', destination: discarded }) },
      ],
    };
  }
}

async function listeningService(): Promise<{ app: NestFastifyApplication; port: number }> {
  const app = await createServiceApp(
    { service: 'auth-server', trustedProxies: [], logLevel: 'silent', module: () => TestServiceModule.register(), metrics: ServiceMetrics },
    { logger: false },
  );
  await completeServiceApp(app, undefined);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, port: (app.getHttpServer().address() as { port: number }).port };
}

function holdRequests(): { started: Promise<void> } {
  held = new Promise<void>((resolve) => (release = resolve));
  return { started: new Promise<void>((resolve) => (arrived = resolve)) };
}

/** A raw connection: what arrives, as text. */
function rawConnection(port: number): Promise<{ socket: Socket; received: () => string; ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    const ended = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.once('connect', () => resolve({ socket, received: () => text, ended }));
  });
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a service that closes', () => {
  afterEach(() => release());

  it('answers a request that arrives on a kept-alive connection meanwhile, with Connection: close, not 503', async () => {
    const { app, port } = await listeningService();
    // One request in flight keeps the server closing (not closed) while the other arrives.
    const inFlight = holdRequests();
    const busy = await rawConnection(port);
    busy.socket.write('GET /held HTTP/1.1\r\nHost: service\r\n\r\n');
    await inFlight.started;
    // A kept-alive connection on which the next request has begun: not idle, so not closed under it.
    const client = await rawConnection(port);
    client.socket.write('GET /quick HTTP/1.1\r\nHost: service\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));

    const closed = app.close();
    await eventually(() => refused(port), 'the service stops listening');
    client.socket.write('\r\n');
    await client.ended;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(client.received()).toMatch(/\r\nconnection: close\r\n/i);
    expect(client.received()).toContain('{"quick":true}');

    release();
    await busy.ended;
    expect(busy.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    await closed;
  });

  it('is not ready from the moment shutdown begins, serves through the drain with Connection: close, then stops listening', async () => {
    const { app, port } = await listeningService();
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const quiet = { log: () => undefined, error: () => undefined };
    const closed = closeService(app, { reason: 'SIGTERM', drainMs: 1_000, deadlineMs: 5_000, logger: quiet });

    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'error', error: { shutdown: { status: 'down' } } });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const served = await fetch(`${base}/quick`);
    expect(served.status).toBe(200);
    expect(served.headers.get('connection')).toBe('close');
    expect(await refused(port)).toBe(false);

    await closed;
    expect(await refused(port)).toBe(true);
  });
});
