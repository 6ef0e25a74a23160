/**
 * The token endpoint's one-statement steps against a real database (PostgreSQL when
 * DATABASE_URL is set, the embedded one otherwise): parallel calls with one refresh token or
 * one code have exactly one winner, and a revocation racing with issuance never leaves a live
 * token of the revoked grant that its revocation event did not name.
 */
import type { TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { generateOpaqueToken, hashToken } from '../../src/crypto/tokens';
import type { PrismaService } from '../../src/database/prisma.service';
import { challengeOf } from '../../src/token/grants/pkce';
import { type NewTokens, TokenQueries } from '../../src/token/token-queries';
import { TokensRepository } from '../../src/token/tokens.repository';
import { databaseTestingModule, seedSchoolAndUser, testClientData } from '../support/database-fixtures';

jest.setTimeout(120_000);

const PARALLEL = 12;
const HOUR = 3600_000;

function newTokens(withRefresh = true): NewTokens {
  const now = new Date();
  return {
    now,
    access: { id: randomUUID(), tokenHash: hashToken(generateOpaqueToken()), expiresAt: new Date(now.getTime() + HOUR) },
    refresh: withRefresh ? { id: randomUUID(), tokenHash: hashToken(generateOpaqueToken()), expiresAt: new Date(now.getTime() + 24 * HOUR) } : null,
  };
}

describe('token statements (one statement per step, real database)', () => {
  let database: TestDatabase;
  let moduleRef: TestingModule;
  let prisma: PrismaService;
  let queries: TokenQueries;
  let repository: TokensRepository;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    ({ moduleRef, prisma } = await databaseTestingModule(database, { providers: [TokenQueries, TokensRepository] }));
    queries = moduleRef.get(TokenQueries);
    repository = moduleRef.get(TokensRepository);
    await seedSchoolAndUser(prisma);
    for (const id of ['client-a', 'client-b']) await prisma.client.create({ data: testClientData(id, { scope: 'openid courses:read' }) });
  });

  afterAll(async () => {
    await moduleRef?.close();
    await database?.drop();
  });

  async function grant(): Promise<string> {
    const created = await prisma.grant.create({
      data: { clientId: 'client-a', userId: 'u1', schoolId: 's1', scope: 'openid courses:read', resource: 'http://api.test', authTime: new Date() },
    });
    return created.id;
  }

  async function refreshToken(grantId: string): Promise<string> {
    const tokenHash = hashToken(generateOpaqueToken());
    const now = new Date();
    await prisma.refreshToken.create({
      data: { tokenHash, grantId, clientId: 'client-a', scope: 'openid courses:read', resource: 'http://api.test', issuedAt: now, expiresAt: new Date(now.getTime() + HOUR) },
    });
    return tokenHash;
  }

  async function code(grantId: string, verifier: string): Promise<string> {
    const codeHash = hashToken(generateOpaqueToken());
    await prisma.authorizationCode.create({
      data: { codeHash, grantId, redirectUri: 'http://127.0.0.1/cb', codeChallenge: challengeOf(verifier), expiresAt: new Date(Date.now() + 60_000) },
    });
    return codeHash;
  }

  it('of parallel rotations of one refresh token, exactly one rotates it and issues one pair', async () => {
    const grantId = await grant();
    const presented = await refreshToken(grantId);
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, () => queries.rotateRefreshTokenAndIssue(presented, 'client-a', null, newTokens())),
    );
    const winners = results.filter((row) => row !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ grantId, clientId: 'client-a', userId: 'u1', schoolId: 's1', accessScope: 'openid courses:read' });
    expect(await prisma.refreshToken.count({ where: { grantId } })).toBe(2);
    expect(await prisma.accessToken.count({ where: { grantId } })).toBe(1);
    expect((await prisma.refreshToken.findUnique({ where: { tokenHash: presented } }))?.rotatedAt).not.toBeNull();
  });

  it('rotates nothing for another client, a scope beyond the token, an expired or a rotated token', async () => {
    const grantId = await grant();
    const presented = await refreshToken(grantId);
    expect(await queries.rotateRefreshTokenAndIssue(presented, 'client-b', null, newTokens())).toBeNull();
    expect(await queries.rotateRefreshTokenAndIssue(presented, 'client-a', { scopes: ['openid', 'email'], scope: 'openid email' }, newTokens())).toBeNull();
    expect((await prisma.refreshToken.findUnique({ where: { tokenHash: presented } }))?.rotatedAt).toBeNull();

    const narrowed = await queries.rotateRefreshTokenAndIssue(presented, 'client-a', { scopes: ['courses:read'], scope: 'courses:read' }, newTokens());
    expect(narrowed?.accessScope).toBe('courses:read');
    expect(await queries.rotateRefreshTokenAndIssue(presented, 'client-a', null, newTokens())).toBeNull();

    const expired = await refreshToken(grantId);
    await prisma.refreshToken.update({ where: { tokenHash: expired }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await queries.rotateRefreshTokenAndIssue(expired, 'client-a', null, newTokens())).toBeNull();
    expect(await prisma.accessToken.count({ where: { grantId } })).toBe(1);
  });

  it('of parallel exchanges of one code, exactly one consumes it and issues tokens', async () => {
    const grantId = await grant();
    const verifier = 'v'.repeat(43);
    const codeHash = await code(grantId, verifier);
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        queries.consumeCodeAndIssue(codeHash, 'client-a', 'http://127.0.0.1/cb', challengeOf(verifier), newTokens()),
      ),
    );
    expect(results.filter((row) => row !== null)).toHaveLength(1);
    expect(results.filter((row) => row?.issued)).toHaveLength(1);
    expect(await prisma.accessToken.count({ where: { grantId } })).toBe(1);
    expect(await prisma.refreshToken.count({ where: { grantId } })).toBe(1);
  });

  it('consumes a code presented with a wrong verifier or redirect_uri, and issues nothing', async () => {
    const grantId = await grant();
    const verifier = 'w'.repeat(43);
    const wrongVerifier = await code(grantId, verifier);
    const refused = await queries.consumeCodeAndIssue(wrongVerifier, 'client-a', 'http://127.0.0.1/cb', challengeOf('x'.repeat(43)), newTokens());
    expect(refused).toMatchObject({ issued: null, redirectUri: 'http://127.0.0.1/cb', codeChallenge: challengeOf(verifier) });
    // Used up: the right verifier comes too late.
    expect(await queries.consumeCodeAndIssue(wrongVerifier, 'client-a', 'http://127.0.0.1/cb', challengeOf(verifier), newTokens())).toBeNull();

    const wrongRedirect = await code(grantId, verifier);
    expect((await queries.consumeCodeAndIssue(wrongRedirect, 'client-a', 'http://127.0.0.1/other', challengeOf(verifier), newTokens()))?.issued).toBeNull();
    // Another client's code is not consumed.
    const others = await code(grantId, verifier);
    expect(await queries.consumeCodeAndIssue(others, 'client-b', 'http://127.0.0.1/cb', challengeOf(verifier), newTokens())).toBeNull();
    expect((await prisma.authorizationCode.findUnique({ where: { codeHash: others } }))?.consumedAt).toBeNull();
    expect(await prisma.accessToken.count({ where: { grantId } })).toBe(0);
  });

  it('reads back what it wrote, times in UTC', async () => {
    const grantId = await grant();
    const tokens = newTokens(false);
    const codeHash = await code(grantId, 'z'.repeat(43));
    const consumed = await queries.consumeCodeAndIssue(codeHash, 'client-a', 'http://127.0.0.1/cb', challengeOf('z'.repeat(43)), tokens);
    expect(consumed?.issued).not.toBeNull();
    const found = await queries.findActiveAccessTokenByHash(tokens.access.tokenHash, new Date());
    expect(found).toMatchObject({ id: tokens.access.id, grantId, clientId: 'client-a', scope: 'openid courses:read' });
    expect(found?.expiresAt.getTime()).toBe(tokens.access.expiresAt.getTime());
    expect(found?.issuedAt.getTime()).toBe(tokens.now.getTime());
    // The same instant as Prisma reads it.
    const viaPrisma = await prisma.accessToken.findUnique({ where: { tokenHash: tokens.access.tokenHash } });
    expect(viaPrisma?.expiresAt.getTime()).toBe(tokens.access.expiresAt.getTime());
    expect(viaPrisma?.refreshTokenId).toBeNull();
    expect(await queries.findActiveAccessTokenByHash(tokens.access.tokenHash, new Date(tokens.access.expiresAt.getTime() + 1))).toBeNull();
  });

  it('a grant revoked while tokens are being issued in it keeps no live token its revocation did not name', async () => {
    for (let round = 0; round < 8; round++) {
      const grantId = await grant();
      const presented = await Promise.all(Array.from({ length: 4 }, () => refreshToken(grantId)));
      const [revokedHashes, ...issued] = await Promise.all([
        repository.revokeGrant(grantId, new Date()),
        ...presented.map(async (hash) => {
          const tokens = newTokens();
          return (await queries.rotateRefreshTokenAndIssue(hash, 'client-a', null, tokens)) ? tokens.access.tokenHash : null;
        }),
      ]);
      // Every access token that was issued is revoked, and named in the event.
      for (const hash of issued.filter((value): value is string => value !== null)) {
        expect(revokedHashes).toContain(hash);
      }
      expect(await prisma.accessToken.count({ where: { grantId, revokedAt: null } })).toBe(0);
      expect(await prisma.refreshToken.count({ where: { grantId, revokedAt: null } })).toBe(0);
      // Issuing after the revocation: nothing.
      expect(await queries.issueForGrant(grantId, 'openid', 'openid', newTokens())).toBeNull();
    }
  });
});
