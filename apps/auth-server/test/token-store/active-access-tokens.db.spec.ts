/**
 * The live access tokens the auth server holds in memory: filled on first lookup, evicted by
 * revocation events, and not trusted while the event bus may be losing events (Redis stopped
 * or frozen) nor across its return. Real database, real Redis (a private one the test stops).
 */
import { TOKEN_REVOKED_CHANNEL, type TokenRevokedEvent } from '@platform/contracts';
import { EVENT_BUS, type EventBus, LocalEventBus, RedisEventBus } from '@platform/event-bus';
import { randomUUID } from 'node:crypto';
import { PrivateRedis, waitFor } from '../../../../tools/test-support/private-redis';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { generateOpaqueToken, hashToken } from '../../src/crypto/tokens';
import type { PrismaService } from '../../src/database/prisma.service';
import { RevocationTrust } from '../../src/events/revocation-trust';
import { ActiveAccessTokens } from '../../src/token/active-access-tokens';
import { RevocationSubscriber } from '../../src/token/revocation-subscriber';
import { TokenStore } from '../../src/token/token-store';
import { databaseTestingModule, testClientData } from '../support/database-fixtures';

jest.setTimeout(120_000);

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('auth');
});

afterAll(async () => {
  await database?.drop();
});

/** The auth server's token-state providers on a bus of the test's choosing. */
async function tokenState(bus: EventBus) {
  const { moduleRef, prisma } = await databaseTestingModule(database, {
    providers: [TokenStore, RevocationTrust, ActiveAccessTokens, RevocationSubscriber],
    globals: [{ provide: EVENT_BUS, useValue: bus }],
  });
  const store = moduleRef.get(TokenStore);
  // The live access token as introspection reads it: memory first (ActiveAccessTokens), then the database.
  const tokens = { findByHash: (hash: string, now = new Date()) => store.findActiveAccessToken(hash, now) };
  return { moduleRef, prisma, tokens, trust: moduleRef.get(RevocationTrust) };
}

/** A live access token in the database; returns its hash. */
async function liveToken(prisma: PrismaService): Promise<string> {
  const id = randomUUID();
  await prisma.school.upsert({ where: { id: 's1' }, create: { id: 's1', name: 'School' }, update: {} });
  await prisma.user.upsert({
    where: { id: 'u1' },
    create: { id: 'u1', schoolId: 's1', email: 'u1@x.test', name: 'U', role: 'owner', passwordHash: 'x' },
    update: {},
  });
  await prisma.client.upsert({
    where: { id: 'client-a' },
    create: testClientData('client-a', { grantTypes: ['authorization_code'] }),
    update: {},
  });
  const grant = await prisma.grant.create({
    data: { id, clientId: 'client-a', userId: 'u1', schoolId: 's1', scope: 'openid', resource: 'http://api.test', authTime: new Date() },
  });
  const tokenHash = hashToken(generateOpaqueToken());
  const now = new Date();
  await prisma.accessToken.create({
    data: {
      tokenHash,
      grantId: grant.id,
      clientId: 'client-a',
      userId: 'u1',
      schoolId: 's1',
      scope: 'openid',
      audience: 'http://api.test',
      issuedAt: now,
      expiresAt: new Date(now.getTime() + 3600_000),
    },
  });
  return tokenHash;
}

/** Revoked in the database only: no event, so only a database read can know. */
async function revokeSilently(prisma: PrismaService, tokenHash: string): Promise<void> {
  await prisma.accessToken.update({ where: { tokenHash }, data: { revokedAt: new Date() } });
}

async function publishRevocation(bus: EventBus, tokenHash: string): Promise<void> {
  const event: TokenRevokedEvent = { accessTokenHashes: [tokenHash], reason: 'revocation', at: Date.now() };
  await bus.publish(TOKEN_REVOKED_CHANNEL, event);
}

