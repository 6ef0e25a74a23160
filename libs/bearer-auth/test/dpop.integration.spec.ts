/**
 * DPoP (RFC 9449 §7) through the guard in a real Nest app on Fastify, against the introspection
 * stub: the answers and challenges a client sees; then the proofs' single use across two
 * instances on a real Redis, and on one instance while Redis is away.
 */
import { Controller, Get, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DPOP_SIGNING_ALGORITHMS } from '@platform/dpop';
import { LocalEventBus } from '@platform/event-bus';
import { OAuthExceptionFilter } from '@platform/oauth-errors';
import { createServer } from 'node:net';
import { describeIfRedis, realRedisUrl } from '../../../tools/test-support';
import { AllowAnonymous, type AuthPrincipal, BearerAuthModule, Principal, RequireScopes } from '../src';
import { resolveOptions } from '../src/options';
import { TokenAuthenticator } from '../src/token-authenticator';
import type { TokenValidator } from '../src/token-validator';
import { dpopProof, type ProofKey, proofKey } from './dpop-proofs';
import { IntrospectionStub } from './introspection-stub';

const RESOURCE = 'https://platform.test';
const METADATA = `${RESOURCE}/.well-known/oauth-protected-resource`;
const CREDENTIALS = { id: 'resource-server', secret: 'resource-server-secret-0123456789' };
const ALGS = DPOP_SIGNING_ALGORITHMS.join(' ');

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

describe('DPoP through the guard', () => {
  const stub = new IntrospectionStub(CREDENTIALS, RESOURCE);
  let app: NestFastifyApplication;
  let key: ProofKey;
  let otherKey: ProofKey;

  beforeAll(async () => {
    [key, otherKey] = await Promise.all([proofKey(), proofKey()]);
    stub.tokens.set('bound-reader', { scope: 'students:read', jkt: key.jkt });
    stub.tokens.set('plain-reader', { scope: 'students:read' });
    const introspectionEndpoint = await stub.start();
    @Module({
      imports: [
        BearerAuthModule.forRoot({
          introspectionEndpoint,
          clientId: CREDENTIALS.id,
          clientSecret: CREDENTIALS.secret,
          // The app listens on 127.0.0.1 behind a (pretend) gateway: proofs name the public origin.
          resource: RESOURCE,
          publicBaseUrl: RESOURCE,
          resourceMetadataUrl: METADATA,
          eventBus: new LocalEventBus(),
        }),
      ],
      controllers: [StudentsController],
    })
    class TestModule {}
    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), { logger: false });
    app.useGlobalFilters(new OAuthExceptionFilter());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app?.close();
    await stub.stop();
  });

  const call = async (method: 'GET' | 'POST', headers: Record<string, string | string[]>) => {
    const response = await app.inject({ method, url: '/students?limit=2', headers });
    return { status: response.statusCode, challenge: response.headers['www-authenticate'], body: response.json() as Record<string, unknown> };
  };
  const proofFor = (token: string, options: { method?: string; signer?: ProofKey } = {}) =>
    dpopProof(options.signer ?? key, { htm: options.method ?? 'GET', htu: `${RESOURCE}/students`, token });

  it('serves a DPoP-bound token with a proof of its key', async () => {
    const response = await call('GET', { authorization: 'DPoP bound-reader', dpop: await proofFor('bound-reader') });
    expect(response).toMatchObject({ status: 200, body: { kind: 'token', userId: 'user-1', jkt: key.jkt } });
  });

  it('reads the scheme case-insensitively', async () => {
    expect((await call('GET', { authorization: 'dpop bound-reader', dpop: await proofFor('bound-reader') })).status).toBe(200);
  });

  it('answers a bad proof with 401 and DPoP error="invalid_dpop_proof", Bearer offered beside it', async () => {
    const proof = await dpopProof(key, { htm: 'GET', htu: `${RESOURCE}/courses`, token: 'bound-reader' });
    const response = await call('GET', { authorization: 'DPoP bound-reader', dpop: proof });
    expect(response).toEqual({
      status: 401,
      challenge: `Bearer resource_metadata="${METADATA}", DPoP error="invalid_dpop_proof", error_description="The DPoP proof is for another URL", resource_metadata="${METADATA}", algs="${ALGS}"`,
      body: { error: 'invalid_dpop_proof', error_description: 'The DPoP proof is for another URL' },
    });
  });

  it('answers a proof of another key with 401 DPoP error="invalid_token"', async () => {
    const response = await call('GET', { authorization: 'DPoP bound-reader', dpop: await proofFor('bound-reader', { signer: otherKey }) });
    expect(response).toEqual({
      status: 401,
      challenge: `Bearer resource_metadata="${METADATA}", DPoP error="invalid_token", error_description="Invalid DPoP key binding", resource_metadata="${METADATA}", algs="${ALGS}"`,
      body: { error: 'invalid_token', error_description: 'Invalid DPoP key binding' },
    });
  });

  it('refuses a DPoP-bound token sent as Bearer: 401 Bearer error="invalid_token"', async () => {
    const response = await call('GET', { authorization: 'Bearer bound-reader' });
    expect(response).toEqual({
      status: 401,
      challenge: `Bearer error="invalid_token", error_description="This access token is bound to a DPoP key: present it with the DPoP scheme and a proof", resource_metadata="${METADATA}", DPoP resource_metadata="${METADATA}", algs="${ALGS}"`,
      body: { error: 'invalid_token', error_description: 'This access token is bound to a DPoP key: present it with the DPoP scheme and a proof' },
    });
  });

  it('refuses a DPoP request without its proof', async () => {
    const response = await call('GET', { authorization: 'DPoP bound-reader' });
    expect(response).toMatchObject({ status: 401, body: { error: 'invalid_dpop_proof', error_description: 'Exactly one DPoP header is required' } });
  });

  it('refuses two DPoP headers (Node joins them into one value, which is no single JWT)', async () => {
    const response = await call('GET', { authorization: 'DPoP bound-reader', dpop: [await proofFor('bound-reader'), await proofFor('bound-reader')] });
    expect(response).toMatchObject({ status: 401, body: { error: 'invalid_dpop_proof', error_description: 'The DPoP header is not a single well-formed JWT' } });
  });

  it('challenges a DPoP token without the scope with 403 in the DPoP scheme', async () => {
    const response = await call('POST', { authorization: 'DPoP bound-reader', dpop: await proofFor('bound-reader', { method: 'POST' }) });
    expect(response).toEqual({
      status: 403,
      challenge: `DPoP error="insufficient_scope", error_description="The access token lacks a required scope: students:write", scope="students:write", resource_metadata="${METADATA}", algs="${ALGS}"`,
      body: { error: 'insufficient_scope', error_description: 'The access token lacks a required scope: students:write' },
    });
  });

  it('answers a malformed DPoP header with 400 DPoP error="invalid_request"', async () => {
    const response = await call('GET', { authorization: 'DPoP two tokens', dpop: await proofFor('bound-reader') });
    expect(response).toEqual({
      status: 400,
      challenge: `DPoP error="invalid_request", error_description="The Authorization header must be DPoP followed by one access token", resource_metadata="${METADATA}", algs="${ALGS}"`,
      body: { error: 'invalid_request', error_description: 'The Authorization header must be DPoP followed by one access token' },
    });
  });

  it('refuses a token bound to no key under the DPoP scheme', async () => {
    const response = await call('GET', { authorization: 'DPoP plain-reader', dpop: await proofFor('plain-reader') });
    expect(response).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });

  it('keeps serving a Bearer token bound to no key', async () => {
    expect((await call('GET', { authorization: 'Bearer plain-reader' })).body).toMatchObject({ kind: 'token' });
  });

  it('serves a request with a DPoP header and no token as anonymous', async () => {
    expect((await call('GET', { dpop: await proofFor('bound-reader') })).body).toEqual({ kind: 'anonymous' });
  });
});

