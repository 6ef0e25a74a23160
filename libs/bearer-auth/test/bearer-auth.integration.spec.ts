/**
 * The bearer lib in a real Nest app on Fastify: the guard's answers, the two cache layers
 * (Redis when REDIS_URL is set), revocation events, and the fallbacks when Redis or the
 * authorization server is away.
 */
import { Controller, Get, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { accessTokenKey, TOKEN_REVOKED_CHANNEL, type TokenRevokedEvent } from '@platform/contracts';
import { DPOP_SIGNING_ALGORITHMS } from '@platform/dpop';
import { type EventBus, LocalEventBus, RedisEventBus } from '@platform/event-bus';
import { OAuthExceptionFilter } from '@platform/oauth-errors';
import { createServer } from 'node:net';
import { describeIfRedis, realRedisUrl } from '../../../tools/test-support';
import {
  AllowAnonymous,
  type AuthPrincipal,
  BearerAuthModule,
  type BearerAuthOptions,
  Principal,
  PublicRoute,
  RequireScopes,
} from '../src';
import { IntrospectionStub } from './introspection-stub';

const RESOURCE = 'http://platform.test';
const METADATA = `${RESOURCE}/.well-known/oauth-protected-resource`;
const CREDENTIALS = { id: 'resource-server', secret: 'resource-server-secret-0123456789' };
/** RFC 9449 §7.1: every 401 challenges for DPoP too, with the algorithms accepted. */
const DPOP = `DPoP resource_metadata="${METADATA}", algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`;

@Controller('students')
class StudentsController {
  @Get()
  @RequireScopes('students:read')
  @AllowAnonymous()
  list(@Principal() principal: AuthPrincipal) {
    return principal;
  }

  @Post()
  @RequireScopes('students:write')
  create(@Principal() principal: AuthPrincipal) {
    return principal;
  }
}

@Controller('health')
class HealthController {
  @Get()
  @PublicRoute()
  health() {
    return { ok: true };
  }
}

interface Harness {
  app: NestFastifyApplication;
  url: string;
  close(): Promise<void>;
}

async function startApp(options: Partial<BearerAuthOptions> & Pick<BearerAuthOptions, 'introspectionEndpoint' | 'eventBus'>, controllers: unknown[] = [StudentsController, HealthController]): Promise<Harness> {
  @Module({
    imports: [
      BearerAuthModule.forRoot({
        clientId: CREDENTIALS.id,
        clientSecret: CREDENTIALS.secret,
        resource: RESOURCE,
        resourceMetadataUrl: METADATA,
        ...options,
      }),
    ],
    controllers: controllers as never[],
  })
  class TestModule {}
  const app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), { logger: false });
  app.useGlobalFilters(new OAuthExceptionFilter());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}`, close: () => app.close() };
}

async function call(harness: Harness, path: string, init: { method?: string; token?: string; headers?: Record<string, string>; json?: unknown } = {}) {
  const response = await fetch(`${harness.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: (await response.json()) as Record<string, unknown> };
}

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(condition: () => Promise<boolean>, withinMs: number): Promise<void> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > withinMs) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('the guard, with the in-process cache', () => {
  const stub = new IntrospectionStub(CREDENTIALS, RESOURCE);
  const bus = new LocalEventBus();
  let harness: Harness;

  beforeAll(async () => {
    const introspectionEndpoint = await stub.start();
    harness = await startApp({ introspectionEndpoint, eventBus: bus });
  });

  afterAll(async () => {
    await harness?.close();
    await stub.stop();
  });

  beforeEach(() => {
    stub.calls = 0;
  });

  it('serves a read without a token as the anonymous principal', async () => {
    expect(await call(harness, '/students')).toMatchObject({ status: 200, body: { kind: 'anonymous' } });
    expect(stub.calls).toBe(0);
  });

  it('challenges a write without a token with no error code (RFC 6750 §3.1)', async () => {
    const response = await call(harness, '/students', { method: 'POST' });
    expect(response.status).toBe(401);
    expect(response.challenge).toBe(
      `Bearer scope="students:write", resource_metadata="${METADATA}", DPoP scope="students:write", resource_metadata="${METADATA}", algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`,
    );
    expect(response.body).toEqual({ error: 'unauthorized', error_description: expect.any(String) });
  });

  it('refuses an unknown token with 401 invalid_token', async () => {
    const response = await call(harness, '/students', { token: 'unknown-token-0000000000' });
    expect(response.status).toBe(401);
    expect(response.challenge).toBe(
      `Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", resource_metadata="${METADATA}", ${DPOP}`,
    );
    expect(response.body).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid, expired or revoked' });
  });

  it('refuses a token over 4096 characters with 401 invalid_token without introspecting it', async () => {
    const response = await call(harness, '/students', { token: 'x'.repeat(4097) });
    expect(response.status).toBe(401);
    expect(response.challenge).toBe(
      `Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", resource_metadata="${METADATA}", ${DPOP}`,
    );
    expect(response.body).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid, expired or revoked' });
    expect(stub.calls).toBe(0);
  });

  it('introspects a token of exactly 4096 characters', async () => {
    const token = 'y'.repeat(4096);
    stub.tokens.set(token, { scope: 'students:read' });
    expect((await call(harness, '/students', { token })).status).toBe(200);
    expect(stub.calls).toBe(1);
  });

  it('refuses a token without the scope with 403 insufficient_scope naming the scope', async () => {
    stub.tokens.set('reader-only', { scope: 'students:read' });
    const response = await call(harness, '/students', { method: 'POST', token: 'reader-only' });
    expect(response.status).toBe(403);
    expect(response.challenge).toBe(
      `Bearer error="insufficient_scope", error_description="The access token lacks a required scope: students:write", scope="students:write", resource_metadata="${METADATA}"`,
    );
  });

  it('refuses a token issued for another resource', async () => {
    stub.tokens.set('other-audience', { scope: 'students:read', aud: 'https://elsewhere.test' });
    const response = await call(harness, '/students', { token: 'other-audience' });
    expect(response.status).toBe(401);
    expect(response.body['error_description']).toBe('The access token was not issued for this resource');
  });

  it('refuses a token sent in the query string', async () => {
    const response = await call(harness, '/students?access_token=abc');
    expect(response.status).toBe(400);
    expect(response.body['error']).toBe('invalid_request');
  });

  it('refuses a valid token sent in the body, beside a header of another scheme (RFC 6750 §2.2 is not supported)', async () => {
    stub.tokens.set('in-body', { scope: 'students:read students:write' });
    const response = await call(harness, '/students', { method: 'POST', headers: { authorization: 'Basic dXNlcjpwdw==' }, json: { access_token: 'in-body' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', error_description: 'Send the access token in the Authorization header, not in the body' });
  });

  it('challenges another authentication scheme', async () => {
    const response = await call(harness, '/students', { headers: { authorization: 'Basic dXNlcjpwdw==' } });
    expect(response.status).toBe(401);
  });

  it('accepts a valid token and introspects it only once', async () => {
    stub.tokens.set('good', { scope: 'students:read students:write' });
    for (let i = 0; i < 5; i++) {
      const response = await call(harness, '/students', { token: 'good' });
      expect(response).toMatchObject({ status: 200, body: { kind: 'token', schoolId: 'demo-school', userId: 'user-1' } });
    }
    expect(stub.calls).toBe(1);
  });

  it('caches an inactive answer too, so floods of bad tokens cost one introspection', async () => {
    for (let i = 0; i < 5; i++) await call(harness, '/students', { token: 'flood-token' });
    expect(stub.calls).toBe(1);
  });

  it('stops accepting a token once it expires', async () => {
    stub.tokens.set('short-lived', { scope: 'students:read', expiresIn: 1 });
    expect((await call(harness, '/students', { token: 'short-lived' })).status).toBe(200);
    stub.tokens.delete('short-lived');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await call(harness, '/students', { token: 'short-lived' })).status).toBe(401);
  });

  it('refuses a revoked token on the very next request after the revocation event', async () => {
    stub.tokens.set('to-revoke', { scope: 'students:read' });
    expect((await call(harness, '/students', { token: 'to-revoke' })).status).toBe(200);
    stub.tokens.delete('to-revoke');
    const event: TokenRevokedEvent = { accessTokenHashes: [accessTokenKey('to-revoke')], reason: 'revocation', at: Date.now() };
    await bus.publish(TOKEN_REVOKED_CHANNEL, event);
    expect((await call(harness, '/students', { token: 'to-revoke' })).status).toBe(401);
  });

  it('answers a warm token (from memory, before passport) exactly as it answered it cold', async () => {
    stub.tokens.set('warm-reader', { scope: 'students:read' });
    stub.tokens.set('warm-elsewhere', { scope: 'students:read', aud: 'https://elsewhere.test' });
    const requests: [string, { method?: string; token: string }][] = [
      ['/students', { token: 'warm-reader' }],
      ['/students', { method: 'POST', token: 'warm-reader' }],
      ['/students', { token: 'warm-elsewhere' }],
      ['/students', { token: 'warm-unknown' }],
    ];
    for (const [path, init] of requests) {
      const cold = await call(harness, path, init);
      expect(await call(harness, path, init)).toEqual(cold);
    }
    expect(stub.calls).toBe(3);
  });

  it('leaves the headers passport refuses to passport, even with a warm token', async () => {
    stub.tokens.set('warm-shape', { scope: 'students:read students:write' });
    expect((await call(harness, '/students', { token: 'warm-shape' })).status).toBe(200);
    for (const authorization of ['Bearer  warm-shape', 'Bearer\twarm-shape', 'Bearer warm-shape extra']) {
      const response = await call(harness, '/students', { headers: { authorization } });
      expect(response).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      expect(response.challenge).toMatch(/^Bearer error="invalid_request"/);
    }
    // A token in the body as well as in the header: passport refuses the request (RFC 6750 §2: one method only).
    const both = await fetch(`${harness.url}/students`, {
      method: 'POST',
      headers: { authorization: 'Bearer warm-shape', 'content-type': 'application/json' },
      body: JSON.stringify({ access_token: 'warm-shape' }),
    });
    expect(both.status).toBe(400);
    expect(stub.calls).toBe(1);
  });

  it('lets public routes through without looking at tokens', async () => {
    expect(await call(harness, '/health', { token: 'anything' })).toMatchObject({ status: 200, body: { ok: true } });
  });
});

describe('when the authorization server is down', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startApp({ introspectionEndpoint: `http://127.0.0.1:${await closedPort()}/introspect`, eventBus: new LocalEventBus() });
  });

  afterAll(() => harness?.close());

  it('answers an uncached token with 503 temporarily_unavailable, not 401', async () => {
    const response = await call(harness, '/students', { token: 'some-token-000000000000' });
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ error: 'temporarily_unavailable', error_description: 'The authorization server is unavailable; retry shortly' });
  });

  it('still serves anonymous reads', async () => {
    expect((await call(harness, '/students')).status).toBe(200);
  });
});

