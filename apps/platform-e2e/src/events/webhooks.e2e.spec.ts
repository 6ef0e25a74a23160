/**
 * Webhooks through the origin (issue 31): a school owner subscribes an https endpoint with a
 * token from the real authorization server, an order is recorded through the API, and the
 * endpoint (a TLS receiver on the loopback) gets it signed: it verifies the delivery with the
 * documented recipe and with the Standard Webhooks library, answers 500 with Retry-After first
 * and sees the retry (same webhook-id) succeed. The owner lists the deliveries; another school's
 * owner sees none of it; the internal ingest is not reachable through the origin.
 *
 * Loopback endpoints need test-only switches refused in production: this suite starts its own
 * platform with them, beside the shared one (webhook-platform.ts).
 */
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { Webhook } from 'standardwebhooks';
import { OTHER, obtainTokens, registerClient } from '../support/oauth-client';
import { eventually, startWebhookPlatform, verifyWebhook, type WebhookPlatform } from './webhook-platform';

jest.setTimeout(240_000);

let platform: WebhookPlatform;

beforeAll(async () => {
  platform = await startWebhookPlatform();
});

afterAll(() => platform?.stop());

describe('webhooks through the origin', () => {
  it('an order recorded through the API reaches the owner’s endpoint signed; 500 then 200; the owner lists the deliveries; another school sees none', async () => {
    const { origin, receiver, api } = platform;
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
    const { origin } = platform;
    for (const target of ['/internal/security-events', '/%69nternal/security-events']) {
      const response = await fetch(`${origin}${target}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
      expect({ target, status: response.status }).toEqual({ target, status: 404 });
    }
  });
});
