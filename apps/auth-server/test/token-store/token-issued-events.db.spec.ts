/**
 * The token endpoint's security events against a real database: auth.token.issued is written by
 * the very statement that stores the tokens (token-store.ts, a CTE from `consumed` / `rotated`),
 * so an exchange or a rotation that stores tokens writes exactly one event and one that stores
 * none writes none, whatever races; auth.refresh_token.reuse_detected is written in the
 * transaction that revokes the grant, and the grant is revoked even when the event cannot be.
 */
import { Logger } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { EVENT_BUS, LocalEventBus } from '@platform/event-bus';
import { platformEventSchema, type SecurityEvent } from '@platform/contracts';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { generateOpaqueToken, hashToken } from '../../src/crypto/tokens';
import type { PrismaService } from '../../src/database/prisma.service';
import type { RevocationPublisher } from '../../src/events/revocation-publisher';
import { RevocationTrust } from '../../src/events/revocation-trust';
import { refreshTokenReuseDetected, tokensIssued } from '../../src/security-events/recorded-events';
import { securityEventOf } from '../../src/security-events/security-event';
import type { IssuingRequest } from '../../src/security-events/token-issued-event';
import { ActiveAccessTokens } from '../../src/token/active-access-tokens';
import { GrantRevoker } from '../../src/token/grant-revoker';
import { challengeOf } from '../../src/token/grants/pkce';
import type { NewTokens } from '../../src/token/token-rows';
import { TokenStore } from '../../src/token/token-store';
import { TokensRepository } from '../../src/token/tokens.repository';
import { databaseTestingModule, seedSchoolAndUser, testClientData } from '../support/database-fixtures';

jest.setTimeout(120_000);

const HOUR = 3600_000;
const RESOURCE = 'http://api.test';
const SCOPE = 'openid courses:read';
const VERIFIER = 'v'.repeat(43);
const CODE_REQUEST: IssuingRequest = { grantType: 'authorization_code', address: '198.51.100.7', requestId: 'request-code' };
const REFRESH_REQUEST: IssuingRequest = { grantType: 'refresh_token', address: '2001:db8::7', requestId: 'request-refresh' };

function newTokens(): NewTokens {
  const now = new Date();
  return {
    now,
    access: { id: randomUUID(), tokenHash: hashToken(generateOpaqueToken()), expiresAt: new Date(now.getTime() + HOUR), dpopJkt: null },
    refresh: { id: randomUUID(), tokenHash: hashToken(generateOpaqueToken()), expiresAt: new Date(now.getTime() + 24 * HOUR), dpopJkt: null },
  };
}