describe('when Redis is configured but unreachable', () => {
  const stub = new IntrospectionStub(CREDENTIALS, RESOURCE);
  let harness: Harness;

  beforeAll(async () => {
    const introspectionEndpoint = await stub.start();
    harness = await startApp({
      introspectionEndpoint,
      eventBus: new LocalEventBus(),
      redisUrl: `redis://127.0.0.1:${await closedPort()}`,
      cache: { inProcessEntries: 1 },
    });
  });

  afterAll(async () => {
    await harness?.close();
    await stub.stop();
  });

  it('validates through introspection and never accepts an inactive token', async () => {
    stub.tokens.set('a', { scope: 'students:read' });
    stub.tokens.set('b', { scope: 'students:read' });
    expect((await call(harness, '/students', { token: 'a' })).status).toBe(200);
    expect((await call(harness, '/students', { token: 'b' })).status).toBe(200);
    stub.tokens.delete('a');
    // The one-entry in-process layer holds 'b' now; 'a' goes back to introspection.
    expect((await call(harness, '/students', { token: 'a' })).status).toBe(401);
    expect(stub.calls).toBe(3);
  });
});

/** A bus whose subscription the test cuts: what RedisEventBus reports after a reconnection. */
class InterruptibleBus extends LocalEventBus {
  private readonly missed: (() => void)[] = [];

