/**
 * Issue 31 on real PostgreSQL: business events written with their change (and only then), the
 * security-event ingest, the owners' audit log and webhooks, and the delivery worker: signed
 * deliveries verified by the documented recipe and by the Standard Webhooks library, retries
 * honouring Retry-After, pausing, a crashed worker, two workers delivering each event once.
 */
import { randomBytes } from 'node:crypto';
import { newEventId, type PlatformEvent, SECURITY_EVENTS_INGEST_PATH, ingestAuthorization } from '@platform/contracts';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { describeIfPostgres } from '../../../tools/test-support/real-services';
import { createTestTls, type TestTls } from '../../../tools/test-support/test-tls';
// Test-only: the e2e suites' receiver, the same endpoint stand-in.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { WebhookReceiver } from '../../platform-e2e/src/events/webhook-receiver';
import { AuditLogService } from '../src/audit-log/audit-log.service';
import { MCP_TOOLS, SCHOOL_SERVICES, type SchoolServices } from '../src/mcp';
import { PrismaService } from '../src/database/prisma.service';
import { OrdersService } from '../src/orders/orders.service';
import { StudentsService } from '../src/students/students.service';
import { DeliveryRepository } from '../src/webhooks/delivery.repository';
import { DeliveryWorker } from '../src/webhooks/delivery-worker';
import { WebhookSecrets } from '../src/webhooks/webhook-secrets';
import { WebhooksService } from '../src/webhooks/webhooks.service';
import { DEMO_OWNER, OTHER_OWNER, tokenOf } from './support/principals';
import { INTROSPECTION_SECRET, startTestResourceServer, type TestResourceServer } from './support/test-resource-server';

// The documented receiver recipe, run as integrators would run it.
const { verifyWebhook } = require('../src/webhooks/verify-webhook.example.cjs') as {
  verifyWebhook: (secret: string, headers: Record<string, unknown>, rawBody: string) => unknown;
};

jest.setTimeout(60_000);

const DEMO_ADMIN = tokenOf('demo-school', 'demo-admin');

let tls: TestTls;
let server: TestResourceServer;
let receiver: WebhookReceiver;
let db: pg.Client;
let worker: DeliveryWorker;

beforeAll(async () => {
  tls = createTestTls(['127.0.0.1']);
  receiver = await new WebhookReceiver(tls).start();
  server = await startTestResourceServer({
    env: {
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
      // Driven by the tests, pass by pass.
      WEBHOOK_DELIVERY_ENABLED: 'false',
      WEBHOOK_ALLOW_SPECIAL_USE_HOSTS: 'true',
      WEBHOOK_EXTRA_CA_FILE: tls.caFile,
      WEBHOOK_MAX_ATTEMPTS: '3',
      WEBHOOK_TIMEOUT_MS: '3000',
    },
  });
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  worker = server.app.get(DeliveryWorker);
});

afterAll(async () => {
  await db?.end();
  await server?.close();
  await receiver?.stop();
  tls?.cleanup();
});

const students = () => server.app.get(StudentsService);
const orders = () => server.app.get(OrdersService);
const webhooks = () => server.app.get(WebhooksService);
const outboxRows = async (type: string) =>
  (await db.query<{ id: string; payload: string }>('SELECT id, payload FROM event_outbox WHERE type = $1', [type])).rows;
const unique = () => randomBytes(4).toString('hex');

/** Every outbox event fanned out and every due delivery attempted, as many passes as it takes. */
async function deliverAll(on: DeliveryWorker = worker): Promise<void> {
  while ((await on.runOnce()) > 0);
}

