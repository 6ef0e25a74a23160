import { randomBytes } from 'node:crypto';
import { newEventId } from '@platform/contracts';
import pg from 'pg';
import { describeIfPostgres } from '../../../../tools/test-support/real-services';
import { PrismaService } from '../database/prisma.service';
import { startTestResourceServer, type TestResourceServer } from '../../test/support/test-resource-server';
import { EVENTS_CLEANUP_LOCK_KEY } from './events-cleanup.repository';
import { EventsCleanupService } from './events-cleanup.service';

jest.setTimeout(60_000);

let server: TestResourceServer;
let prisma: PrismaService;
const DAY = 86_400_000;
const now = new Date('2027-06-01T00:00:00Z');

beforeAll(async () => {
  server = await startTestResourceServer({ env: { AUDIT_EVENTS_RETENTION_DAYS: '30', WEBHOOK_DELIVERIES_RETENTION_DAYS: '7', WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64') } });
  prisma = server.app.get(PrismaService);
});

afterAll(() => server?.close());

async function auditEventAt(occurredAt: Date): Promise<string> {
  const id = newEventId();
  await prisma.auditEvent.create({ data: { id, schoolId: 'demo-school', type: 'auth.sign_in.succeeded', occurredAt, actorType: 'user', actorId: 'u', outcome: 'success', data: {} } });
  return id;
}

async function deliveryAt(subscriptionId: string, createdAt: Date): Promise<string> {
  const row = await prisma.webhookDelivery.create({
    data: { schoolId: 'demo-school', subscriptionId, eventId: newEventId(), eventType: 'student.created', payload: '{}', nextAttemptAt: createdAt, createdAt },
  });
  return row.id;
}

describe('the events clean-up job', () => {
  it('deletes security events past AUDIT_EVENTS_RETENTION_DAYS and deliveries past WEBHOOK_DELIVERIES_RETENTION_DAYS, keeps the rest', async () => {
    const subscription = await prisma.webhookSubscription.create({
      data: { schoolId: 'demo-school', url: 'https://hooks.example/x', eventTypes: ['student.created'], secret: 'v1.x.y.z', createdBy: 'demo-owner' },
    });
    const oldEvent = await auditEventAt(new Date(now.getTime() - 31 * DAY));
    const keptEvent = await auditEventAt(new Date(now.getTime() - 29 * DAY));
    const oldDelivery = await deliveryAt(subscription.id, new Date(now.getTime() - 8 * DAY));
    const keptDelivery = await deliveryAt(subscription.id, new Date(now.getTime() - 6 * DAY));

    expect(await server.app.get(EventsCleanupService).purge(now)).toEqual({ auditEvents: 1, webhookDeliveries: 1 });
    expect(await prisma.auditEvent.findMany({ where: { id: { in: [oldEvent, keptEvent] } }, select: { id: true } })).toEqual([{ id: keptEvent }]);
    expect(await prisma.webhookDelivery.findMany({ where: { id: { in: [oldDelivery, keptDelivery] } }, select: { id: true } })).toEqual([{ id: keptDelivery }]);
  });
});

// Another replica is another session holding the lock in an open transaction: the embedded
// PostgreSQL serves one session for every connection, so only a real one can show it.
describeIfPostgres('the events clean-up job, elected once per cluster', () => {
  it('does nothing while another replica holds the clean-up lock, and cleans up once it is released', async () => {
    const old = await auditEventAt(new Date(now.getTime() - 40 * DAY));
    const other = new pg.Client({ connectionString: server.databaseUrl });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock($1::bigint)', [EVENTS_CLEANUP_LOCK_KEY]);
      expect(await server.app.get(EventsCleanupService).purge(now)).toEqual({ auditEvents: 0, webhookDeliveries: 0 });
      expect(await prisma.auditEvent.count({ where: { id: old } })).toBe(1);
      await other.query('COMMIT');
    } finally {
      await other.end();
    }
    expect((await server.app.get(EventsCleanupService).purge(now)).auditEvents).toBe(1);
  });
});