  onMissedMessages(handler: () => void): void {
    this.missed.push(handler);
  }

  cutAndRestore(): void {
    for (const handler of this.missed) handler();
  }
}

describe('when the revocation subscription was cut and came back', () => {
  const stub = new IntrospectionStub(CREDENTIALS, RESOURCE);
  const bus = new InterruptibleBus();
  let harness: Harness;

  beforeAll(async () => {
    harness = await startApp({ introspectionEndpoint: await stub.start(), eventBus: bus });
  });

  afterAll(async () => {
    await harness?.close();
    await stub.stop();
  });

  it('uses nothing cached before: a token revoked meanwhile is refused, and memory starts empty at the next heartbeat', async () => {
    stub.tokens.set('kept', { scope: 'students:read' });
    stub.tokens.set('revoked-unheard', { scope: 'students:read' });
    for (const token of ['kept', 'revoked-unheard', 'kept', 'revoked-unheard']) {
      expect((await call(harness, '/students', { token })).status).toBe(200);
    }
    expect(stub.calls).toBe(2);

    // Revoked while the subscription was down: the event never arrives.
    stub.tokens.delete('revoked-unheard');
    bus.cutAndRestore();
    expect((await call(harness, '/students', { token: 'revoked-unheard' })).status).toBe(401);
    expect((await call(harness, '/students', { token: 'kept' })).status).toBe(200);
    expect(stub.calls).toBe(4);

    // The next heartbeat heard (within a second) starts a new period, with nothing in memory.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await call(harness, '/students', { token: 'kept' })).status).toBe(200);
    expect((await call(harness, '/students', { token: 'kept' })).status).toBe(200);
    expect(stub.calls).toBe(5);
  });
});

