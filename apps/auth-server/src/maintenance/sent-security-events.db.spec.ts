/**
 * The clean-up job purges the outbox rows of security events the relay sent before the grace
 * (the resource server's audit log holds them), and keeps those sent within it and every unsent
 * one, however old: an event waiting for a down ingest is never lost to the clean-up.
 */
import { Global, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { AUTH_CONFIG, loadAuthConfig } from '../config/auth-config';
import { DatabaseModule } from '../database/database.module';
import { PrismaService } from '../database/prisma.service';
import { MaintenanceModule } from './maintenance.module';
import { MaintenanceService } from './maintenance.service';

jest.setTimeout(60_000);

const HOUR = 3600_000;

(process.env['DATABASE_URL'] ? describe : describe.skip)('sent security events', () => {
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
    for (const [id, createdAt, sentAt] of [
      ['sent-long-ago', at(-72 * HOUR), at(-48 * HOUR)],
      ['sent-within-grace', at(-72 * HOUR), at(-60_000)],
      ['unsent-long-ago', at(-72 * HOUR), null],
      ['unsent', at(-1_000), null],
    ] as const) {
      await prisma.securityEventOutbox.create({ data: { id, payload: '{}', createdAt, nextAttemptAt: createdAt, sentAt } });
    }
  });

  afterAll(async () => {
    await moduleRef?.close();
    await database?.drop();
  });

  it('purges those sent before the grace, keeps those sent within it and every unsent one', async () => {
    expect((await moduleRef.get(MaintenanceService).purge(now)).sentSecurityEvents).toBe(1);
    expect((await prisma.securityEventOutbox.findMany({ orderBy: { id: 'asc' } })).map((row) => row.id)).toEqual(['sent-within-grace', 'unsent', 'unsent-long-ago']);
    expect((await moduleRef.get(MaintenanceService).purge(now)).sentSecurityEvents).toBe(0);
  });
});
