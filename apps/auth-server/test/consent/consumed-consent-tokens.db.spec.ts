/**
 * A consent form answers once across every instance of the auth server: two instances (two
 * Nest modules, each with its own connection pool, as two replicas behind the gateway) on one
 * real PostgreSQL approve with the same token at the same time, and exactly one code results
 * (the embedded PostgreSQL serves one session: concurrent transactions need the real one).
 * The clean-up job purges the record of answered forms once their tokens have expired.
 * The same race through HTTP on two running servers: consent-replicas.e2e.spec.ts.
 */
import type { TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, describeIfPostgres, type TestDatabase } from '../../../../tools/test-support';
import { type ApprovedAuthorization, AuthorizeRepository, type ConsentTokenUse } from '../../src/authorize/authorize.repository';
import { hashToken } from '../../src/crypto/tokens';
import type { PrismaService } from '../../src/database/prisma.service';
import { MaintenanceRepository } from '../../src/maintenance/maintenance.repository';
import { MaintenanceService } from '../../src/maintenance/maintenance.service';
import { databaseTestingModule, seedSchoolAndUser, testClientData } from '../support/database-fixtures';
import { securityEventOf } from '../../src/security-events/security-event';

jest.setTimeout(60_000);

const HOUR = 3600_000;

interface Instance {
  moduleRef: TestingModule;
  prisma: PrismaService;
  repository: AuthorizeRepository;
}

/** `count` instances of the auth server's storage on one fresh database, with a school, a user and a client. */
function instancesOnOneDatabase(count: number) {
  const state = { database: undefined as TestDatabase | undefined, instances: [] as Instance[] };
  beforeAll(async () => {
    state.database = await createTestDatabase('auth');
    for (let i = 0; i < count; i++) {
      const { moduleRef, prisma } = await databaseTestingModule(state.database, {
        providers: [AuthorizeRepository, MaintenanceRepository, MaintenanceService],
        // An hour of grace, two rows per batch; the schedule stays off, the test runs the pass.
        env: { MAINTENANCE_ENABLED: 'false', MAINTENANCE_GRACE_SECONDS: '3600', MAINTENANCE_BATCH_SIZE: '2' },
      });
      state.instances.push({ moduleRef, prisma, repository: moduleRef.get(AuthorizeRepository) });
    }
    await seedSchoolAndUser(state.instances[0].prisma);
    await state.instances[0].prisma.client.create({ data: testClientData('app') });
  });
  afterAll(async () => {
    for (const { moduleRef } of state.instances) await moduleRef.close();
    await state.database?.drop();
  });
  return state.instances;
}

const approval = (codeHash: string): ApprovedAuthorization => ({
  clientId: 'app',
  userId: 'u1',
  schoolId: 's1',
  scope: 'openid',
  resource: 'http://x',
  nonce: null,
  authTime: new Date(),
  codeHash,
  redirectUri: 'http://127.0.0.1/cb',
  codeChallenge: 'c'.repeat(43),
  codeExpiresAt: new Date(Date.now() + 60_000),
});
/** The approval's security event, written with its grant. */
const granted = (grantId: string) =>
  securityEventOf({ type: 'auth.consent.granted', schoolId: 's1', actor: { type: 'user', id: 'u1' }, subject: { type: 'grant', id: grantId } });
const consentToken = (expiresAt = new Date(Date.now() + 600_000)): ConsentTokenUse => ({ idHash: hashToken(randomUUID()), expiresAt });

describeIfPostgres('one consent token, two instances of the auth server at once', () => {
  const instances = instancesOnOneDatabase(2);
  const prisma = () => instances[0].prisma;

  it('two instances approving with one token at once: exactly one grant and one code, every time', async () => {
    const codesBefore = await prisma().authorizationCode.count();
    const eventsBefore = await prisma().securityEventOutbox.count();
    for (let round = 0; round < 20; round++) {
      const token = consentToken();
      // Each instance submits twice, all four in flight together.
      const answers = await Promise.all(
        [0, 1, 0, 1].map((i, n) => instances[i].repository.insertGrantWithCode(approval(`code-${round}-${n}`), token, new Date(), undefined, granted)),
      );
      expect(answers.filter((answer) => answer !== null)).toEqual([{ grantId: expect.any(String) }]);
    }
    expect(await prisma().authorizationCode.count()).toBe(codesBefore + 20);
    // One approval recorded per grant: the losers' events rolled back with them.
    expect(await prisma().securityEventOutbox.count()).toBe(eventsBefore + 20);
    // The losers left nothing behind: every grant has its one code.
    expect(await prisma().grant.count({ where: { codes: { none: {} } } })).toBe(0);
  });

  it('a denial and an approval with one token at once: only one of them wins', async () => {
    for (let round = 0; round < 20; round++) {
      const token = consentToken();
      const grantsBefore = await prisma().grant.count();
      const [approved, denied] = await Promise.all([
        instances[0].repository.insertGrantWithCode(approval(`raced-${round}`), token, new Date(), undefined, granted),
        instances[1].repository.consumeConsentToken(token),
      ]);
      expect(Number(approved !== null) + Number(denied)).toBe(1);
      expect(await prisma().grant.count()).toBe(grantsBefore + Number(approved !== null));
    }
  });

  it('a consumed token stays consumed: approving or denying with it later does nothing', async () => {
    const token = consentToken();
    expect(await instances[0].repository.consumeConsentToken(token)).toBe(true);
    const grantsBefore = await prisma().grant.count();
    expect(await instances[1].repository.insertGrantWithCode(approval('late'), token, new Date(), undefined, granted)).toBeNull();
    expect(await instances[1].repository.consumeConsentToken(token)).toBe(false);
    expect(await prisma().grant.count()).toBe(grantsBefore);
    expect(await prisma().authorizationCode.count({ where: { codeHash: 'late' } })).toBe(0);
  });
});

describe('the clean-up pass over consumed consent tokens', () => {
  const instances = instancesOnOneDatabase(1);
  const prisma = () => instances[0].prisma;

  it('deletes those expired for longer than the grace, in batches, and keeps the others', async () => {
    const now = new Date();
    const pastGrace = [consentToken(new Date(now.getTime() - 2 * HOUR)), consentToken(new Date(now.getTime() - 3 * HOUR)), consentToken(new Date(now.getTime() - 4 * HOUR))];
    const withinGrace = consentToken(new Date(now.getTime() - HOUR / 2));
    const live = consentToken(new Date(now.getTime() + 600_000));
    for (const token of [...pastGrace, withinGrace, live]) await instances[0].repository.consumeConsentToken(token);

    const report = await instances[0].moduleRef.get(MaintenanceService).purge(now);
    expect(report.expiredConsentTokens).toBe(3);
    const left = await prisma().consumedConsentToken.findMany({ select: { idHash: true } });
    expect(left.map((row) => row.idHash).sort()).toEqual([withinGrace.idHash, live.idHash].sort());
    expect((await instances[0].moduleRef.get(MaintenanceService).purge(now)).expiredConsentTokens).toBe(0);
  });
});
