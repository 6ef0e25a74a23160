/**
 * Registered clients held in memory by the auth server: read once, dropped when the clients CLI
 * announces a change (over Redis, from its own process), not held while the bus may be losing
 * events, and not held at all without Redis. Real database, real Redis (a private one).
 */
import { EVENT_BUS, type EventBus, LocalEventBus, RedisEventBus } from '@platform/event-bus';
import { PrivateRedis, waitFor } from '../../../../tools/test-support/private-redis';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { ClientChangePublisher } from '../../src/clients/client-change-publisher';
import { ClientChangeSubscriber } from '../../src/clients/client-change-subscriber';
import { ClientsRepository, type StoredClient } from '../../src/clients/clients.repository';
import { HeldClients } from '../../src/clients/held-clients';
import type { PrismaService } from '../../src/database/prisma.service';
import { RevocationTrust } from '../../src/events/revocation-trust';
import { databaseTestingModule, testClientData } from '../support/database-fixtures';

jest.setTimeout(120_000);

/** The repository, counting the lookups that reach the database. */
class CountingClientsRepository extends ClientsRepository {
  lookups = 0;
  override async findClientById(id: string): Promise<StoredClient | null> {
    this.lookups++;
    return super.findClientById(id);
  }
}

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('auth');
});

afterAll(async () => {
  await database?.drop();
});

async function heldClients(bus: EventBus, redisUrl: string | undefined) {
  const { moduleRef, prisma } = await databaseTestingModule(database, {
    providers: [{ provide: ClientsRepository, useClass: CountingClientsRepository }, RevocationTrust, HeldClients, ClientChangeSubscriber],
    globals: [{ provide: EVENT_BUS, useValue: bus }],
    env: redisUrl ? { REDIS_URL: redisUrl } : {},
  });
  const repository = moduleRef.get(ClientsRepository) as CountingClientsRepository;
  return { moduleRef, prisma, clients: moduleRef.get(HeldClients), repository, trust: moduleRef.get(RevocationTrust) };
}

async function clientRow(prisma: PrismaService, id: string): Promise<void> {
  await prisma.client.create({ data: testClientData(id, { kind: 'integration', secretHash: 'old-secret-hash' }) });
}

async function rotateSilently(prisma: PrismaService, id: string): Promise<void> {
  await prisma.client.update({ where: { id }, data: { secretHash: 'new-secret-hash' } });
}

describe('without REDIS_URL', () => {
  it('holds nothing: the CLI, a process of its own, could not tell this one; every lookup reads the database', async () => {
    const bus = new LocalEventBus();
    const state = await heldClients(bus, undefined);
    try {
      await clientRow(state.prisma, 'no-redis');
      await state.clients.findById('no-redis');
      await rotateSilently(state.prisma, 'no-redis');
      expect(await state.clients.findById('no-redis')).toMatchObject({ secretHash: 'new-secret-hash' });
      expect(state.repository.lookups).toBe(2);
    } finally {
      await state.moduleRef.close();
    }
  });
});

(PrivateRedis.available() ? describe : describe.skip)('over Redis', () => {
  const redis = new PrivateRedis();

  beforeAll(() => redis.start());
  afterAll(() => redis.destroy());

  /** HeldClients over a bus on the private Redis, once its heartbeat is heard; closed after `use`. */
  async function overRedis(use: (state: Awaited<ReturnType<typeof heldClients>>) => Promise<void>): Promise<void> {
    const bus = await new RedisEventBus(redis.url).connect();
    const state = await heldClients(bus, redis.url);
    try {
      await waitFor(() => state.trust.trustPeriod() !== undefined, 5_000, 'the bus heartbeat was never heard');
      await use(state);
    } finally {
      await state.moduleRef.close();
      await bus.close();
    }
  }

  it('reads a client once, then answers from memory until the CLI announces a change, from another process', async () => {
    const bus = await new RedisEventBus(redis.url).connect();
    const cliBus = await new RedisEventBus(redis.url).connect();
    const state = await heldClients(bus, redis.url);
    try {
      await waitFor(() => state.trust.trustPeriod() !== undefined, 5_000, 'the bus heartbeat was never heard');
      await clientRow(state.prisma, 'held');
      expect(await state.clients.findById('held')).toMatchObject({ secretHash: 'old-secret-hash' });
      await rotateSilently(state.prisma, 'held');
      // Held: the silent change is not seen (this is what the CLI's announcement is for).
      expect(await state.clients.findById('held')).toMatchObject({ secretHash: 'old-secret-hash' });
      expect(state.repository.lookups).toBe(1);

      await new ClientChangePublisher(cliBus).announce('held', 'secret_rotated');
      await waitFor(async () => (await state.clients.findById('held'))?.secretHash === 'new-secret-hash', 5_000, 'the change was not seen');
    } finally {
      await state.moduleRef.close();
      await cliBus.close();
      await bus.close();
    }
  });

  it('never holds an unknown id: a client registered meanwhile is found at once', () =>
    overRedis(async (state) => {
      expect(await state.clients.findById('registered-later')).toBeNull();
      await clientRow(state.prisma, 'registered-later');
      expect(await state.clients.findById('registered-later')).not.toBeNull();
    }));

  it('does not put back a row read before the change was announced', () =>
    overRedis(async (state) => {
      await clientRow(state.prisma, 'racing');
      const underWay = state.clients.findById('racing');
      state.clients.evict('racing');
      await underWay;
      await state.clients.findById('racing');
      expect(state.repository.lookups).toBe(2);
    }));

  it('holds nothing while Redis is away, and starts afresh when it is back', () =>
    overRedis(async (state) => {
      await clientRow(state.prisma, 'outage');
      await state.clients.findById('outage');
      await redis.stop();
      await waitFor(() => state.trust.trustPeriod() === undefined, 10_000, 'trust did not end with Redis gone');
      await rotateSilently(state.prisma, 'outage');
      // A change announced meanwhile would have been lost: the database answers.
      expect(await state.clients.findById('outage')).toMatchObject({ secretHash: 'new-secret-hash' });
      await redis.start();
      await waitFor(() => state.trust.trustPeriod() !== undefined, 15_000, 'trust did not come back with Redis');
      const before = state.repository.lookups;
      await state.clients.findById('outage');
      expect(state.repository.lookups).toBe(before + 1);
    }));
});
