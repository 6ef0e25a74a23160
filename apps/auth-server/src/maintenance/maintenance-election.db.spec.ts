/**
 * One replica cleans up at a time: a pass that finds the clean-up lock held by another replica
 * (here: another session holding it in an open transaction) ends without deleting anything,
 * and the next pass, once the lock is free, does the work. Real PostgreSQL only: the embedded
 * one serves a single session, so no second replica can hold the lock there.
 */
import { Global, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { testClientData } from '../../test/support/database-fixtures';
import { AUTH_CONFIG, loadAuthConfig } from '../config/auth-config';
import { DatabaseModule } from '../database/database.module';
import { PrismaService } from '../database/prisma.service';
import { CLEAN_UP_LOCK_KEY } from './maintenance.repository';
import { MaintenanceModule } from './maintenance.module';
import { MaintenanceService } from './maintenance.service';

jest.setTimeout(60_000);

const DAY = 24 * 3600_000;

(process.env['DATABASE_URL'] ? describe : describe.skip)('the clean-up, elected once per cluster', () => {
  let database: TestDatabase;
  let moduleRef: TestingModule;
  let otherReplica: Client;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    const config = loadAuthConfig({
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      DATABASE_POOL_SIZE: String(database.poolSize),
      INTROSPECTION_CLIENT_SECRET: 'test-introspection-secret-0123456789',
      MAINTENANCE_ENABLED: 'false',
      CLIENT_UNUSED_TTL_SECONDS: '86400',
      MAINTENANCE_BATCH_SIZE: '2',
    });
    @Global()
    @Module({ providers: [{ provide: AUTH_CONFIG, useValue: config }], exports: [AUTH_CONFIG] })
    class ConfigModule {}
    moduleRef = await Test.createTestingModule({ imports: [ConfigModule, DatabaseModule, MaintenanceModule] }).compile();
    await moduleRef.init();
    const prisma = moduleRef.get(PrismaService);
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    for (const id of ['unused-1', 'unused-2', 'unused-3']) {
      await prisma.client.create({ data: testClientData(id, { name: id, createdAt: twoDaysAgo, firstAuthorizedAt: null }) });
    }
    otherReplica = new Client({ connectionString: database.url });
    await otherReplica.connect();
  });

  afterAll(async () => {
    await otherReplica?.end();
    await moduleRef?.close();
    await database?.drop();
  });

  it('skips its pass while another replica holds the lock, and cleans up once it is free', async () => {
    const clients = () => moduleRef.get(PrismaService).client.count();
    await otherReplica.query('BEGIN');
    await otherReplica.query('SELECT pg_advisory_xact_lock($1::bigint)', [CLEAN_UP_LOCK_KEY]);

    const skipped = await moduleRef.get(MaintenanceService).purge();
    expect(skipped.unusedClients).toBe(0);
    expect(await clients()).toBe(3);

    await otherReplica.query('COMMIT');
    const done = await moduleRef.get(MaintenanceService).purge();
    expect(done.unusedClients).toBe(3);
    expect(await clients()).toBe(0);
  });
});