describe('in-memory live access tokens, single process (in-process bus: always trusted)', () => {
  it('answers from memory after the first lookup, and forgets a token at its revocation event', async () => {
    const bus = new LocalEventBus();
    const state = await tokenState(bus);
    try {
      const hash = await liveToken(state.prisma);
      expect(state.trust.trustPeriod()).toBe(0);
      expect(await state.tokens.findByHash(hash)).toMatchObject({ tokenHash: hash, clientId: 'client-a' });

      await revokeSilently(state.prisma, hash);
      // Held: the silent revocation is not seen (this is what events are for).
      expect(await state.tokens.findByHash(hash)).not.toBeNull();

      await publishRevocation(bus, hash);
      expect(await state.tokens.findByHash(hash)).toBeNull();
    } finally {
      await state.moduleRef.close();
      await bus.close();
    }
  });

  it('never answers past the token exp', async () => {
    const bus = new LocalEventBus();
    const state = await tokenState(bus);
    try {
      const hash = await liveToken(state.prisma);
      const token = await state.tokens.findByHash(hash);
      expect(token).not.toBeNull();
      expect(await state.tokens.findByHash(hash, new Date((token?.expiresAt.getTime() ?? 0) + 1))).toBeNull();
    } finally {
      await state.moduleRef.close();
      await bus.close();
    }
  });
});

(PrivateRedis.available() ? describe : describe.skip)('in-memory live access tokens over Redis (several instances)', () => {
  const redis = new PrivateRedis();

  beforeAll(() => redis.start());
  afterAll(() => redis.destroy());

  it('another instance’s revocation event evicts the token here', async () => {
    const bus = await new RedisEventBus(redis.url).connect();
    const otherInstance = await new RedisEventBus(redis.url).connect();
    const state = await tokenState(bus);
    try {
      await waitFor(() => state.trust.trustPeriod() !== undefined, 5_000, 'the bus heartbeat was never heard');
      const hash = await liveToken(state.prisma);
      await state.tokens.findByHash(hash);
      await revokeSilently(state.prisma, hash);
      expect(await state.tokens.findByHash(hash)).not.toBeNull();

      await publishRevocation(otherInstance, hash);
      await waitFor(async () => (await state.tokens.findByHash(hash)) === null, 5_000, 'the revocation event did not evict the token');
    } finally {
      await state.moduleRef.close();
      await Promise.all([bus.close(), otherInstance.close()]);
    }
  });

  it.each([
    ['stopped', (r: PrivateRedis) => r.stop(), (r: PrivateRedis) => r.start()],
    ['frozen', async (r: PrivateRedis) => r.freeze(), async (r: PrivateRedis) => r.thaw()],
  ])('while Redis is %s, every lookup reads the database; afterwards memory starts empty', async (_name, down, up) => {
    const bus = await new RedisEventBus(redis.url).connect();
    const state = await tokenState(bus);
    try {
      await waitFor(() => state.trust.trustPeriod() !== undefined, 5_000, 'the bus heartbeat was never heard');
      const before = state.trust.trustPeriod();
      const revokedDuringOutage = await liveToken(state.prisma);
      const revokedBeforeOutage = await liveToken(state.prisma);
      await state.tokens.findByHash(revokedDuringOutage);
      await state.tokens.findByHash(revokedBeforeOutage);

      await down(redis);
      await waitFor(() => state.trust.trustPeriod() === undefined, 5_000, 'the outage was not noticed');
      // A revocation whose event nobody could hear: the database answers.
      await revokeSilently(state.prisma, revokedDuringOutage);
      expect(await state.tokens.findByHash(revokedDuringOutage)).toBeNull();

      // Revoked silently just before Redis comes back: memory must not have kept it.
      await revokeSilently(state.prisma, revokedBeforeOutage);
      await up(redis);
      await waitFor(() => state.trust.trustPeriod() !== undefined, 15_000, 'trust did not come back');
      expect(state.trust.trustPeriod()).not.toBe(before);
      expect(await state.tokens.findByHash(revokedBeforeOutage)).toBeNull();
    } finally {
      await state.moduleRef.close();
      await bus.close();
    }
  });
});
