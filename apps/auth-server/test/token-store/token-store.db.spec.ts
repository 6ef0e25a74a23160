/**
 * The token storage's single-use steps against a real database (PostgreSQL when DATABASE_URL is
 * set, the embedded one otherwise): parallel calls with one refresh token or one code have exactly
 * one winner, and a revocation racing with issuance never leaves a live token of the revoked
 * grant that its revocation event did not name. Rotations and code exchanges go in batches
 * (batch-while-in-flight.ts): the calls of one turn share a statement, so these cases run both
 * within one batch and across statements of their own.
 */
import type { TestingModule } from '@nestjs/testing';
import { EVENT_BUS, LocalEventBus } from '@platform/event-bus';
import { randomUUID } from 'node:crypto';
import { type Pool, DatabaseError } from 'pg';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { generateOpaqueToken, hashToken } from '../../src/crypto/tokens';
import { PG_POOL } from '../../src/database/pg-pool';
import type { PrismaService } from '../../src/database/prisma.service';
import { RevocationTrust } from '../../src/events/revocation-trust';
import type { IssuingRequest } from '../../src/security-events/token-issued-event';
import { ActiveAccessTokens } from '../../src/token/active-access-tokens';
import type { CodeExchange } from '../../src/token/grants/authorization-code.storage';
import { challengeOf } from '../../src/token/grants/pkce';
import type { PresentedRefreshToken } from '../../src/token/grants/refresh-token.storage';
import type { NewTokens } from '../../src/token/token-rows';
import { TokenStore } from '../../src/token/token-store';
import { TokensRepository } from '../../src/token/tokens.repository';
import { databaseTestingModule, seedSchoolAndUser, testClientData } from '../support/database-fixtures';

jest.setTimeout(120_000);

const PARALLEL = 12;
const HOUR = 3600_000;

/** `bound`: the DPoP keys the new access and refresh tokens are bound to (none unless given). */
function newTokens(withRefresh = true, bound: { access?: string; refresh?: string } = {}): NewTokens {
  const now = new Date();
  return {
    now,
    access: { id: randomUUID(), tokenHash: hashToken(generateOpaqueToken()), expiresAt: new Date(now.getTime() + HOUR), dpopJkt: bound.access ?? null },
    refresh: withRefresh
      ? { id: randomUUID(), tokenHash: hashToken(generateOpaqueToken()), expiresAt: new Date(now.getTime() + 24 * HOUR), dpopJkt: bound.refresh ?? null }
      : null,
  };
}

/** A presentation of the refresh token `tokenHash` by `clientId`, within `scopes` when given. */
function presentation(tokenHash: string, clientId = 'client-a', scopes?: string[], dpopJkt: string | null = null): PresentedRefreshToken {
  return { tokenHash, clientId, requested: scopes ? { scopes, scope: scopes.join(' ') } : null, addressTag: 'a1b2', dpopJkt };
}

/** The requests as their auth.token.issued events name them. */
const CODE_REQUEST: IssuingRequest = { grantType: 'authorization_code', address: '198.51.100.7', requestId: 'request-code' };
const REFRESH_REQUEST: IssuingRequest = { grantType: 'refresh_token', address: '198.51.100.7', requestId: 'request-refresh' };

function exchangeOf(codeHash: string, verifier: string, overrides: Partial<CodeExchange> = {}): CodeExchange {
  return { codeHash, clientId: 'client-a', redirectUri: 'http://127.0.0.1/cb', codeChallenge: challengeOf(verifier), dpopJkt: null, ...overrides };
}