describe('security events of the token endpoint (real database)', () => {
  let database: TestDatabase;
  let moduleRef: TestingModule;
  let prisma: PrismaService;
  let store: TokenStore;
  let revoker: GrantRevoker;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    ({ moduleRef, prisma } = await databaseTestingModule(database, {
      providers: [TokenStore, TokensRepository, ActiveAccessTokens, RevocationTrust],
      globals: [{ provide: EVENT_BUS, useValue: new LocalEventBus() }],
    }));
    store = moduleRef.get(TokenStore);
    const publisher: Pick<RevocationPublisher, 'publish'> = { publish: async () => undefined };
    revoker = new GrantRevoker(moduleRef.get(TokensRepository), publisher as RevocationPublisher);
    await seedSchoolAndUser(prisma);
    await prisma.client.create({ data: testClientData('client-a', { scope: SCOPE }) });
  });

  afterAll(async () => {
    await moduleRef?.close();
    await database?.drop();
  });

  async function grant(): Promise<string> {
    const created = await prisma.grant.create({ data: { clientId: 'client-a', userId: 'u1', schoolId: 's1', scope: SCOPE, resource: RESOURCE, authTime: new Date() } });
    return created.id;
  }

  async function code(grantId: string): Promise<string> {
    const codeHash = hashToken(generateOpaqueToken());
    await prisma.authorizationCode.create({
      data: { codeHash, grantId, redirectUri: 'http://127.0.0.1/cb', codeChallenge: challengeOf(VERIFIER), expiresAt: new Date(Date.now() + 60_000) },
    });
    return codeHash;
  }

  async function refreshToken(grantId: string, rotatedAt: Date | null = null): Promise<string> {
    const tokenHash = hashToken(generateOpaqueToken());
    const now = new Date();
    await prisma.refreshToken.create({
      data: { tokenHash, grantId, clientId: 'client-a', scope: SCOPE, resource: RESOURCE, issuedAt: now, rotatedAt, expiresAt: new Date(now.getTime() + HOUR) },
    });
    return tokenHash;
  }

  const exchange = (codeHash: string, overrides: { codeChallenge?: string } = {}) => ({
    codeHash,
    clientId: 'client-a',
    redirectUri: 'http://127.0.0.1/cb',
    codeChallenge: challengeOf(VERIFIER),
    dpopJkt: null,
    ...overrides,
  });
  const presentation = (tokenHash: string, scopes?: string[]) => ({
    tokenHash,
    clientId: 'client-a',
    requested: scopes ? { scopes, scope: scopes.join(' ') } : null,
    addressTag: 'a1b2',
    dpopJkt: null,
  });

  /** The grant's events in the outbox, as the relay sends them (checked against the ingest's schema). */
  async function eventsOf(grantId: string): Promise<SecurityEvent[]> {
    const rows = await prisma.securityEventOutbox.findMany({ orderBy: { id: 'asc' } });
    const events = rows.map((row) => JSON.parse(row.payload) as SecurityEvent).filter((event) => event.subject?.id === grantId);
    for (const event of events) expect(platformEventSchema.safeParse(event).error).toBeUndefined();
    for (const row of rows.filter((row) => events.some((event) => event.id === row.id))) expect(row.sentAt).toBeNull();
    return events;
  }

  /** What SecurityEvents would write for it (recorded-events.ts tokensIssued), but for the id. */
  function expectedIssued(grantId: string, tokens: NewTokens, request: IssuingRequest, scope = SCOPE) {
    const built = securityEventOf(
      tokensIssued({ grantId, clientId: 'client-a', userId: 'u1', schoolId: 's1', scope, resource: RESOURCE }, request.grantType, request.address),
      tokens.now,
      request.requestId ?? undefined,
    );
    return { ...built, id: expect.stringMatching(/^[0-9a-f-]{36}$/) };
  }

  it('a code exchange writes one auth.token.issued with its grant type, the shape SecurityEvents writes, and no token or code', async () => {
    const grantId = await grant();
    const codeHash = await code(grantId);
    const tokens = newTokens();
    expect((await store.consumeCode(exchange(codeHash), tokens, CODE_REQUEST))?.issued).not.toBeNull();
    const events = await eventsOf(grantId);
    expect(events).toEqual([expectedIssued(grantId, tokens, CODE_REQUEST)]);
    const text = JSON.stringify(events);
    for (const secret of [codeHash, tokens.access.tokenHash, tokens.refresh?.tokenHash, tokens.access.id, tokens.refresh?.id]) expect(text).not.toContain(secret);
  });

  it('a rotation writes one auth.token.issued (refresh_token, the access token’s scope); the reuse window’s sibling pair one too', async () => {
    const grantId = await grant();
    const presented = await refreshToken(grantId);
    const rotation = newTokens();
    expect(await store.rotateRefreshToken(presentation(presented, ['courses:read']), rotation, REFRESH_REQUEST)).not.toBeNull();
    const sibling = newTokens();
    expect(await store.issueInGrant(grantId, { refresh: SCOPE, access: SCOPE }, sibling, REFRESH_REQUEST)).not.toBeNull();
    expect(await eventsOf(grantId)).toEqual([expectedIssued(grantId, rotation, REFRESH_REQUEST, 'courses:read'), expectedIssued(grantId, sibling, REFRESH_REQUEST)]);
  });

  it('a failed exchange or rotation writes none: wrong verifier, used code, rotated or unknown token, revoked grant', async () => {
    const grantId = await grant();
    const codeHash = await code(grantId);
    expect((await store.consumeCode(exchange(codeHash, { codeChallenge: challengeOf('x'.repeat(43)) }), newTokens(), CODE_REQUEST))?.issued).toBeNull();
    expect(await store.consumeCode(exchange(codeHash), newTokens(), CODE_REQUEST)).toBeNull();
    expect(await store.rotateRefreshToken(presentation(await refreshToken(grantId, new Date())), newTokens(), REFRESH_REQUEST)).toBeNull();
    expect(await store.rotateRefreshToken(presentation(hashToken('unknown')), newTokens(), REFRESH_REQUEST)).toBeNull();
    expect(await store.rotateRefreshToken(presentation(await refreshToken(grantId), ['email']), newTokens(), REFRESH_REQUEST)).toBeNull();
    await prisma.grant.update({ where: { id: grantId }, data: { revokedAt: new Date() } });
    expect(await store.issueInGrant(grantId, { refresh: SCOPE, access: SCOPE }, newTokens(), REFRESH_REQUEST)).toBeNull();
    expect(await eventsOf(grantId)).toEqual([]);
  });

  it('parallel exchanges, some of one code, in batches and alone: one event per exchange that issued tokens', async () => {
    const grantIds = await Promise.all(Array.from({ length: 6 }, () => grant()));
    const codes = await Promise.all(grantIds.map((grantId) => code(grantId)));
    // Each code presented three times at once (the batches of batch-while-in-flight), a third of them with a wrong verifier.
    const attempts = codes.flatMap((codeHash, i) =>
      Array.from({ length: 3 }, () => store.consumeCode(exchange(codeHash, i % 3 === 2 ? { codeChallenge: challengeOf('x'.repeat(43)) } : {}), newTokens(), CODE_REQUEST)),
    );
    const results = await Promise.all(attempts);
    const issued = results.filter((result) => result?.issued);
    expect(issued).toHaveLength(4);
    for (const [i, grantId] of grantIds.entries()) {
      const events = await eventsOf(grantId);
      expect(events).toHaveLength(i % 3 === 2 ? 0 : 1);
      expect(events.map((event) => event.data['grant_type'])).toEqual(i % 3 === 2 ? [] : ['authorization_code']);
    }
  });

  it('parallel rotations of one refresh token: one rotates, one event', async () => {
    const grantId = await grant();
    const presented = await refreshToken(grantId);
    const results = await Promise.all(Array.from({ length: 8 }, () => store.rotateRefreshToken(presentation(presented), newTokens(), REFRESH_REQUEST)));
    expect(results.filter((result) => result !== null)).toHaveLength(1);
    expect((await eventsOf(grantId)).map((event) => [event.type, event.data['grant_type']])).toEqual([['auth.token.issued', 'refresh_token']]);
  });

  describe('refresh token reuse (RFC 9700 §4.14.2)', () => {
    const reuse = (grantId: string) => refreshTokenReuseDetected({ grantId, clientId: 'client-a', userId: 'u1', schoolId: 's1' }, '203.0.113.9');

    it('writes auth.refresh_token.reuse_detected with the revocation of its grant, once when two revoke it at once', async () => {
      const grantId = await grant();
      await refreshToken(grantId);
      await Promise.all([revoker.revokeGrant(grantId, 'refresh_token_reuse', reuse(grantId)), revoker.revokeGrant(grantId, 'refresh_token_reuse', reuse(grantId))]);
      expect(await prisma.grant.findUnique({ where: { id: grantId } })).toMatchObject({ revokedAt: expect.any(Date) });
      expect(await prisma.refreshToken.count({ where: { grantId, revokedAt: null } })).toBe(0);
      expect(await eventsOf(grantId)).toEqual([
        expect.objectContaining({
          type: 'auth.refresh_token.reuse_detected',
          school_id: 's1',
          actor: { type: 'client', id: 'client-a' },
          subject: { type: 'grant', id: grantId },
          address: '203.0.113.9',
          outcome: 'failure',
          data: { grant_ended: true, user_id: 'u1' },
        }),
      ]);
    });

    it('revokes the grant even when its event cannot be written', async () => {
      const grantId = await grant();
      await refreshToken(grantId);
      // The outbox refusing this event (as a full disk or a broken table would): its insert fails, and the first transaction with it.
      await prisma.$executeRawUnsafe(`CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'outbox refused'; END $$`);
      await prisma.$executeRawUnsafe(`CREATE TRIGGER refuse_event BEFORE INSERT ON security_event_outbox FOR EACH ROW EXECUTE FUNCTION refuse_event()`);
      const logged: unknown[] = [];
      const logError = jest.spyOn(Logger.prototype, 'error').mockImplementation((message: unknown) => void logged.push(message));
      try {
        await revoker.revokeGrant(grantId, 'refresh_token_reuse', reuse(grantId));
      } finally {
        logError.mockRestore();
        await prisma.$executeRawUnsafe('DROP TRIGGER refuse_event ON security_event_outbox');
        await prisma.$executeRawUnsafe('DROP FUNCTION refuse_event');
      }
      expect(await prisma.grant.findUnique({ where: { id: grantId } })).toMatchObject({ revokedAt: expect.any(Date) });
      expect(await prisma.refreshToken.count({ where: { grantId, revokedAt: null } })).toBe(0);
      expect(await eventsOf(grantId)).toEqual([]);
      expect(logged).toEqual([expect.stringMatching(/^security event auth\.refresh_token\.reuse_detected \S+ not recorded: [\s\S]*outbox refused/)]);
    });
  });
});