/** Two authenticators of one resource (two replicas), over a validator that knows one bound token. */
function replica(key: ProofKey, redisUrl?: string): TokenAuthenticator {
  const options = resolveOptions({
    introspectionEndpoint: 'http://127.0.0.1:1/introspect',
    clientId: CREDENTIALS.id,
    clientSecret: CREDENTIALS.secret,
    resource: RESOURCE,
    resourceMetadataUrl: METADATA,
    eventBus: new LocalEventBus(),
    redisUrl,
  });
  const validator = {
    validate: async () => ({ kind: 'token', schoolId: 's', userId: 'u', clientId: 'c', scopes: [], expiresAt: 2_000_000_000, jkt: key.jkt }),
  } as unknown as TokenValidator;
  return new TokenAuthenticator(options, validator);
}

const request = (proof: string) => ({ method: 'GET', url: '/students', headers: { dpop: proof } });

describeIfRedis('the proofs single use on a real Redis, across instances', () => {
  let key: ProofKey;
  let replicas: TokenAuthenticator[];

  beforeAll(async () => {
    key = await proofKey();
    const url = new URL(realRedisUrl() as string);
    // Two connections, as two processes would have (RedisConnection shares one per URL string).
    const sameDatabase = new URL(url);
    if (url.pathname === '' || url.pathname === '/') sameDatabase.pathname = '/0';
    replicas = [replica(key, url.toString()), replica(key, sameDatabase.toString())];
    await Promise.all(replicas.map((instance) => instance.onModuleInit()));
  });

  afterAll(async () => {
    await Promise.all(replicas.map((instance) => instance.onModuleDestroy()));
  });

  it('accepts a proof on one instance and refuses it on the other', async () => {
    const proof = await dpopProof(key, { htm: 'GET', htu: `${RESOURCE}/students`, token: 'bound' });
    const [first, second] = replicas as [TokenAuthenticator, TokenAuthenticator];
    await expect(first.dpop('bound', request(proof))).resolves.toMatchObject({ jkt: key.jkt });
    await expect(second.dpop('bound', request(proof))).rejects.toMatchObject({ error: 'invalid_dpop_proof', description: 'The DPoP proof was used before' });
  });

  it('lets one of two instances given the same proof at once accept it', async () => {
    const proof = await dpopProof(key, { htm: 'GET', htu: `${RESOURCE}/students`, token: 'bound' });
    const outcomes = await Promise.allSettled(replicas.map((instance) => instance.dpop('bound', request(proof))));
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
  });
});

describe('the proofs single use while Redis is away', () => {
  let key: ProofKey;
  let instance: TokenAuthenticator;

  beforeAll(async () => {
    key = await proofKey();
    instance = replica(key, `redis://127.0.0.1:${await closedPort()}`);
    await instance.onModuleInit();
  });

  afterAll(() => instance.onModuleDestroy());

  it('still refuses a replay on the same instance', async () => {
    const proof = await dpopProof(key, { htm: 'GET', htu: `${RESOURCE}/students`, token: 'bound' });
    await expect(instance.dpop('bound', request(proof))).resolves.toMatchObject({ jkt: key.jkt });
    await expect(instance.dpop('bound', request(proof))).rejects.toMatchObject({ error: 'invalid_dpop_proof' });
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
