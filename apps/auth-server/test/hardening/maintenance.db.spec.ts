/**
 * The clean-up job against a real database (a fresh one per run: real PostgreSQL when
 * DATABASE_URL is set, the embedded one otherwise): each kind of dead row goes, in batches,
 * and everything still alive (or within its grace) stays.
 */
import { Global, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { AUTH_CONFIG, loadAuthConfig } from '../../src/config/auth-config';
import { DatabaseModule } from '../../src/database/database.module';
import { PrismaService } from '../../src/database/prisma.service';
import { MaintenanceModule } from '../../src/maintenance/maintenance.module';
import { MaintenanceService, PURGE_ORDER } from '../../src/maintenance/maintenance.service';
import { testClientData } from '../support/database-fixtures';

jest.setTimeout(60_000);

const HOUR = 3600_000;

async function maintenanceOn(database: TestDatabase, env: Record<string, string>): Promise<TestingModule> {
  const all = {
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: String(database.poolSize),
    INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
    ...env,
  };
  const config = loadAuthConfig(all);
  @Global()
  @Module({ providers: [{ provide: AUTH_CONFIG, useValue: config }], exports: [AUTH_CONFIG] })
  class ConfigModule {}
  const moduleRef = await Test.createTestingModule({ imports: [ConfigModule, DatabaseModule, MaintenanceModule] }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('the clean-up pass', () => {
  let database: TestDatabase;
  let moduleRef: TestingModule;
  let prisma: PrismaService;
  const now = new Date();
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const later = (ms: number) => new Date(now.getTime() + ms);

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    // A day for unused clients, an hour of grace, two rows per transaction (so every kind takes several batches).
    moduleRef = await maintenanceOn(database, {
      MAINTENANCE_ENABLED: 'false',
      CLIENT_UNUSED_TTL_SECONDS: '86400',
      MAINTENANCE_GRACE_SECONDS: '3600',
      MAINTENANCE_BATCH_SIZE: '2',
    });
    prisma = moduleRef.get(PrismaService);
    await seed();
  });

  afterAll(async () => {
    await moduleRef?.close();
    await database?.drop();
  });

  async function client(id: string, createdAt: Date, firstAuthorizedAt: Date | null) {
    await prisma.client.create({ data: testClientData(id, { name: id, createdAt, firstAuthorizedAt }) });
  }

  async function grant(id: string, createdAt: Date, revokedAt: Date | null = null) {
    await prisma.grant.create({
      data: { id, clientId: 'used', userId: 'u1', schoolId: 's1', scope: 'openid', resource: 'http://x', authTime: createdAt, createdAt, revokedAt },
    });
  }

  async function code(grantId: string, expiresAt: Date, consumedAt: Date | null = null) {
    await prisma.authorizationCode.create({
      data: { codeHash: `code-${grantId}-${randomUUID()}`, grantId, redirectUri: 'http://127.0.0.1/cb', codeChallenge: 'c'.repeat(43), expiresAt, consumedAt },
    });
  }

  async function accessToken(grantId: string, expiresAt: Date, revokedAt: Date | null = null) {
    await prisma.accessToken.create({
      data: {
        tokenHash: `at-${grantId}-${randomUUID()}`,
        grantId,
        clientId: 'used',
        userId: 'u1',
        schoolId: 's1',
        scope: 'openid',
        audience: 'http://x',
        issuedAt: ago(3 * HOUR),
        expiresAt,
        revokedAt,
      },
    });
  }

  async function refreshToken(grantId: string, expiresAt: Date, options: { revokedAt?: Date; rotatedAt?: Date } = {}) {
    await prisma.refreshToken.create({
      data: {
        tokenHash: `rt-${grantId}-${randomUUID()}`,
        grantId,
        clientId: 'used',
        scope: 'openid',
        resource: 'http://x',
        issuedAt: ago(3 * HOUR),
        expiresAt,
        revokedAt: options.revokedAt ?? null,
        rotatedAt: options.rotatedAt ?? null,
      },
    });
  }

  async function seed() {
    await prisma.school.create({ data: { id: 's1', name: 'School' } });
    await prisma.user.create({ data: { id: 'u1', schoolId: 's1', email: 'u1@x.test', name: 'U', role: 'owner', passwordHash: 'x' } });

    // Clients: three registered more than a day ago and never used; one new; one used.
    for (const id of ['stale-1', 'stale-2', 'stale-3']) await client(id, ago(25 * HOUR), null);
    await client('fresh', ago(1 * HOUR), null);
    await client('used', ago(48 * HOUR), ago(47 * HOUR));

    // A grant in use: everything live.
    await grant('live', ago(2 * HOUR));
    await code('live', later(60_000));
    await accessToken('live', later(HOUR));
    await refreshToken('live', later(24 * HOUR));

    // A grant whose code and tokens all expired two hours ago (past the grace): all goes, the grant too.
    await grant('expired', ago(5 * HOUR));
    await code('expired', ago(2 * HOUR), ago(4 * HOUR));
    await accessToken('expired', ago(2 * HOUR));
    await refreshToken('expired', ago(2 * HOUR));

    // Revoked two hours ago (the tokens would still be unexpired): goes.
    await grant('revoked', ago(5 * HOUR), ago(2 * HOUR));
    await code('revoked', ago(4 * HOUR), ago(4 * HOUR));
    await accessToken('revoked', later(HOUR), ago(2 * HOUR));
    await refreshToken('revoked', later(24 * HOUR), { revokedAt: ago(2 * HOUR) });

    // Dead for half an hour only: within the grace, kept (a replay now still revokes the grant).
    await grant('recent', ago(3 * HOUR));
    await code('recent', ago(HOUR / 2), ago(HOUR));
    await accessToken('recent', later(HOUR), ago(HOUR / 2));

    // Rotated long ago but not expired: kept, presenting it again must still be seen as reuse.
    await grant('rotated', ago(5 * HOUR));
    await refreshToken('rotated', later(24 * HOUR), { rotatedAt: ago(2 * HOUR) });
    await accessToken('rotated', ago(2 * HOUR));

    // Sessions: one expired, one live.
    await prisma.session.create({ data: { tokenHash: 's-expired', userId: 'u1', authTime: ago(13 * HOUR), expiresAt: ago(1_000) } });
    await prisma.session.create({ data: { tokenHash: 's-live', userId: 'u1', authTime: ago(HOUR), expiresAt: later(HOUR) } });
  }

  it('deletes every kind of dead row, in batches, and reports the counts', async () => {
    const report = await moduleRef.get(MaintenanceService).purge(now);
    expect(report).toEqual({
      unusedClients: 3,
      expiredCodes: 2,
      deadAccessTokens: 3,
      deadRefreshTokens: 2,
      emptyGrants: 2,
      expiredSessions: 1,
      expiredConsentTokens: 0,
      expiredClientAssertions: 0,
      expiredDpopProofs: 0,
      lapsedConsents: 0,
      sentSecurityEvents: 0,
    });
  });

  it('leaves live data, and dead data within its grace, alone', async () => {
    expect((await prisma.client.findMany({ orderBy: { id: 'asc' } })).map((row) => row.id)).toEqual(['fresh', 'used']);
    expect((await prisma.grant.findMany({ orderBy: { id: 'asc' } })).map((row) => row.id)).toEqual(['live', 'recent', 'rotated']);
    expect((await prisma.authorizationCode.findMany()).map((row) => row.grantId).sort()).toEqual(['live', 'recent']);
    expect((await prisma.accessToken.findMany()).map((row) => row.grantId).sort()).toEqual(['live', 'recent']);
    expect((await prisma.refreshToken.findMany()).map((row) => row.grantId).sort()).toEqual(['live', 'rotated']);
    expect((await prisma.session.findMany()).map((row) => row.tokenHash)).toEqual(['s-live']);
    expect(await prisma.user.count()).toBe(1);
  });

  it('finds nothing more on a second pass', async () => {
    const report = await moduleRef.get(MaintenanceService).purge(now);
    expect(report).toEqual(Object.fromEntries(PURGE_ORDER.map((kind) => [kind, 0])));
  });
});

describe('the schedule', () => {
  let database: TestDatabase;
  let moduleRef: TestingModule;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
  });

  afterAll(async () => {
    await moduleRef?.close();
    await database?.drop();
  });

  it('runs a pass every MAINTENANCE_INTERVAL_SECONDS by itself, and stops with the application', async () => {
    moduleRef = await maintenanceOn(database, { MAINTENANCE_INTERVAL_SECONDS: '1' });
    const prisma = moduleRef.get(PrismaService);
    await prisma.school.create({ data: { id: 's1', name: 'School' } });
    await prisma.user.create({ data: { id: 'u1', schoolId: 's1', email: 'u1@x.test', name: 'U', role: 'owner', passwordHash: 'x' } });
    await prisma.session.create({ data: { tokenHash: 'gone', userId: 'u1', authTime: new Date(), expiresAt: new Date(Date.now() - 1) } });
    const deadline = Date.now() + 5_000;
    while ((await prisma.session.count()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await prisma.session.count()).toBe(0);
    await moduleRef.close();
  });
});
