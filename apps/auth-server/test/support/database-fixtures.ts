/**
 * The shared setup of the auth server's specs against a real database (test/token-store,
 * test/hardening/atomic-writes): the providers under test in a Nest testing module over the real
 * DatabaseModule, with the test's configuration made global as AppModule makes it, and the rows
 * every grant needs (a school, a user, clients). Kept apart from unit-fixtures.ts so that unit
 * specs never load Prisma.
 */
import { Global, Module, type Provider } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import type { TestDatabase } from '../../../../tools/test-support/test-database';
import { AUTH_CONFIG, loadAuthConfig } from '../../src/config/auth-config';
import { DatabaseModule } from '../../src/database/database.module';
import { PrismaService } from '../../src/database/prisma.service';
import type { Prisma } from '../../src/generated/prisma/client';

/** The configuration of a test on `database`: its URL and pool size, a test introspection secret, and `env`. */
export function testAuthConfig(database: TestDatabase, env: Record<string, string> = {}) {
  return loadAuthConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: String(database.poolSize),
    INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
    ...env,
  });
}

export interface DatabaseModuleOptions {
  /** The providers under test. */
  providers?: Provider[];
  /** Global providers besides AUTH_CONFIG (e.g. the EVENT_BUS of the test's choosing). */
  globals?: Provider[];
  /** Environment on top of testAuthConfig's. */
  env?: Record<string, string>;
}

/** An initialised testing module: `providers` over the real DatabaseModule on `database`. */
export async function databaseTestingModule(
  database: TestDatabase,
  { providers = [], globals = [], env }: DatabaseModuleOptions = {},
): Promise<{ moduleRef: TestingModule; prisma: PrismaService }> {
  const config = testAuthConfig(database, env);
  const globalProviders: Provider[] = [{ provide: AUTH_CONFIG, useValue: config }, ...globals];
  const exported = globalProviders.map((provider) => ('provide' in provider ? provider.provide : provider));
  @Global()
  @Module({ providers: globalProviders, exports: exported })
  class TestRuntimeModule {}
  const moduleRef = await Test.createTestingModule({ imports: [TestRuntimeModule, DatabaseModule], providers }).compile();
  await moduleRef.init();
  return { moduleRef, prisma: moduleRef.get(PrismaService) };
}

/** School s1 and its user u1: the owner of every grant in these specs. */
export async function seedSchoolAndUser(prisma: PrismaService): Promise<void> {
  await prisma.school.create({ data: { id: 's1', name: 'School' } });
  await prisma.user.create({ data: { id: 'u1', schoolId: 's1', email: 'u1@x.test', name: 'U', role: 'owner', passwordHash: 'x' } });
}

/** A registered public native client (loopback redirect, both grant types, scope openid unless overridden). */
export function testClientData(id: string, overrides: Partial<Prisma.ClientUncheckedCreateInput> = {}): Prisma.ClientUncheckedCreateInput {
  return {
    id,
    applicationType: 'native',
    redirectUris: ['http://127.0.0.1/cb'],
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code', 'refresh_token'],
    responseTypes: ['code'],
    scope: 'openid',
    ...overrides,
  };
}