describe('an unannotated route', () => {
  @Controller('forgotten')
  class ForgottenController {
    @Get()
    forgotten() {
      return 'should never be served';
    }
  }

  it('stops the application from starting', async () => {
    await expect(
      startApp({ introspectionEndpoint: 'http://127.0.0.1:1/introspect', eventBus: new LocalEventBus() }, [ForgottenController]),
    ).rejects.toThrow('Routes without @RequireScopes or @PublicRoute: GET ForgottenController.forgotten');
  });
});

/**
 * A logical database of its own: every instance that connects to a Redis bumps the shared
 * cache generation there, and one started by another suite meanwhile would make these
 * instances miss each other's entries until their next heartbeat.
 */
function isolatedRedisUrl(): string {
  const url = new URL(realRedisUrl() as string);
  url.pathname = '/7';
  return url.toString();
}

/**
 * Each instance takes a new cache generation when it connects; the one started first adopts
 * the later one at its next heartbeat (within a second). Until then the second instance
 * ignores what the first one writes: probe until an answer cached by the first is shared.
 */
async function waitForSharedCache(stub: IntrospectionStub, first: Harness, second: Harness): Promise<void> {
  await waitFor(async () => {
    const token = `probe-${Date.now()}-${Math.random()}`;
    stub.tokens.set(token, { scope: 'students:read' });
    const callsBefore = stub.calls;
    await call(first, '/students', { token });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await call(second, '/students', { token });
    return stub.calls === callsBefore + 1;
  }, 5_000);
}

describeIfRedis('the Redis layer (real Redis)', () => {
  const stub = new IntrospectionStub(CREDENTIALS, RESOURCE);
  let endpoint: string;
  let bus: EventBus;
  let first: Harness;
  let second: Harness;

  beforeAll(async () => {
    endpoint = await stub.start();
    bus = await new RedisEventBus(realRedisUrl() as string).connect();
    first = await startApp({ introspectionEndpoint: endpoint, eventBus: bus, redisUrl: isolatedRedisUrl() });
    second = await startApp({ introspectionEndpoint: endpoint, eventBus: bus, redisUrl: isolatedRedisUrl() });
    await waitForSharedCache(stub, first, second);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await bus?.close();
    await stub.stop();
  });

  beforeEach(() => {
    stub.calls = 0;
  });

  it('shares answers between instances: the second instance does not introspect again', async () => {
    const token = `shared-${Date.now()}`;
    stub.tokens.set(token, { scope: 'students:read' });
    expect((await call(first, '/students', { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await call(second, '/students', { token })).status).toBe(200);
    expect(stub.calls).toBe(1);
  });

  it('drops the answer from Redis and every instance on a revocation event over Redis pub/sub', async () => {
    const token = `revoked-${Date.now()}`;
    stub.tokens.set(token, { scope: 'students:read' });
    expect((await call(first, '/students', { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await call(second, '/students', { token })).status).toBe(200);
    stub.tokens.delete(token);
    // A third subscriber tells when Redis has delivered the event; the instances got it too.
    let delivered = false;
    const unsubscribe = await bus.subscribe<TokenRevokedEvent>(TOKEN_REVOKED_CHANNEL, () => (delivered = true));
    await bus.publish<TokenRevokedEvent>(TOKEN_REVOKED_CHANNEL, {
      accessTokenHashes: [accessTokenKey(token)],
      reason: 'revocation',
      at: Date.now(),
    });
    await waitFor(async () => delivered, 5_000);
    await unsubscribe();
    expect((await call(first, '/students', { token })).status).toBe(401);
    expect((await call(second, '/students', { token })).status).toBe(401);
    // Refused from the revocation itself: no new introspection was needed.
    expect(stub.calls).toBe(1);
  });

  it('expires a cached answer with the token', async () => {
    const token = `expiring-${Date.now()}`;
    stub.tokens.set(token, { scope: 'students:read', expiresIn: 1 });
    expect((await call(first, '/students', { token })).status).toBe(200);
    stub.tokens.delete(token);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await call(second, '/students', { token })).status).toBe(401);
  });
});
