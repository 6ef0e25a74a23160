/**
 * The outbox and its relay on real PostgreSQL: an event is written with the change it reports
 * and absent when that change rolls back; the relay sends each event once (two relays racing,
 * as two replicas would), retries what a down or refusing ingest did not take, takes over the
 * events of a relay that died after claiming them, and drops one the ingest could never take.
 * The ingest is a plain HTTP server on the loopback that checks the credentials the resource
 * server's ingest checks and answers as it is told.
 */
import { SECURITY_EVENTS_INGEST_PATH, ingestAuthorization, type SecurityEvent } from '@platform/contracts';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../../../../tools/test-support/test-database';
import { databaseTestingModule, seedSchoolAndUser, testClientData } from '../../test/support/database-fixtures';
import { AuthorizeRepository, type ApprovedAuthorization } from '../authorize/authorize.repository';
import type { PrismaService } from '../database/prisma.service';
import { consentGranted } from './recorded-events';
import { securityEventOf } from './security-event';
import { appendSecurityEventsIn, SecurityEventOutbox } from './security-event-outbox';
import { SecurityEvents } from './security-events';
import { RELAY_BATCH_SIZE, SecurityEventsRelay } from './security-events-relay';

jest.setTimeout(60_000);

const SECRET = 'test-introspection-secret-0123456789';

/** The resource server's ingest as far as the relay can tell: credentials checked, bodies kept, answers chosen. */
class FakeIngest {
  readonly received: SecurityEvent[][] = [];
  status = 200;
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      void readBody(request).then((body) => {
        if (request.url !== SECURITY_EVENTS_INGEST_PATH || request.headers.authorization !== ingestAuthorization('resource-server', SECRET)) {
          response.writeHead(401).end();
          return;
        }
        if (this.status === 200) this.received.push(JSON.parse(body) as SecurityEvent[]);
        response.writeHead(this.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: this.status === 200 ? undefined : 'temporarily_unavailable' }));
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  receivedIds(): string[] {
    return this.received.flat().map((event) => event.id);
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve(body));
  });
}

const signIn = (userId: string) =>
  securityEventOf({ type: 'auth.sign_in.succeeded', schoolId: 's1', actor: { type: 'user', id: userId }, address: '203.0.113.7', data: { method: 'password' } });

