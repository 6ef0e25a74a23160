/**
 * serveDirectly: a controller method served from its Fastify route answers exactly as Nest's
 * pipeline answers it (status, headers, body), for answers, OAuth errors thrown before or after
 * an await, and unexpected failures; the route's own hooks still run; Nest's pipeline does not;
 * and what it cannot serve stops the application at start.
 */
import {
  Body,
  type CallHandler,
  Controller,
  type ExecutionContext,
  Header,
  Headers,
  HttpCode,
  type NestInterceptor,
  type PipeTransform,
  Post,
  Req,
  UseGuards,
  UsePipes,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { InvalidGrantError, OAuthExceptionFilter } from '@platform/oauth-errors';
import type { FastifyRequest } from 'fastify';
import { directRoute, serveDirectly } from './direct-routes';

@Controller('/oauth')
class ExchangeController {
  @Post('/exchange')
  @HttpCode(200)
  @Header('cache-control', 'no-store')
  @Header('Pragma', 'no-cache')
  async exchange(@Body() body: Record<string, string> | undefined, @Headers('Authorization') authorization?: string) {
    if (body?.['fail'] === 'sync-grant') throw new InvalidGrantError('The code is invalid', 'sync');
    await Promise.resolve();
    if (body?.['fail'] === 'grant') throw new InvalidGrantError('The code is invalid', 'async');
    if (body?.['fail'] === 'crash') throw new Error('database exploded: SELECT secret FROM t');
    return { echoed: body?.['value'] ?? null, authorization: authorization ?? null };
  }

  /** No @HttpCode: a POST answers 201, as Nest does. */
  @Post('/created')
  created(@Req() request: FastifyRequest) {
    return { url: request.url };
  }
}

/** Marks every answer that went through Nest's pipeline (it runs the global interceptors). */
class PipelineMarker implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    context.switchToHttp().getResponse<{ header(name: string, value: string): void }>().header('x-nest-pipeline', 'ran');
    return next.handle();
  }
}

async function appOf(direct: boolean, marker = false): Promise<NestFastifyApplication> {
  class ExchangeModule {}
  const app = await NestFactory.create<NestFastifyApplication>({ module: ExchangeModule, controllers: [ExchangeController] }, new FastifyAdapter(), { logger: false });
  app.useGlobalFilters(new OAuthExceptionFilter());
  if (marker) app.useGlobalInterceptors(new PipelineMarker());
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route) => {
    // A hook of the route itself, as the rate limits add: it must still run.
    if (route.url === '/oauth/exchange') {
      route.onRequest = [
        (_request, reply, done) => {
          reply.header('x-route-hook', 'ran');
          done();
        },
      ];
    }
  });
  if (direct) serveDirectly(app, [directRoute(ExchangeController, 'exchange'), directRoute(ExchangeController, 'created')]);
  await app.init();
  await fastify.ready();
  return app;
}

const answer = async (app: NestFastifyApplication, url: string, form: Record<string, string>, authorization?: string) => {
  const response = await app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    payload: new URLSearchParams(form).toString(),
  });
  const { date: _date, ...headers } = response.headers;
  return { status: response.statusCode, headers, body: response.body };
};

describe('serveDirectly', () => {
  let viaNest: NestFastifyApplication;
  let direct: NestFastifyApplication;
  beforeAll(async () => {
    [viaNest, direct] = await Promise.all([appOf(false), appOf(true)]);
  });
  afterAll(async () => Promise.all([viaNest?.close(), direct?.close()]));

  it.each([
    ['an answer', '/oauth/exchange', { value: 'v1' }, 'Basic abc'],
    ['an OAuth error thrown before any await', '/oauth/exchange', { fail: 'sync-grant' }, undefined],
    ['an OAuth error thrown after an await', '/oauth/exchange', { fail: 'grant' }, undefined],
    ['an unexpected failure (server_error, nothing of it in the body)', '/oauth/exchange', { fail: 'crash' }, undefined],
    ['a POST without @HttpCode (201) reading the request', '/oauth/created', {}, undefined],
  ])('%s: the same status, headers and body as through Nest', async (_name, url, form, authorization) => {
    const [expected, actual] = await Promise.all([answer(viaNest, url, form, authorization), answer(direct, url, form, authorization)]);
    expect(actual).toEqual(expected);
  });

  it('answers as the controller says, with the route hook run', async () => {
    const ok = await answer(direct, '/oauth/exchange', { value: 'v1' }, 'Basic abc');
    expect(ok).toMatchObject({ status: 200, headers: { 'cache-control': 'no-store', pragma: 'no-cache', 'x-route-hook': 'ran' } });
    expect(JSON.parse(ok.body)).toEqual({ echoed: 'v1', authorization: 'Basic abc' });
    const refused = await answer(direct, '/oauth/exchange', { fail: 'grant' });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toEqual({ error: 'invalid_grant', error_description: 'The code is invalid' });
    const crashed = await answer(direct, '/oauth/exchange', { fail: 'crash' });
    expect(crashed.status).toBe(500);
    expect(crashed.body).not.toContain('exploded');
  });

  it("skips Nest's pipeline: a global interceptor that marks its answers never sees the route", async () => {
    const [marked, skipped] = await Promise.all([appOf(false, true), appOf(true, true)]);
    try {
      expect((await answer(marked, '/oauth/exchange', { value: 'v' })).headers['x-nest-pipeline']).toBe('ran');
      expect((await answer(skipped, '/oauth/exchange', { value: 'v' })).headers['x-nest-pipeline']).toBeUndefined();
    } finally {
      await Promise.all([marked.close(), skipped.close()]);
    }
  });

  it("refuses at start what only Nest's pipeline would run: a guard, a pipe, an undecorated parameter", async () => {
    const guard = { canActivate: () => true };
    const pipe: PipeTransform = { transform: (value: unknown) => value };
    @Controller()
    class Guarded {
      @Post('/g')
      @UseGuards(guard)
      g(@Body() body: unknown) {
        return body;
      }

      @Post('/p')
      @UsePipes(pipe)
      p(@Body() body: unknown) {
        return body;
      }

      @Post('/u')
      u(body: unknown) {
        return body;
      }
    }
    class GuardedModule {}
    const app = await NestFactory.create<NestFastifyApplication>({ module: GuardedModule, controllers: [Guarded] }, new FastifyAdapter(), { logger: false });
    expect(() => serveDirectly(app, [directRoute(Guarded, 'g')])).toThrow('Guarded.g has a guard');
    expect(() => serveDirectly(app, [directRoute(Guarded, 'p')])).toThrow('Guarded.p has a pipe');
    expect(() => serveDirectly(app, [directRoute(Guarded, 'u')])).toThrow('every parameter of Guarded.u needs a decorator');
    await app.close();
  });

  it('refuses to start when the route it replaces was never registered', async () => {
    @Controller()
    class Unregistered {
      @Post('/never')
      never() {
        return {};
      }
    }
    // Provided, but not registered as a controller: Nest never routes to it.
    class LonelyModule {}
    const app = await NestFactory.create<NestFastifyApplication>({ module: LonelyModule, providers: [Unregistered] }, new FastifyAdapter(), { logger: false });
    serveDirectly(app, [directRoute(Unregistered, 'never')]);
    await app.init();
    await expect(app.getHttpAdapter().getInstance().ready()).rejects.toThrow('no route was registered for POST /never');
    await app.close().catch(() => undefined);
  });
});
