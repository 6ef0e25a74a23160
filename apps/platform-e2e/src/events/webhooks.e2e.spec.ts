/**
 * Webhooks through the origin (issue 31): a school owner subscribes an https endpoint with a
 * token from the real authorization server, an order is recorded through the API, and the
 * endpoint (a TLS receiver on the loopback) gets it signed: it verifies the delivery with the
 * documented recipe and with the Standard Webhooks library, answers 500 with Retry-After first
 * and sees the retry (same webhook-id) succeed. The owner lists the deliveries; another school's
 * owner sees none of it; the internal ingest is not reachable through the origin.
 *
 * Loopback endpoints need the test-only WEBHOOK_ALLOW_SPECIAL_USE_HOSTS and the receiver's test
 * CA (WEBHOOK_EXTRA_CA_FILE), both refused in production: this suite starts its own platform
 * with them (the launcher of `npm start`, as the global setup does), beside the shared one.
 */
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { Webhook } from 'standardwebhooks';
import { createTestTls, type TestTls } from '../../../../tools/test-support/test-tls';
import { OTHER, obtainTokens, registerClient } from '../support/oauth-client';
import { startPlatform, type RunningPlatform } from '../support/platform-process';
import { WebhookReceiver } from './webhook-receiver';

// The recipe the documentation gives integrators (Node, node:crypto only).
// eslint-disable-next-line @nx/enforce-module-boundaries
const { verifyWebhook } = require('../../../resource-server/src/webhooks/verify-webhook.example.cjs') as {
  verifyWebhook: (secret: string, headers: Record<string, unknown>, rawBody: string) => unknown;
};

jest.setTimeout(240_000);

let tls: TestTls;
let receiver: WebhookReceiver;
let platform: RunningPlatform;
let origin: string;
let sharedBaseUrl: string | undefined;

beforeAll(async () => {
  tls = createTestTls(['127.0.0.1']);
  receiver = await new WebhookReceiver(tls).start();
  platform = await startPlatform({
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOW_SPECIAL_USE_HOSTS: 'true',
    WEBHOOK_EXTRA_CA_FILE: tls.caFile,
    WEBHOOK_POLL_INTERVAL_MS: '200',
  });
  origin = platform.baseUrl;
  // The OAuth helpers talk to E2E_BASE_URL: this suite's platform while it runs.
  sharedBaseUrl = process.env['E2E_BASE_URL'];
  process.env['E2E_BASE_URL'] = origin;
});

afterAll(async () => {
  if (sharedBaseUrl === undefined) delete process.env['E2E_BASE_URL'];
  else process.env['E2E_BASE_URL'] = sharedBaseUrl;
  await platform?.stop();
  await receiver?.stop();
  tls?.cleanup();
});

async function api(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
  const response = await fetch(`${origin}/api/v1${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** Polls until `condition` holds (deliveries are asynchronous); fails after `deadlineMs`. */
async function eventually(condition: () => boolean | Promise<boolean>, what: string, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${deadlineMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('webhooks through the origin', () => {
  it('an order recorded through the API reaches the owner’s endpoint signed; 500 then 200; the owner lists the deliveries; another school sees none', async () => {
    const client: oidc.Configuration = await registerClient('webhooks e2e');
    const owner = (await obtainTokens(client, 'orders:write webhooks:write')).access_token;
    const otherOwner = (await obtainTokens(client, 'webhooks:write audit_log:read', OTHER)).access_token;

    const path = `/hooks/${randomBytes(4).toString('hex')}`;
    const url = receiver.endpoint(path, (response, attempt) =>
      attempt === 0 ? response.writeHead(500, { 'retry-after': '1' }).end('try again') : response.writeHead(200).end('ok'),
    );
    const created = await api('/webhooks', owner, { method: 'POST', body: { url, event_types: ['order.created', 'order.paid'] } });
    expect(created.status).toBe(201);
    const secret = created.body['secret'] as string;
    const webhookId = created.body['id'] as string;
    expect(secret).toMatch(/^whsec_/);
    expect((await api(`/webhooks/${webhookId}`, owner)).body['secret']).toBeUndefined();

    const courses = await fetch(`${origin}/api/v1/courses`).then((response) => response.json() as Promise<{ data: { id: string }[] }>);
    const order = await api('/orders', owner, {
      method: 'POST',
      body: { customer_email: 'e2e-buyer@example.test', items: [{ product_type: 'course', product_id: courses.data[0].id }] },
    });
    expect(order.status).toBe(201);

    await eventually(() => receiver.to(path).length >= 2, 'the delivery and its retry');
    const [first, retry] = receiver.to(path);
    for (const delivery of [first, retry]) {
      expect(verifyWebhook(secret, delivery.headers, delivery.rawBody)).toMatchObject({
        type: 'order.created',
        school_id: 'demo-school',
        subject: { type: 'order', id: order.body['id'] },
        data: order.body,
      });
      expect(new Webhook(secret).verify(delivery.rawBody, delivery.headers as Record<string, string>)).toMatchObject({ type: 'order.created' });
    }
    expect(retry.headers['webhook-id']).toBe(first.headers['webhook-id']);

    await eventually(async () => {
      const deliveries = await api(`/webhooks/${webhookId}/deliveries`, owner);
      return (deliveries.body['data'] as { status: string }[])[0]?.status === 'delivered';
    }, 'the delivery recorded as delivered');
    const deliveries = (await api(`/webhooks/${webhookId}/deliveries`, owner)).body['data'] as Record<string, unknown>[];
    expect(deliveries).toEqual([
      expect.objectContaining({ event_id: first.headers['webhook-id'], event_type: 'order.created', status: 'delivered', attempts: 2, last_status: 200 }),
    ]);

    // Another school's owner: nothing of it, by list or by id.
    expect((await api('/webhooks', otherOwner)).body).toEqual({ data: [], next_cursor: null });
    expect((await api(`/webhooks/${webhookId}`, otherOwner)).status).toBe(404);
    expect((await api(`/webhooks/${webhookId}/deliveries`, otherOwner)).status).toBe(404);
    expect((await api(`/webhooks/${webhookId}/deliveries/${deliveries[0]['id'] as string}/redeliver`, otherOwner, { method: 'POST' })).status).toBe(404);
  });

  it('the security-event ingest is not reachable through the origin', async () => {
    for (const target of ['/internal/security-events', '/%69nternal/security-events']) {
      const response = await fetch(`${origin}${target}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
      expect({ target, status: response.status }).toEqual({ target, status: 404 });
    }
  });
});
