/**
 * The authorization server refuses introspection with 429 when the resource servers' budget is
 * spent (every replica introspects as the one client). The token may well be valid: the caller
 * gets 503 temporarily_unavailable with the Retry-After it was given (never 401 invalid_token),
 * cached tokens keep working, and no doomed introspection is sent until Retry-After has passed.
 */
import { Controller, Get, Module } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { LocalEventBus } from '@platform/event-bus';
import { OAuthExceptionFilter } from '@platform/oauth-errors';
import { BearerAuthModule, type AuthPrincipal, Principal, RequireScopes } from '../src';
import { retryAfterSeconds } from '../src/introspection-client';
import { IntrospectionStub } from './introspection-stub';

const RESOURCE = 'http://platform.test';
const CREDENTIALS = { id: 'resource-server', secret: 'resource-server-secret-0123456789' };

@Controller('students')
class StudentsController {
  @Get()
  @RequireScopes('students:read')
  list(@Principal() principal: AuthPrincipal) {
    return principal;
  }
}

describe('introspection refused for the budget (429)', () => {
  const stub = new IntrospectionStub(CREDENTIALS, RESOURCE);
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const introspectionEndpoint = await stub.start();
    @Module({
      imports: [
        BearerAuthModule.forRoot({
          introspectionEndpoint,
          clientId: CREDENTIALS.id,
          clientSecret: CREDENTIALS.secret,
          resource: RESOURCE,
          resourceMetadataUrl: `${RESOURCE}/.well-known/oauth-protected-resource`,
          eventBus: new LocalEventBus(),
        }),
      ],
      controllers: [StudentsController],
    })
    class TestModule {}
    const moduleRef = await Test.createTestingModule({ imports: [TestModule] }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    app.useGlobalFilters(new OAuthExceptionFilter());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    await stub.stop();
  });

  const call = (token: string) => app.inject({ url: '/students', headers: { authorization: `Bearer ${token}` } });

  it('answers 503 with the Retry-After it was given, keeps cached tokens working, and asks again only after it', async () => {
    const cached = `cached-${Date.now()}`;
    const uncached = `uncached-${Date.now()}`;
    stub.tokens.set(cached, { scope: 'students:read' });
    stub.tokens.set(uncached, { scope: 'students:read' });
    expect((await call(cached)).statusCode).toBe(200);

    stub.refusing = { retryAfter: '1' };
    const calls = stub.calls;
    const refused = await call(uncached);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(refused.headers['www-authenticate'] ?? '').not.toContain('invalid_token');
    expect((await call(cached)).statusCode).toBe(200);
    // Held off: no second call while the budget is refused.
    expect((await call(uncached)).statusCode).toBe(503);
    expect(stub.calls).toBe(calls + 1);

    stub.refusing = undefined;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await call(uncached)).statusCode).toBe(200);
  });
});

describe('retryAfterSeconds', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  it.each([
    ['30', 30],
    ['0', 1],
    ['3600', 60],
    ['Sat, 28 Nov 2026 12:00:10 GMT', 10],
    ['Sat, 28 Nov 2026 11:00:00 GMT', 1],
    [null, 1],
    ['soon', 1],
  ])('reads %j as %d s, held to 1..60', (value, seconds) => {
    expect(retryAfterSeconds(value, now)).toBe(seconds);
  });
});