/** Makes the pending deliveries due now: the tests' clock for retries, instead of waiting. */
const makeDue = () => db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() AT TIME ZONE 'UTC' - interval '1 second' WHERE status = 'pending'`);

describe('business events in the outbox', () => {
  it('a change writes its event in its transaction: the row and the event together', async () => {
    const student = await students().create(DEMO_OWNER, { name: 'Outbox Olga', email: `olga-${unique()}@example.test` });
    const [row] = (await outboxRows('student.created')).filter((event) => JSON.parse(event.payload).subject.id === student.id);
    const event = JSON.parse(row.payload) as PlatformEvent;
    expect(event).toMatchObject({
      id: row.id,
      type: 'student.created',
      school_id: 'demo-school',
      actor: { type: 'user', id: 'demo-owner' },
      subject: { type: 'student', id: student.id },
      outcome: 'success',
      data: student,
    });
  });

  it('a change that rolls back leaves no event, and an event that cannot be written rolls its change back', async () => {
    const email = `rollback-${unique()}@example.test`;
    await students().create(DEMO_OWNER, { name: 'First', email });
    const before = (await outboxRows('student.created')).length;
    await expect(students().create(DEMO_OWNER, { name: 'Duplicate', email })).rejects.toMatchObject({ status: 409 });
    expect(await outboxRows('student.created')).toHaveLength(before);

    // Forced: the outbox refuses this type, so the INSERT after the student's fails.
    await db.query(`ALTER TABLE event_outbox ADD CONSTRAINT refuse_students CHECK (type <> 'student.created') NOT VALID`);
    try {
      const refused = `refused-${unique()}@example.test`;
      await expect(students().create(DEMO_OWNER, { name: 'Rolled Back', email: refused })).rejects.toThrow();
      expect((await db.query('SELECT 1 FROM students WHERE email = $1', [refused])).rowCount).toBe(0);
    } finally {
      await db.query('ALTER TABLE event_outbox DROP CONSTRAINT refuse_students');
    }
  });

  it('an order recorded paid reports order.created and order.paid; a refund order.refunded; a refused change nothing', async () => {
    const course = (await db.query<{ id: string }>(`SELECT id FROM courses WHERE school_id = 'demo-school' LIMIT 1`)).rows[0];
    const order = await orders().create(DEMO_OWNER, {
      customer_email: 'buyer@example.test',
      items: [{ product_type: 'course', product_id: course.id, quantity: 1 }],
      status: 'paid',
    });
    const about = async (type: string) => (await outboxRows(type)).filter((row) => JSON.parse(row.payload).subject.id === order.id);
    expect(await about('order.created')).toHaveLength(1);
    expect(await about('order.paid')).toHaveLength(1);
    await expect(orders().updateStatus(DEMO_OWNER, order.id, { status: 'failed' })).rejects.toMatchObject({ status: 409 });
    const refunded = await orders().updateStatus(DEMO_OWNER, order.id, { status: 'refunded' });
    expect(refunded.status).toBe('refunded');
    expect(await about('order.refunded')).toHaveLength(1);
    expect(await about('order.created')).toHaveLength(1);
  });
});

describe('the security-event ingest', () => {
  const securityEvent = (overrides: Partial<PlatformEvent> = {}): PlatformEvent => ({
    id: newEventId(),
    type: 'auth.sign_in.succeeded',
    occurred_at: new Date().toISOString(),
    school_id: 'demo-school',
    actor: { type: 'user', id: 'demo-owner' },
    subject: null,
    client_id: 'client-1',
    address: '203.0.113.7',
    request_id: 'req-1',
    outcome: 'success',
    data: { method: 'password' },
    ...overrides,
  });
  const ingest = (events: unknown, authorization = ingestAuthorization('resource-server', INTROSPECTION_SECRET)) =>
    server.app.inject({ method: 'POST', url: SECURITY_EVENTS_INGEST_PATH, headers: { authorization, 'content-type': 'application/json' }, payload: JSON.stringify(events) });

  it('refuses a caller without the introspection client’s credentials, before reading the body', async () => {
    for (const authorization of [ingestAuthorization('resource-server', 'wrong-secret-0123456789'), ingestAuthorization('someone', INTROSPECTION_SECRET), 'Bearer x', '']) {
      const response = await ingest([securityEvent()], authorization);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ error: 'invalid_client' });
      expect(response.headers['www-authenticate']).toBe('Basic realm="internal"');
    }
  });

  it('refuses a malformed batch with 400 naming the problem, and a secret in data', async () => {
    expect((await ingest({ not: 'an array' })).statusCode).toBe(400);
    const secretInData = await ingest([securityEvent({ data: { client_secret: 'x' } })]);
    expect(secretInData.statusCode).toBe(400);
    expect(secretInData.json().error_description).toContain('secrets, codes and tokens are never recorded');
    expect((await ingest([securityEvent({ type: 'order.created' })])).statusCode).toBe(400);
  });

  it('records each event once whatever the retries, and the owner reads them newest first with filters', async () => {
    const client = `client-${unique()}`;
    const first = securityEvent({ client_id: client, type: 'auth.consent.granted', data: { scope: 'courses:read' } });
    const second = securityEvent({ client_id: client, type: 'auth.token.issued', data: { grant_type: 'authorization_code' } });
    const elsewhere = securityEvent({ client_id: client, school_id: 'other-school', actor: { type: 'user', id: 'other-owner' } });
    expect((await ingest([first, second, elsewhere])).json()).toEqual({ received: 3, recorded: 3 });
    expect((await ingest([first, second, elsewhere])).json()).toEqual({ received: 3, recorded: 0 });

    const audit = server.app.get(AuditLogService);
    const page = await audit.list(DEMO_OWNER, { limit: 20, client_id: client });
    expect(page.data.map((event) => event.id)).toEqual([second.id, first.id]);
    expect(page.data[1]).toEqual({ ...first, occurred_at: new Date(first.occurred_at).toISOString() });
    expect((await audit.list(DEMO_OWNER, { limit: 20, client_id: client, type: 'auth.token.issued' })).data.map((event) => event.id)).toEqual([second.id]);
    expect((await audit.list(DEMO_OWNER, { limit: 1, client_id: client })).next_cursor).not.toBeNull();
    expect((await audit.list(OTHER_OWNER, { limit: 20, client_id: client })).data.map((event) => event.id)).toEqual([elsewhere.id]);
    await expect(audit.list(DEMO_ADMIN, { limit: 20 })).rejects.toMatchObject({ status: 403, error: 'access_denied' });

    // The MCP read tool answers the same, through the same service.
    const tool = MCP_TOOLS.find((candidate) => candidate.name === 'list_security_events');
    const context = { services: server.app.get<symbol, SchoolServices>(SCHOOL_SERVICES), defaultSchoolId: 'demo-school' };
    const answer = (await tool?.handler(tool.input.parse({ client_id: client }), { ...context, principal: DEMO_OWNER })) as { data: { id: string }[] };
    expect(answer.data.map((event) => event.id)).toEqual([second.id, first.id]);
    await expect(tool?.handler(tool.input.parse({}), { ...context, principal: DEMO_ADMIN })).rejects.toMatchObject({ status: 403 });
  });

  it('queues an event for webhooks only when its school has a subscription of its type, as sent, once per id', async () => {
    const outboxRows = async (ids: string[]) =>
      (await db.query<{ id: string; payload: string }>('SELECT id, payload FROM event_outbox WHERE id = ANY($1::text[])', [ids])).rows;
    await webhooks().create(DEMO_OWNER, { url: receiver.endpoint(`/reuse-${unique()}`), event_types: ['auth.refresh_token.reuse_detected'] });
    const subscribed = securityEvent({ type: 'auth.refresh_token.reuse_detected', data: { grant_revoked: true } });
    const otherType = securityEvent({ type: 'auth.sign_in.throttled' });
    const schoolWithoutWebhooks = securityEvent({ type: 'auth.refresh_token.reuse_detected', school_id: `school-${unique()}` });
    const platformWide = securityEvent({ type: 'auth.refresh_token.reuse_detected', school_id: null });

    const answer = await ingest([subscribed, otherType, schoolWithoutWebhooks, platformWide, subscribed]);
    expect(answer.json()).toEqual({ received: 5, recorded: 4 });
    expect(await outboxRows([subscribed.id, otherType.id, schoolWithoutWebhooks.id, platformWide.id])).toEqual([
      { id: subscribed.id, payload: JSON.stringify(subscribed) },
    ]);
    // timestamp(3) columns hold UTC, as Prisma writes them: read back as UTC they are the event's time.
    const utc = await db.query<{ occurred: string }>("SELECT to_char(occurred_at, 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS occurred FROM audit_events WHERE id = $1", [subscribed.id]);
    expect(utc.rows[0].occurred).toBe(subscribed.occurred_at);
  });
});

describe('webhook deliveries', () => {
  it('an owner subscribes; an order is delivered signed (the recipe and the standard’s library verify it); 500 then 200 with Retry-After honoured', async () => {
    const path = `/orders-${unique()}`;
    const url = receiver.endpoint(path, (response, attempt) =>
      attempt === 0 ? response.writeHead(500, { 'retry-after': '120' }).end('not now') : response.writeHead(200).end('ok'),
    );
    const subscription = await webhooks().create(DEMO_OWNER, { url, event_types: ['order.created'] });
    expect(subscription.secret).toMatch(/^whsec_/);
    await expect(webhooks().create(DEMO_ADMIN, { url, event_types: ['order.created'] })).rejects.toMatchObject({ status: 403 });

    const course = (await db.query<{ id: string }>(`SELECT id FROM courses WHERE school_id = 'demo-school' LIMIT 1`)).rows[0];
    const order = await orders().create(DEMO_OWNER, { customer_email: 'hook@example.test', items: [{ product_type: 'course', product_id: course.id, quantity: 2 }], status: 'pending' });
    await deliverAll();
    const [first] = receiver.to(path);
    expect(verifyWebhook(subscription.secret, first.headers, first.rawBody)).toMatchObject({ type: 'order.created', subject: { id: order.id }, data: order });
    expect(new Webhook(subscription.secret).verify(first.rawBody, first.headers as Record<string, string>)).toMatchObject({ type: 'order.created' });
    expect(() => verifyWebhook(`whsec_${randomBytes(32).toString('base64')}`, first.headers, first.rawBody)).toThrow('no valid signature');

    // The receiver's Retry-After (120 s) set the next attempt, not the 10 s backoff.
    let [delivery] = (await webhooks().listDeliveries(DEMO_OWNER, subscription.id, { limit: 20 })).data;
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500' });
    const wait = (Date.parse(delivery.next_attempt_at as string) - Date.parse(delivery.last_attempt_at as string)) / 1000;
    expect(wait).toBeGreaterThan(115);
    expect(wait).toBeLessThan(125);
    await deliverAll();
    expect(receiver.to(path)).toHaveLength(1);

    await makeDue();
    await deliverAll();
    const [, second] = receiver.to(path);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verifyWebhook(subscription.secret, second.headers, second.rawBody)).toMatchObject({ subject: { id: order.id } });
    [delivery] = (await webhooks().listDeliveries(DEMO_OWNER, subscription.id, { limit: 20 })).data;
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200, next_attempt_at: null });

    // Another school's owner sees none of it.
    await expect(webhooks().get(OTHER_OWNER, subscription.id)).rejects.toMatchObject({ status: 404 });
    await expect(webhooks().listDeliveries(OTHER_OWNER, subscription.id, { limit: 20 })).rejects.toMatchObject({ status: 404 });
    expect((await webhooks().list(OTHER_OWNER, { limit: 100 })).data).toEqual([]);
    await expect(webhooks().redeliver(OTHER_OWNER, subscription.id, delivery.id)).rejects.toMatchObject({ status: 404 });

    // A manual redelivery: the same event again, from its first attempt.
    expect(await webhooks().redeliver(DEMO_OWNER, subscription.id, delivery.id)).toMatchObject({ status: 'pending', attempts: 0 });
    await deliverAll();
    expect(receiver.to(path).map((received) => received.headers['webhook-id'])).toEqual([first.headers['webhook-id'], first.headers['webhook-id'], first.headers['webhook-id']]);
  });

  it('security events reach the subscriptions of their school; a rotation signs with both secrets during the overlap', async () => {
    const path = `/security-${unique()}`;
    const subscription = await webhooks().create(DEMO_OWNER, { url: receiver.endpoint(path), event_types: ['auth.grant.revoked'] });
    const rotated = await webhooks().rotateSecret(DEMO_OWNER, subscription.id);
    expect(rotated.previous_secret_expires_at).not.toBeNull();
    const revoked: PlatformEvent = {
      id: newEventId(),
      type: 'auth.grant.revoked',
      occurred_at: new Date().toISOString(),
      school_id: 'demo-school',
      actor: { type: 'user', id: 'demo-owner' },
      subject: { type: 'grant', id: 'grant-1' },
      client_id: 'client-1',
      address: null,
      request_id: null,
      outcome: 'success',
      data: { via: 'connected-apps' },
    };
    await server.app.get(AuditLogService).record([revoked as never]);
    await deliverAll();
    const [received] = receiver.to(path);
    expect(String(received.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhook(rotated.secret, received.headers, received.rawBody)).toMatchObject({ id: revoked.id });
    expect(verifyWebhook(subscription.secret, received.headers, received.rawBody)).toMatchObject({ id: revoked.id });
  });

  it('a delivery that fails every attempt pauses its subscription with the reason; resuming delivers what waited', async () => {
    const path = `/down-${unique()}`;
    let down = true;
    const subscription = await webhooks().create(DEMO_OWNER, {
      url: receiver.endpoint(path, (response) => (down ? response.writeHead(503).end() : response.writeHead(204).end())),
      event_types: ['student.created'],
    });
    await students().create(DEMO_OWNER, { name: 'Paused Pat', email: `pat-${unique()}@example.test` });
    for (let attempt = 0; attempt < 3; attempt++) {
      await makeDue();
      await deliverAll();
    }
    const paused = await webhooks().get(DEMO_OWNER, subscription.id);
    expect(paused).toMatchObject({ status: 'paused', paused_reason: 'a delivery failed 3 times (last: HTTP 503)', consecutive_failures: 3 });
    expect((await webhooks().listDeliveries(DEMO_OWNER, subscription.id, { limit: 5, status: 'failed' })).data).toHaveLength(1);

    // While paused, new events wait as pending deliveries; an owner resumes and they go out.
    await students().create(DEMO_OWNER, { name: 'Waiting Wes', email: `wes-${unique()}@example.test` });
    await deliverAll();
    expect(receiver.to(path)).toHaveLength(3);
    down = false;
    expect((await webhooks().update(DEMO_OWNER, subscription.id, { status: 'active' })).status).toBe('active');
    await deliverAll();
    expect(receiver.to(path)).toHaveLength(4);
  });

  it('410 Gone pauses at once', async () => {
    const path = `/gone-${unique()}`;
    const subscription = await webhooks().create(DEMO_OWNER, { url: receiver.endpoint(path, (response) => response.writeHead(410).end()), event_types: ['student.created'] });
    await students().create(DEMO_OWNER, { name: 'Gone Gil', email: `gil-${unique()}@example.test` });
    await deliverAll();
    expect(await webhooks().get(DEMO_OWNER, subscription.id)).toMatchObject({ status: 'paused', paused_reason: 'the endpoint answered 410 Gone' });
  });
});

// Each worker is a session of its own (its pool, its transactions, its row locks): the embedded
// PostgreSQL serves one session for every connection, so only a real one can show them.
describeIfPostgres('several workers, and a worker that dies', () => {
  /** A second replica's worker: its own pool on the same database. */
  function secondWorker(): { worker: DeliveryWorker; close(): Promise<void> } {
    const prisma = new PrismaService(server.config);
    return {
      worker: new DeliveryWorker(new DeliveryRepository(prisma), server.app.get(WebhookSecrets), server.config),
      close: () => prisma.onApplicationShutdown(),
    };
  }

  it('two workers deliver each of 40 events exactly once', async () => {
    const path = `/pair-${unique()}`;
    await webhooks().create(DEMO_OWNER, { url: receiver.endpoint(path), event_types: ['student.created'] });
    await Promise.all(Array.from({ length: 40 }, (_, i) => students().create(DEMO_OWNER, { name: `Pair ${i}`, email: `pair-${i}-${unique()}@example.test` })));
    const other = secondWorker();
    try {
      await Promise.all([deliverAll(worker), deliverAll(other.worker), deliverAll(worker), deliverAll(other.worker)]);
    } finally {
      await other.close();
    }
    const ids = receiver.to(path).map((received) => received.headers['webhook-id']);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });

  it('a worker killed mid-claim (its transaction never committed) loses nothing: the rows are taken by the next', async () => {
    const path = `/crash-${unique()}`;
    await webhooks().create(DEMO_OWNER, { url: receiver.endpoint(path), event_types: ['student.created'] });
    await students().create(DEMO_OWNER, { name: 'Crash Cam', email: `cam-${unique()}@example.test` });

    // A worker that took the outbox batch and died before committing: the rows are locked...
    const dying = new pg.Client({ connectionString: server.databaseUrl });
    await dying.connect();
    await dying.query('BEGIN');
    const taken = await dying.query(`SELECT id FROM event_outbox ORDER BY id FOR UPDATE SKIP LOCKED`);
    expect(taken.rowCount).toBeGreaterThan(0);
    // ...so another worker skips them rather than waiting or sending them twice,
    await deliverAll();
    expect(receiver.to(path)).toHaveLength(0);
    // and once its connection is gone (no commit) they are taken again.
    await dying.end();
    await deliverAll();
    expect(receiver.to(path)).toHaveLength(1);

    // A worker that claimed a due delivery in a transaction and died the same way: the claim never happened.
    await students().create(DEMO_OWNER, { name: 'Crash Cy', email: `cy-${unique()}@example.test` });
    await server.app.get(DeliveryRepository).dispatchOutbox(100);
    const dyingClaim = new pg.Client({ connectionString: server.databaseUrl });
    await dyingClaim.connect();
    await dyingClaim.query('BEGIN');
    await dyingClaim.query(`UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = next_attempt_at + interval '1 hour' WHERE status = 'pending'`);
    await dyingClaim.end();
    await deliverAll();
    expect(receiver.to(path)).toHaveLength(2);
  });

  it('a worker that died after its claim committed (mid-send): the delivery is due again when the lease ends, sent again with the same id', async () => {
    const path = `/lease-${unique()}`;
    await webhooks().create(DEMO_OWNER, { url: receiver.endpoint(path), event_types: ['student.created'] });
    await students().create(DEMO_OWNER, { name: 'Lease Lee', email: `lee-${unique()}@example.test` });
    const repository = server.app.get(DeliveryRepository);
    await repository.dispatchOutbox(100);
    const [claimed] = (await repository.claimDue(10, 60)).filter((delivery) => delivery.url.endsWith(path));
    expect(claimed.attempts).toBe(1);
    // Dead worker: nothing recorded. Within its lease nobody else takes the delivery.
    await deliverAll();
    expect(receiver.to(path)).toHaveLength(0);
    // The lease ends (the tests' clock), and the next worker delivers it.
    await db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() AT TIME ZONE 'UTC' - interval '1 second' WHERE id = $1`, [claimed.id]);
    await deliverAll();
    expect(receiver.to(path)).toHaveLength(1);
    expect(receiver.to(path)[0].headers['webhook-id']).toBe(claimed.eventId);
    // The dead worker, had it come back, records nothing over the newer attempt.
    expect(await repository.recordOutcome(claimed, { kind: 'retry', status: 500, error: 'late', delaySeconds: 1 })).toBe(false);
  });
});
