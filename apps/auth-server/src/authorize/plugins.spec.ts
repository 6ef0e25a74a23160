/**
 * The sign-in pages on an https origin: HSTS from the service runtime (libs/service-runtime) on
 * every answer, and the pages' own security headers kept, on a page, a redirect, and a refusal
 * that never reached the controller.
 */
import { Controller, type DynamicModule, Get, Module, Post, Res } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { OAUTH_PATHS } from '@platform/contracts';
import { nestLoggerParams, REQUEST_LOGGING, requestLogging } from '@platform/logging';
import { ServiceMetrics } from '@platform/metrics';
import { completeServiceApp, createServiceApp, STRICT_TRANSPORT_SECURITY } from '@platform/service-runtime';
import type { FastifyReply } from 'fastify';
import { LoggerModule } from 'nestjs-pino';
import { PAGE_SECURITY_HEADERS, sendHtml, sendRedirect } from '../pages/html-response';
import { registerAuthorizePlugins } from './plugins';

@Controller(OAUTH_PATHS.authorization)
class PagesController {
  @Get()
  page(@Res() reply: FastifyReply) {
    sendHtml(reply, 200, '<!doctype html><p>Sign in</p>');
  }

  @Get('/redirect')
  redirect(@Res() reply: FastifyReply) {
    sendRedirect(reply, 'http://127.0.0.1:8765/callback?code=x');
  }

  @Post('/login')
  login(@Res() reply: FastifyReply) {
    sendHtml(reply, 200, '<!doctype html><p>Signed in</p>');
  }
}

const silent = { write: () => undefined };

@Module({})
class PagesModule {
  static register(): DynamicModule {
    return {
      module: PagesModule,
      imports: [LoggerModule.forRoot(nestLoggerParams({ service: 'auth-server', level: 'silent', destination: silent }))],
      controllers: [PagesController],
      providers: [
        { provide: ServiceMetrics, useValue: new ServiceMetrics() },
        { provide: REQUEST_LOGGING, useValue: requestLogging({ service: 'auth-server', level: 'silent', destination: silent }) },
      ],
    };
  }
}

let app: NestFastifyApplication;

beforeAll(async () => {
  app = await createServiceApp(
    { service: 'auth-server', trustedProxies: [], logLevel: 'silent', module: () => PagesModule.register(), metrics: ServiceMetrics, publicBaseUrl: 'https://platform.example' },
    { logger: false },
  );
  await registerAuthorizePlugins(app.getHttpAdapter().getInstance());
  await completeServiceApp(app, undefined);
  await app.getHttpAdapter().getInstance().ready();
});

afterAll(async () => {
  await app?.close();
});

describe('the sign-in pages behind an https origin', () => {
  it.each([
    ['a page', 'GET', `${OAUTH_PATHS.authorization}`, undefined, 200],
    ['a redirect', 'GET', `${OAUTH_PATHS.authorization}/redirect`, undefined, 303],
    ['a form', 'POST', `${OAUTH_PATHS.authorization}/login`, 'email=a', 200],
    ['a form body the parser refuses, before the controller', 'POST', `${OAUTH_PATHS.authorization}/login`, `${'resource=x&'.repeat(20)}`, 400],
  ] as const)('%s: HSTS and every page security header', async (_name, method, url, payload, status) => {
    const response = await app.inject({ method, url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload });
    expect(response.statusCode).toBe(status);
    expect(response.headers['strict-transport-security']).toBe(STRICT_TRANSPORT_SECURITY);
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) expect(response.headers[name]).toBe(value);
  });
});