describe('token storage (one statement per single-use step, real database)', () => {
  let database: TestDatabase;
  let moduleRef: TestingModule;
  let prisma: PrismaService;
  let store: TokenStore;
  let repository: TokensRepository;
  let pool: Pool;
  /** Another process's store on the same database: statements of its own, nothing held in common. */
  const anotherProcess = () => new TokenStore(pool, new ActiveAccessTokens(new RevocationTrust(new LocalEventBus())));

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    ({ moduleRef, prisma } = await databaseTestingModule(database, {
      providers: [TokenStore, TokensRepository, ActiveAccessTokens, RevocationTrust],
      globals: [{ provide: EVENT_BUS, useValue: new LocalEventBus() }],
    }));
    store = moduleRef.get(TokenStore);
    repository = moduleRef.get(TokensRepository);
    pool = moduleRef.get(PG_POOL);
    await seedSchoolAndUser(prisma);
    for (const id of ['client-a', 'client-b']) await prisma.client.create({ data: testClientData(id, { scope: 'openid courses:read' }) });
  });

  afterEach(() => jest.restoreAllMocks());

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

  /** `dpopJkt`: the DPoP key the token is bound to (a public client's, RFC 9449 §5). */
  async function refreshToken(grantId: string, dpopJkt: string | null = null): Promise<string> {
    const tokenHash = hashToken(generateOpaqueToken());
    const now = new Date();
    await prisma.refreshToken.create({
      data: {
        tokenHash,
        grantId,
        clientId: 'client-a',
        scope: 'openid courses:read',
        resource: 'http://api.test',
        dpopJkt,
        issuedAt: now,
        expiresAt: new Date(now.getTime() + HOUR),
      },
    });
    return tokenHash;
  }

  /** `dpopJkt`: the authorization request's dpop_jkt (RFC 9449 §10). */
  async function code(grantId: string, verifier: string, dpopJkt: string | null = null): Promise<string> {
    const codeHash = hashToken(generateOpaqueToken());
    await prisma.authorizationCode.create({
      data: { codeHash, grantId, redirectUri: 'http://127.0.0.1/cb', codeChallenge: challengeOf(verifier), dpopJkt, expiresAt: new Date(Date.now() + 60_000) },
    });
    return codeHash;
  }

  it('of parallel rotations of one refresh token, exactly one rotates it and issues one pair', async () => {
    const grantId = await grant();
    const presented = await refreshToken(grantId);
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, () => store.rotateRefreshToken(presentation(presented), newTokens(), REFRESH_REQUEST)),
    );
    const winners = results.filter((row) => row !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ grantId, clientId: 'client-a', userId: 'u1', schoolId: 's1', accessScope: 'openid courses:read' });
    expect(await prisma.refreshToken.count({ where: { grantId } })).toBe(2);
    expect(await prisma.accessToken.count({ where: { grantId } })).toBe(1);
    expect((await prisma.refreshToken.findUnique({ where: { tokenHash: presented } }))?.rotatedAt).not.toBeNull();
  });

  it('of parallel rotations of one refresh token in statements of their own (one per process), exactly one rotates it', async () => {
    const grantId = await grant();
    const presented = await refreshToken(grantId);
    const processes = Array.from({ length: PARALLEL }, anotherProcess);
    const results = await Promise.all(processes.map((other) => other.rotateRefreshToken(presentation(presented), newTokens(), REFRESH_REQUEST)));
    expect(results.filter((row) => row !== null)).toHaveLength(1);
    expect(await prisma.refreshToken.count({ where: { grantId } })).toBe(2);
    expect(await prisma.accessToken.count({ where: { grantId } })).toBe(1);
  });

  /**
   * The statements sent from here on, in order: 'batch' or 'alone' (a batch's grant locks are
   * NOWAIT, token-store.ts; statements go unnamed on the embedded PostgreSQL, so the text tells).
   */
  function statementsSent(): Array<'batch' | 'alone'> {
    const sent: Array<'batch' | 'alone'> = [];
    const send = pool.query.bind(pool) as (config: { text: string }) => Promise<unknown>;
    jest.spyOn(pool, 'query').mockImplementation(((config: { text: string }) => {
      sent.push(config.text.includes('FOR SHARE NOWAIT') ? 'batch' : 'alone');
      return send(config);
    }) as never);
    return sent;
  }

  it('answers each request of a batch with its own grant and scope, in one statement', async () => {
    const grants = [await grant(), await grant(), await grant()];
    const presented = await Promise.all(grants.map((grantId) => refreshToken(grantId)));
    const sent = statementsSent();
    const results = await Promise.all([
      store.rotateRefreshToken(presentation(presented[0] as string, 'client-a', ['courses:read']), newTokens(), REFRESH_REQUEST),
      store.rotateRefreshToken(presentation(presented[1] as string, 'client-b'), newTokens(), REFRESH_REQUEST),
      store.rotateRefreshToken(presentation(presented[2] as string), newTokens(), REFRESH_REQUEST),
      store.rotateRefreshToken(presentation(presented[0] as string), newTokens(), REFRESH_REQUEST),
    ]);
    expect(sent).toEqual(['batch']);
    const [narrowed, othersToken, third, sameTokenAgain] = results;
    // The first token twice in the batch: rotated once, for either request, with that request's scope.
    expect([narrowed, sameTokenAgain].filter((row) => row !== null)).toHaveLength(1);
    const firstScope = narrowed ? 'courses:read' : 'openid courses:read';
    expect(narrowed ?? sameTokenAgain).toMatchObject({ grantId: grants[0], accessScope: firstScope });
    expect(othersToken).toBeNull();
    expect(third).toMatchObject({ grantId: grants[2], accessScope: 'openid courses:read' });
    expect(await prisma.refreshToken.count({ where: { grantId: grants[0] } })).toBe(2);
    expect(await prisma.refreshToken.count({ where: { grantId: grants[1], rotatedAt: null } })).toBe(1);
    expect(await prisma.refreshToken.count({ where: { grantId: grants[2] } })).toBe(2);
    const issued = await prisma.accessToken.findMany({ where: { grantId: { in: grants } }, select: { grantId: true, scope: true, refreshTokenId: true } });
    expect(issued).toHaveLength(2);
    expect(issued).toEqual(
      expect.arrayContaining([
        { grantId: grants[0], scope: firstScope, refreshTokenId: expect.any(String) },
        { grantId: grants[2], scope: 'openid courses:read', refreshTokenId: expect.any(String) },
      ]),
    );
  });

  // A revocation holding its transaction open needs a second connection: not on the embedded
  // PostgreSQL (one session).
  (process.env['DATABASE_URL'] ? it : it.skip)('does not wait in a batch for a grant a revocation holds: its items go alone, the other grants’ are issued meanwhile', async () => {
    const [held, free] = [await grant(), await grant()];
    const [heldToken, freeToken] = [await refreshToken(held), await refreshToken(free)];
    const revocation = await pool.connect();
    try {
      await revocation.query('BEGIN');
      await revocation.query('UPDATE grants SET revoked_at = now() WHERE id = $1', [held]);
      const sent = statementsSent();
      const onHeld = store.rotateRefreshToken(presentation(heldToken), newTokens(), REFRESH_REQUEST);
      const onFree = store.rotateRefreshToken(presentation(freeToken), newTokens(), REFRESH_REQUEST);
      expect(await onFree).toMatchObject({ grantId: free });
      expect(sent).toEqual(['batch', 'alone', 'alone']);
      await revocation.query('COMMIT');
      // The held grant's request waited, alone, for the revocation, then found the grant revoked.
      expect(await onHeld).toBeNull();
    } finally {
      revocation.release();
    }
    expect(await prisma.accessToken.count({ where: { grantId: held } })).toBe(0);
  });

  it('fails only the item of a batch the database refuses', async () => {
    const grantId = await grant();
    const verifier = 'n'.repeat(43);
    const [good, bad] = [await code(grantId, verifier), await code(grantId, verifier)];
    const sent = statementsSent();
    const results = await Promise.allSettled([
      store.consumeCode(exchangeOf(good, verifier), newTokens(), CODE_REQUEST),
      store.consumeCode(exchangeOf(bad, verifier, { redirectUri: 'http://127.0.0.1/cb\u0000' }), newTokens(), CODE_REQUEST),
    ]);
    expect(results[0]).toMatchObject({ status: 'fulfilled', value: { issued: { grantId } } });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: expect.any(DatabaseError) });
    // Refused as a batch, then each alone.
    expect(sent).toEqual(['batch', 'alone', 'alone']);
    expect((await prisma.authorizationCode.findUnique({ where: { codeHash: bad } }))?.consumedAt).toBeNull();
  });

  it('rotates nothing for another client, a scope beyond the token, an expired or a rotated token', async () => {
    const grantId = await grant();
    const presented = await refreshToken(grantId);
    expect(await store.rotateRefreshToken(presentation(presented, 'client-b'), newTokens(), REFRESH_REQUEST)).toBeNull();
    expect(await store.rotateRefreshToken(presentation(presented, 'client-a', ['openid', 'email']), newTokens(), REFRESH_REQUEST)).toBeNull();
    expect((await prisma.refreshToken.findUnique({ where: { tokenHash: presented } }))?.rotatedAt).toBeNull();

    const narrowed = await store.rotateRefreshToken(presentation(presented, 'client-a', ['courses:read']), newTokens(), REFRESH_REQUEST);
    expect(narrowed?.accessScope).toBe('courses:read');
    expect(await prisma.refreshToken.findUnique({ where: { tokenHash: presented } })).toMatchObject({ rotatedAt: expect.any(Date), rotationAddressTag: 'a1b2' });
    expect(await store.rotateRefreshToken(presentation(presented), newTokens(), REFRESH_REQUEST)).toBeNull();

    const expired = await refreshToken(grantId);
    await prisma.refreshToken.update({ where: { tokenHash: expired }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await store.rotateRefreshToken(presentation(expired), newTokens(), REFRESH_REQUEST)).toBeNull();

    const revoked = await refreshToken(grantId);
    await prisma.refreshToken.update({ where: { tokenHash: revoked }, data: { revokedAt: new Date() } });
    expect(await store.rotateRefreshToken(presentation(revoked), newTokens(), REFRESH_REQUEST)).toBeNull();
    expect(await prisma.accessToken.count({ where: { grantId } })).toBe(1);
  });

  it('of parallel exchanges of one code, exactly one consumes it and issues tokens', async () => {
    const grantId = await grant();
    const verifier = 'v'.repeat(43);
    const codeHash = await code(grantId, verifier);
    const results = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        store.consumeCode(exchangeOf(codeHash, verifier), newTokens(), CODE_REQUEST),
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
    const refused = await store.consumeCode(exchangeOf(wrongVerifier, 'x'.repeat(43)), newTokens(), CODE_REQUEST);
    expect(refused).toMatchObject({ issued: null, redirectUri: 'http://127.0.0.1/cb', codeChallenge: challengeOf(verifier) });
    // Used up: the right verifier comes too late.
    expect(await store.consumeCode(exchangeOf(wrongVerifier, verifier), newTokens(), CODE_REQUEST)).toBeNull();

    const wrongRedirect = await code(grantId, verifier);
    expect((await store.consumeCode(exchangeOf(wrongRedirect, verifier, { redirectUri: 'http://127.0.0.1/other' }), newTokens(), CODE_REQUEST))?.issued).toBeNull();
    // Another client's code is not consumed.
    const others = await code(grantId, verifier);
    expect(await store.consumeCode(exchangeOf(others, verifier, { clientId: 'client-b' }), newTokens(), CODE_REQUEST)).toBeNull();
    expect(await store.findCodeOwner(others)).toEqual({ clientId: 'client-a', grantId, consumed: false, dpopJkt: null });
    expect((await prisma.authorizationCode.findUnique({ where: { codeHash: others } }))?.consumedAt).toBeNull();
    expect(await prisma.accessToken.count({ where: { grantId } })).toBe(0);
  });

  it('reads back what it wrote, times in UTC', async () => {
    const grantId = await grant();
    const tokens = newTokens(false);
    const codeHash = await code(grantId, 'z'.repeat(43));
    const consumed = await store.consumeCode(exchangeOf(codeHash, 'z'.repeat(43)), tokens, CODE_REQUEST);
    expect(consumed?.issued).not.toBeNull();
    // Read back by another process: from the database, not from what this one holds.
    const found = await anotherProcess().findActiveAccessToken(tokens.access.tokenHash, new Date());
    expect(found).toMatchObject({ id: tokens.access.id, grantId, clientId: 'client-a', scope: 'openid courses:read' });
    expect(found?.expiresAt.getTime()).toBe(tokens.access.expiresAt.getTime());
    expect(found?.issuedAt.getTime()).toBe(tokens.now.getTime());
    // The same instant as Prisma reads it.
    const viaPrisma = await prisma.accessToken.findUnique({ where: { tokenHash: tokens.access.tokenHash } });
    expect(viaPrisma?.expiresAt.getTime()).toBe(tokens.access.expiresAt.getTime());
    expect(viaPrisma?.refreshTokenId).toBeNull();
    expect(await anotherProcess().findActiveAccessToken(tokens.access.tokenHash, new Date(tokens.access.expiresAt.getTime() + 1))).toBeNull();
    expect(await store.findActiveAccessTokenWithUser(tokens.access.tokenHash, new Date())).toEqual({
      scope: 'openid courses:read',
      dpopJkt: null,
      grant: { user: { id: 'u1', name: 'U', email: 'u1@x.test', emailVerified: false, schoolId: 's1', role: 'owner' } },
    });
  });

  it('a grant revoked while tokens are being issued in it keeps no live token its revocation did not name', async () => {
    for (let round = 0; round < 8; round++) {
      const grantId = await grant();
      const presented = await Promise.all(Array.from({ length: 4 }, () => refreshToken(grantId)));
      const [revokedHashes, ...issued] = await Promise.all([
        repository.revokeGrant(grantId, new Date()),
        ...presented.map(async (hash) => {
          const tokens = newTokens();
          return (await store.rotateRefreshToken(presentation(hash), tokens, REFRESH_REQUEST)) ? tokens.access.tokenHash : null;
        }),
      ]);
      // Every access token that was issued is revoked, and named in the event.
      for (const hash of issued.filter((value): value is string => value !== null)) {
        expect(revokedHashes).toContain(hash);
      }
      expect(await prisma.accessToken.count({ where: { grantId, revokedAt: null } })).toBe(0);
      expect(await prisma.refreshToken.count({ where: { grantId, revokedAt: null } })).toBe(0);
      // Issuing after the revocation: nothing.
      expect(await store.issueInGrant(grantId, { refresh: 'openid', access: 'openid' }, newTokens(), REFRESH_REQUEST)).toBeNull();
    }
  });

  describe('DPoP binding (RFC 9449 §5, §10): the key is a condition of the single-use step', () => {
    const KEY = 'k'.repeat(43);
    const OTHER_KEY = 'o'.repeat(43);
    const bound = { access: KEY, refresh: KEY };

    it('a bound refresh token with another key or none rotates nothing and stores nothing; with its key it rotates, the successors bound', async () => {
      const grantId = await grant();
      const presented = await refreshToken(grantId, KEY);
      expect(await store.rotateRefreshToken(presentation(presented, 'client-a', undefined, OTHER_KEY), newTokens(true, { access: OTHER_KEY, refresh: OTHER_KEY }), REFRESH_REQUEST)).toBeNull();
      expect(await store.rotateRefreshToken(presentation(presented), newTokens(), REFRESH_REQUEST)).toBeNull();
      expect(await prisma.refreshToken.findUnique({ where: { tokenHash: presented } })).toMatchObject({ rotatedAt: null, dpopJkt: KEY });
      expect(await prisma.accessToken.count({ where: { grantId } })).toBe(0);

      const successors = newTokens(true, bound);
      expect(await store.rotateRefreshToken(presentation(presented, 'client-a', undefined, KEY), successors, REFRESH_REQUEST)).not.toBeNull();
      expect(await prisma.refreshToken.findUnique({ where: { tokenHash: successors.refresh?.tokenHash } })).toMatchObject({ dpopJkt: KEY, rotatedAt: null });
      expect(await anotherProcess().findActiveAccessToken(successors.access.tokenHash, new Date())).toMatchObject({ dpopJkt: KEY });
      expect(await store.findRefreshToken(presented)).toMatchObject({ dpopJkt: KEY, rotatedAt: expect.any(Date) });
    });

    it('of parallel rotations of one bound token, with its key and with another, exactly one rotates: one with its key', async () => {
      const grantId = await grant();
      const presented = await refreshToken(grantId, KEY);
      const keys = Array.from({ length: PARALLEL }, (_, i) => (i % 2 === 0 ? KEY : OTHER_KEY));
      const results = await Promise.all(keys.map((key) => store.rotateRefreshToken(presentation(presented, 'client-a', undefined, key), newTokens(true, { access: key, refresh: key }), REFRESH_REQUEST)));
      expect(results.map((row, i) => (row === null ? null : keys[i]))).toEqual(expect.arrayContaining([KEY]));
      expect(results.filter((row) => row !== null)).toHaveLength(1);
      expect(await prisma.refreshToken.count({ where: { grantId, dpopJkt: OTHER_KEY } })).toBe(0);
    });

    it('an unbound refresh token rotated with a proof: its successors bound (a public client adopting DPoP)', async () => {
      const grantId = await grant();
      const presented = await refreshToken(grantId);
      const successors = newTokens(true, bound);
      expect(await store.rotateRefreshToken(presentation(presented, 'client-a', undefined, KEY), successors, REFRESH_REQUEST)).not.toBeNull();
      expect(await prisma.refreshToken.findUnique({ where: { tokenHash: successors.refresh?.tokenHash } })).toMatchObject({ dpopJkt: KEY });
    });

    it('a code bound with dpop_jkt and another key or no proof is not consumed: the client with the key still exchanges it', async () => {
      const grantId = await grant();
      const verifier = 'd'.repeat(43);
      const codeHash = await code(grantId, verifier, KEY);
      expect(await store.consumeCode(exchangeOf(codeHash, verifier, { dpopJkt: OTHER_KEY }), newTokens(true, { access: OTHER_KEY, refresh: OTHER_KEY }), CODE_REQUEST)).toBeNull();
      expect(await store.consumeCode(exchangeOf(codeHash, verifier), newTokens(), CODE_REQUEST)).toBeNull();
      expect(await store.findCodeOwner(codeHash)).toEqual({ clientId: 'client-a', grantId, consumed: false, dpopJkt: KEY });
      expect(await prisma.accessToken.count({ where: { grantId } })).toBe(0);

      const tokens = newTokens(true, bound);
      const consumed = await store.consumeCode(exchangeOf(codeHash, verifier, { dpopJkt: KEY }), tokens, CODE_REQUEST);
      expect(consumed?.issued).toMatchObject({ grantId });
      expect(await prisma.accessToken.findUnique({ where: { tokenHash: tokens.access.tokenHash } })).toMatchObject({ dpopJkt: KEY });
      expect(await prisma.refreshToken.findUnique({ where: { tokenHash: tokens.refresh?.tokenHash } })).toMatchObject({ dpopJkt: KEY });
      expect(await store.findCodeOwner(codeHash)).toMatchObject({ consumed: true });
    });

    it('the reuse window issues a sibling pair bound as asked', async () => {
      const grantId = await grant();
      const tokens = newTokens(true, bound);
      expect(await store.issueInGrant(grantId, { refresh: 'openid', access: 'openid' }, tokens, REFRESH_REQUEST)).not.toBeNull();
      expect(await prisma.accessToken.findUnique({ where: { tokenHash: tokens.access.tokenHash } })).toMatchObject({ dpopJkt: KEY });
      expect(await prisma.refreshToken.findUnique({ where: { tokenHash: tokens.refresh?.tokenHash } })).toMatchObject({ dpopJkt: KEY });
    });
  });
});
