/**
 * Resource-server instances for the fault specs: the bearer guard on one route, each with its
 * own Redis event bus, on a Redis the spec controls (tools/test-support/private-redis).
 */
import { Controller, Get, Module } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { accessTokenKey, TOKEN_REVOKED_CHANNEL, type TokenRevokedEvent } from '@platform/contracts';
import { RedisEventBus } from '@platform/event-bus';
import { OAuthExceptionFilter } from '@platform/oauth-errors';
import { createClient } from 'redis';
import { BearerAuthModule, type AuthPrincipal, Principal, RequireScopes } from '../../src';
import { waitFor } from '../../../../tools/test-support/private-redis';

export const RESOURCE = 'http://platform.test';
export const CREDENTIALS = { id: 'resource-server', secret: 'resource-server-secret-0123456789' };

@Controller('students')
class StudentsController {
  @Get()
  @RequireScopes('students:read')
  list(@Principal() principal: AuthPrincipal) {
    return principal;
  }
}

export interface Instance {
  name: string;
  url: string;
  /** Lookups in the shared Redis layer so far: it looks up only while its entries are in use. */
  redisLookups(): number;
  close(): Promise<void>;
}

export async function startInstance(name: string, redisUrl: string, introspectionEndpoint: string): Promise<Instance> {
  const bus = await new RedisEventBus(redisUrl).connect();
  let redisLookups = 0;
  @Module({
    imports: [
      BearerAuthModule.forRoot({
        introspectionEndpoint,
        clientId: CREDENTIALS.id,
        clientSecret: CREDENTIALS.secret,
        resource: RESOURCE,
        resourceMetadataUrl: `${RESOURCE}/.well-known/oauth-protected-resource`,
        redisUrl,
        eventBus: bus,
        metrics: {
          cacheLookup: (layer) => void (layer === 'redis' && redisLookups++),
          introspection: () => undefined,
        },
      }),
    ],
    controllers: [StudentsController],
  })
  class InstanceModule {}
  const moduleRef = await Test.createTestingModule({ imports: [InstanceModule] }).compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
  app.useGlobalFilters(new OAuthExceptionFilter());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.getHttpServer().address() as { port: number };
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    redisLookups: () => redisLookups,
    async close() {
      await app.close();
      await bus.close();
    },
  };
}

export async function status(instance: Instance, token: string): Promise<number> {
  const response = await fetch(`${instance.url}/students`, { headers: { authorization: `Bearer ${token}` } });
  await response.body?.cancel();
  return response.status;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once the instance uses the shared Redis entries (it has joined, in the generation it
 * found or a new one): a token nobody asked for before is then looked up in Redis. Each probe is
 * one introspection (answered inactive).
 */
export async function joined(instance: Instance): Promise<void> {
  let probes = 0;
  await waitFor(
    async () => {
      const before = instance.redisLookups();
      await status(instance, `probe-${instance.name}-${probes++}`);
      return instance.redisLookups() > before;
    },
    20_000,
    `${instance.name} did not start using the shared cache`,
  );
}

/** The cache generation the instances have taken on this Redis (0 before the first). */
export async function generation(url: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    return Number(await client.get('bearer-auth:generation'));
  } finally {
    client.destroy();
  }
}

/** Publishes the revocation of `token` on the Redis at `url`, as the authorization server does. */
export async function publishRevocation(url: string, token: string): Promise<number> {
  const client = createClient({ url });
  await client.connect();
  try {
    const event: TokenRevokedEvent = { accessTokenHashes: [accessTokenKey(token)], reason: 'revocation', at: Date.now() };
    return await client.publish(TOKEN_REVOKED_CHANNEL, JSON.stringify(event));
  } finally {
    client.destroy();
  }
}