(process.env['DATABASE_URL'] ? describe : describe.skip)('security events: the outbox and its relay', () => {
  let database: TestDatabase;
  let ingest: FakeIngest;
  let ingestOrigin: string;
  /** Two replicas: each with its own pool, outbox and relay, over one database. */
  const replicas: { prisma: PrismaService; relay: SecurityEventsRelay; events: SecurityEvents; close(): Promise<void> }[] = [];
  let prisma: PrismaService;

  beforeAll(async () => {
    database = await createTestDatabase('auth');
    ingest = new FakeIngest();
    ingestOrigin = await ingest.start();
    for (let i = 0; i < 2; i++) {
      const { moduleRef, prisma: replicaPrisma } = await databaseTestingModule(database, {
        providers: [SecurityEventOutbox, SecurityEvents, SecurityEventsRelay, AuthorizeRepository],
        env: { RESOURCE_SERVER_URL: ingestOrigin, SECURITY_EVENTS_RELAY_ENABLED: 'false', SECURITY_EVENTS_RELAY_TIMEOUT_MS: '2000' },
      });
      replicas.push({ prisma: replicaPrisma, relay: moduleRef.get(SecurityEventsRelay), events: moduleRef.get(SecurityEvents), close: () => moduleRef.close() });
    }
    prisma = replicas[0].prisma;
    await seedSchoolAndUser(prisma);
    await prisma.client.create({ data: testClientData('planner') });
  });

  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    await ingest?.stop();
    await database?.drop();
  });

  beforeEach(async () => {
    await prisma.securityEventOutbox.deleteMany();
    ingest.received.length = 0;
    ingest.status = 200;
  });

  const rows = () => prisma.securityEventOutbox.findMany({ orderBy: { id: 'asc' } });
  /** Every unsent event due now, as if its lease or backoff had ended. */
  const makeDue = () => prisma.$executeRaw`UPDATE security_event_outbox SET next_attempt_at = next_attempt_at - interval '1 day' WHERE sent_at IS NULL`;

  describe('written with the change it reports', () => {
    const approved = (clientId: string, codeHash: string): ApprovedAuthorization => ({
      clientId,
      userId: 'u1',
      schoolId: 's1',
      scope: 'openid',
      resource: 'http://127.0.0.1:3000',
      nonce: null,
      authTime: new Date(),
      codeHash,
      redirectUri: 'http://127.0.0.1/cb',
      codeChallenge: 'c'.repeat(43),
      codeExpiresAt: new Date(Date.now() + 60_000),
    });
    const granted = (clientId: string) => (grantId: string) =>
      securityEventOf(consentGranted({ user: { id: 'u1', schoolId: 's1' }, clientId, scope: 'openid', resource: 'http://127.0.0.1:3000' }, grantId, 'form'));
    const consentToken = (id: string) => ({ idHash: id, expiresAt: new Date(Date.now() + 600_000) });

    it('an approval and its event commit together', async () => {
      const repository = new AuthorizeRepository(prisma);
      const stored = await repository.insertGrantWithCode(approved('planner', 'code-1'), consentToken('form-1'), new Date(), undefined, granted('planner'));
      const [row] = await rows();
      expect(JSON.parse(row.payload)).toMatchObject({ type: 'auth.consent.granted', subject: { type: 'grant', id: stored?.grantId }, client_id: 'planner' });
    });

    it('an approval that rolls back (its client is gone: the grant violates its foreign key) leaves no event', async () => {
      const repository = new AuthorizeRepository(prisma);
      await expect(
        repository.insertGrantWithCode(approved('deleted-client', 'code-2'), consentToken('form-2'), new Date(), undefined, granted('deleted-client')),
      ).rejects.toThrow();
      expect(await rows()).toEqual([]);
      // The consent token of the failed answer was not consumed either: the same transaction.
      expect(await prisma.consumedConsentToken.count({ where: { idHash: 'form-2' } })).toBe(0);
    });

    it('an event that cannot be written (forced with a constraint on the outbox) takes its approval with it: no grant, the form not consumed', async () => {
      const repository = new AuthorizeRepository(prisma);
      const grants = await prisma.grant.count();
      await prisma.$executeRawUnsafe(`ALTER TABLE security_event_outbox ADD CONSTRAINT refuse_all CHECK (false) NOT VALID`);
      try {
        await expect(
          repository.insertGrantWithCode(approved('planner', 'code-3'), consentToken('form-3'), new Date(), undefined, granted('planner')),
        ).rejects.toThrow(/refuse_all/);
      } finally {
        await prisma.$executeRawUnsafe(`ALTER TABLE security_event_outbox DROP CONSTRAINT refuse_all`);
      }
      expect(await prisma.grant.count()).toBe(grants);
      expect(await prisma.consumedConsentToken.count({ where: { idHash: 'form-3' } })).toBe(0);
    });

    it('appendSecurityEventsIn inside any transaction: rolled back with it', async () => {
      await expect(
        prisma.$transaction(async (tx) => {
          await appendSecurityEventsIn(tx, [signIn('u1')]);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect(await rows()).toEqual([]);
    });
  });

  it('record: the event committed before it resolves, in the ingest’s shape; the relay sends it once with the introspection client’s credentials and marks it sent', async () => {
    await replicas[0].events.record({ type: 'auth.sign_in.succeeded', schoolId: 's1', actor: { type: 'user', id: 'u1' }, data: { method: 'password' } });
    const [row] = await rows();
    expect(row).toMatchObject({ attempts: 0, sentAt: null });

    expect(await replicas[0].relay.relayOnce()).toBe(1);
    expect(ingest.received).toEqual([[JSON.parse(row.payload)]]);
    expect((await rows())[0]).toMatchObject({ attempts: 1, sentAt: expect.any(Date), lastError: null });
    expect(await replicas[1].relay.relayOnce()).toBe(0);
    expect(ingest.received).toHaveLength(1);
  });

  it('events recorded at the same moment are appended together, each once', async () => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => replicas[0].events.record({ type: 'auth.sign_in.succeeded', schoolId: 's1', actor: { type: 'user', id: `u${i}` } })));
    expect(await prisma.securityEventOutbox.count()).toBe(50);
  });

  it('two relays racing send every event once', async () => {
    const count = RELAY_BATCH_SIZE * 2 + 37;
    const outbox = new SecurityEventOutbox(replicas[0].prisma.pool);
    await Promise.all(Array.from({ length: count }, (_, i) => outbox.append(signIn(`u${i}`))));
    const drain = async (relay: SecurityEventsRelay) => {
      while ((await relay.relayOnce()) > 0);
    };
    await Promise.all([drain(replicas[0].relay), drain(replicas[1].relay), drain(replicas[0].relay), drain(replicas[1].relay)]);
    const ids = ingest.receivedIds();
    expect(ids).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
    expect(await prisma.securityEventOutbox.count({ where: { sentAt: null } })).toBe(0);
    // In batches, none above the ingest's share.
    expect(Math.max(...ingest.received.map((batch) => batch.length))).toBeLessThanOrEqual(RELAY_BATCH_SIZE);
  });

  it('a down ingest: the events wait with a backoff and go once it answers', async () => {
    await replicas[0].events.record({ type: 'auth.sign_in.succeeded', schoolId: 's1', actor: { type: 'user', id: 'u1' } });
    ingest.status = 503;
    expect(await replicas[0].relay.relayOnce()).toBe(1);
    const [failed] = await rows();
    expect(failed).toMatchObject({ attempts: 1, sentAt: null, lastError: expect.stringMatching(/^HTTP 503 /) });
    expect(failed.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    // Not due yet: neither relay takes it again before its backoff ends.
    expect(await replicas[1].relay.relayOnce()).toBe(0);

    ingest.status = 200;
    await makeDue();
    expect(await replicas[1].relay.relayOnce()).toBe(1);
    expect(ingest.receivedIds()).toEqual([failed.id]);
    expect((await rows())[0]).toMatchObject({ attempts: 2, sentAt: expect.any(Date), lastError: null });
  });

  it('an unreachable ingest: retried the same way', async () => {
    const closed = new FakeIngest();
    const origin = await closed.start();
    await closed.stop();
    const { moduleRef } = await databaseTestingModule(database, {
      providers: [SecurityEventOutbox, SecurityEventsRelay],
      env: { RESOURCE_SERVER_URL: origin, SECURITY_EVENTS_RELAY_ENABLED: 'false' },
    });
    try {
      await replicas[0].events.record({ type: 'auth.sign_in.succeeded', schoolId: 's1', actor: { type: 'user', id: 'u1' } });
      expect(await moduleRef.get(SecurityEventsRelay).relayOnce()).toBe(1);
      expect((await rows())[0]).toMatchObject({ attempts: 1, sentAt: null, lastError: expect.stringContaining('ECONNREFUSED') });
      await makeDue();
      expect(await replicas[0].relay.relayOnce()).toBe(1);
      expect(ingest.received.flat()).toHaveLength(1);
    } finally {
      await moduleRef.close();
    }
  });

  it('a relay that died after claiming: its events go to another relay once the lease ends, not before', async () => {
    await replicas[0].events.record({ type: 'auth.sign_in.succeeded', schoolId: 's1', actor: { type: 'user', id: 'u1' } });
    const outbox = new SecurityEventOutbox(replicas[0].prisma.pool);
    expect(await outbox.claim(10, 60)).toHaveLength(1);
    // The claimant is gone without a word.
    expect(await replicas[1].relay.relayOnce()).toBe(0);
    await makeDue();
    expect(await replicas[1].relay.relayOnce()).toBe(1);
    expect(ingest.received.flat()).toHaveLength(1);
  });

  it('drops an event the ingest would never take (too much data), and sends the others of its batch', async () => {
    const outbox = new SecurityEventOutbox(replicas[0].prisma.pool);
    const oversized = securityEventOf({ type: 'auth.client.registered', schoolId: null, actor: { type: 'client', id: 'c' }, data: { client_name: 'x'.repeat(5000) } });
    const fine = signIn('u1');
    await outbox.append(oversized);
    await outbox.append(fine);
    expect(await replicas[0].relay.relayOnce()).toBe(2);
    expect(ingest.receivedIds()).toEqual([fine.id]);
    expect((await rows()).map((row) => row.id)).toEqual([fine.id]);
  });
});
