/**
 * The clean-up job purges remembered consents once they have lapsed, past the grace (with the
 * approving browser family and network they hold), and leaves live ones and those within the
 * grace alone.
 */
import { Global, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { testClientData } from '../../test/support/database-fixtures';
import { AUTH_CONFIG, loadAuthConfig } from '../config/auth-config';
import { DatabaseModule } from '../database/database.module';
import { PrismaService } from '../database/prisma.service';
import { MaintenanceModule } from './maintenance.module';
import { MaintenanceService } from './maintenance.service';

jest.setTimeout(60_000);

const HOUR = 3600_000;

(process.env['DATABASE_URL'] ? describe : describe.skip)('lapsed remembered consents', () => {
  let database: TestDatabase;
  let moduleRef: TestingModule;
  let prisma: PrismaService;
  const now = new Date();
  const at = (offset: number) => new Date(now.getTime() + offset);

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    const config = loadAuthConfig({
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: String(database.poolSize),
      INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
      MAINTENANCE_ENABLED: 'false',
    });
    @Global()
    @Module({ providers: [{ provide: AUTH_CONFIG, useValue: config }], exports: [AUTH_CONFIG] })
    class ConfigModule {}
    moduleRef = await Test.createTestingModule({ imports: [ConfigModule, DatabaseModule, MaintenanceModule] }).compile();
    await moduleRef.init();
    prisma = moduleRef.get(PrismaService);
    await prisma.school.create({ data: { id: 's1', name: 'School' } });
    await prisma.user.create({ data: { id: 'u1', schoolId: 's1', email: 'u1@academy.test', name: 'U', role: 'owner', passwordHash: 'x' } });
    for (const [id, expiresAt] of [
      ['lapsed-long-ago', at(-48 * HOUR)],
      ['lapsed-within-grace', at(-60_000)],
      ['live', at(24 * HOUR)],
    ] as const) {
      // Authorized clients: the unused-clients purge leaves them alone.
      await prisma.client.create({ data: testClientData(id, { name: id, firstAuthorizedAt: at(-72 * HOUR) }) });
      await prisma.consent.create({
        data: { userId: 'u1', clientId: id, scope: 'openid', redirectUrisDigest: 'd', approvedAt: at(-72 * HOUR), expiresAt, device: 'Chrome on macOS', network: '203.0.113.0/24' },
      });
    }
  });

  afterAll(async () => {
    await moduleRef?.close();
    await database?.drop();
  });

  it('purges those lapsed before the grace, keeps the others', async () => {
    expect((await moduleRef.get(MaintenanceService).purge(now)).lapsedConsents).toBe(1);
    expect((await prisma.consent.findMany({ orderBy: { clientId: 'asc' } })).map((row) => row.clientId)).toEqual(['lapsed-within-grace', 'live']);
    expect((await moduleRef.get(MaintenanceService).purge(now)).lapsedConsents).toBe(0);
  });
});
