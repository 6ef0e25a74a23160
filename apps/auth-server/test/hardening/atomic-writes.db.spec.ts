/**
 * Multi-row changes are all-or-nothing, shown deterministically: the last statement of a
 * change is made to fail (a unique violation), and nothing of the change may remain. The
 * crash test (postgres-outage.spec) shows the same under a real crash, but only when the
 * crash happens to land between two statements; this one does not depend on timing.
 */
import type { TestingModule } from '@nestjs/testing';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { AuthorizeRepository } from '../../src/authorize/authorize.repository';
import type { PrismaService } from '../../src/database/prisma.service';
import { securityEventOf } from '../../src/security-events/security-event';
import { databaseTestingModule, seedSchoolAndUser, testClientData } from '../support/database-fixtures';

jest.setTimeout(60_000);

describe('approving an authorization (grant + code + first-authorization mark, one transaction)', () => {
  let database: TestDatabase;
  let moduleRef: TestingModule;
  let prisma: PrismaService;
  let repository: AuthorizeRepository;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    ({ moduleRef, prisma } = await databaseTestingModule(database, { providers: [AuthorizeRepository] }));
    repository = moduleRef.get(AuthorizeRepository);
    await seedSchoolAndUser(prisma);
    for (const id of ['first', 'second']) await prisma.client.create({ data: testClientData(id, { name: id }) });
  });

  afterAll(async () => {
    await moduleRef?.close();
    await database?.drop();
  });

  const approval = (clientId: string, codeHash: string) => ({
    clientId,
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

  const consentToken = (idHash: string) => ({ idHash, expiresAt: new Date(Date.now() + 600_000) });

  /** The approval's security event, written with its grant. */
  const granted = (grantId: string) =>
    securityEventOf({ type: 'auth.consent.granted', schoolId: 's1', actor: { type: 'user', id: 'u1' }, subject: { type: 'grant', id: grantId } });

  it('leaves neither the grant, the first-authorization mark, the consumed consent token nor the approval’s event when the code cannot be stored', async () => {
    await repository.insertGrantWithCode(approval('first', 'same-code-hash'), consentToken('first-form'), new Date(), undefined, granted);
    expect(await prisma.grant.count()).toBe(1);

    // The code insert of the second approval violates the unique code hash: the grant created
    // before it in the same transaction must be rolled back, and the client stays "never used".
    await expect(repository.insertGrantWithCode(approval('second', 'same-code-hash'), consentToken('second-form'), new Date(), undefined, granted)).rejects.toThrow();
    expect(await prisma.grant.count()).toBe(1);
    expect(await prisma.grant.count({ where: { clientId: 'second' } })).toBe(0);
    expect((await prisma.client.findUnique({ where: { id: 'second' } }))?.firstAuthorizedAt).toBeNull();
    // The form was not answered after all: its token can still approve.
    expect(await prisma.consumedConsentToken.count({ where: { idHash: 'second-form' } })).toBe(0);
    expect(await prisma.securityEventOutbox.count()).toBe(1);
  });
});
