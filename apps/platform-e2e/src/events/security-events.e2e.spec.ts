/**
 * Security events through the origin (issue 31): what the authorization server records reaches
 * the resource server's audit log and the school owner's webhooks. An app signs in as the demo
 * owner, is approved and exchanges its code, then the owner disconnects it on the connected-apps
 * page; the sign-in, the consent, the tokens issued and the grant's end show
 * up in GET /api/v1/audit-log for the owner (and for no other school's owner) and are delivered,
 * signed, to the owner's endpoint subscribed to those types.
 *
 * Like webhooks.e2e.spec.ts, this suite starts its own platform with the test-only switches a
 * loopback receiver needs, refused in production (webhook-platform.ts).
 */
import { randomBytes } from 'node:crypto';
import { parse } from 'node-html-parser';
import * as oidc from 'openid-client';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO, OTHER, obtainTokens, registerClient } from '../support/oauth-client';
import { eventually, startWebhookPlatform, verifyWebhook, type WebhookPlatform } from './webhook-platform';

jest.setTimeout(240_000);

const SUBSCRIBED = ['auth.sign_in.succeeded', 'auth.consent.granted', 'auth.token.issued', 'auth.grant.revoked'];
/** What the app's sign-in, consent and code exchange cause; the Disconnect comes after. */
const FLOW = SUBSCRIBED.slice(0, 3);

let platform: WebhookPlatform;

beforeAll(async () => {
  platform = await startWebhookPlatform({ SECURITY_EVENTS_RELAY_INTERVAL_MS: '200' });
});

afterAll(() => platform?.stop());

interface AuditEntry {
  id: string;
  type: string;
  school_id: string | null;
  actor: { type: string; id: string | null };
  subject: { type: string; id: string } | null;
  client_id: string | null;
  address: string | null;
  request_id: string | null;
  outcome: string;
  data: Record<string, unknown>;
}

describe('security events through the origin', () => {
  it('a sign-in, a consent, a token exchange and a Disconnect on the connected-apps page reach the owner’s audit log and webhook, and no other school', async () => {
    const { origin, receiver, api } = platform;
    const ownerApp: oidc.Configuration = await registerClient('security events e2e: owner console');
    const owner = (await obtainTokens(ownerApp, 'webhooks:write audit_log:read')).access_token;
    const otherOwner = (await obtainTokens(ownerApp, 'audit_log:read', OTHER)).access_token;

    const path = `/security/${randomBytes(4).toString('hex')}`;
    const subscription = await api('/webhooks', owner, { method: 'POST', body: { url: receiver.endpoint(path), event_types: SUBSCRIBED } });
    expect(subscription.status).toBe(201);
    const secret = subscription.body['secret'] as string;

    // The flow under test, after the subscription: a new app signs in as the owner.
    const app: oidc.Configuration = await registerClient('security events e2e: the app');
    const appId = app.clientMetadata().client_id;
    await obtainTokens(app, 'openid courses:read');

    let entries: AuditEntry[] = [];
    await eventually(async () => {
      const page = await api(`/audit-log?client_id=${encodeURIComponent(appId)}`, owner);
      entries = (page.body['data'] as AuditEntry[] | undefined) ?? [];
      return FLOW.every((type) => entries.some((entry) => entry.type === type));
    }, 'the sign-in, the consent and the tokens in the audit log');
    const byType = (type: string) => entries.find((entry) => entry.type === type) as AuditEntry;
    expect(byType('auth.sign_in.succeeded')).toMatchObject({
      school_id: 'demo-school',
      actor: { type: 'user', id: expect.any(String) },
      client_id: appId,
      address: expect.any(String),
      request_id: expect.any(String),
      outcome: 'success',
      data: { method: 'password' },
    });
    const consent = byType('auth.consent.granted');
    expect(consent).toMatchObject({
      school_id: 'demo-school',
      actor: byType('auth.sign_in.succeeded').actor,
      subject: { type: 'grant', id: expect.any(String) },
      client_id: appId,
      data: { scope: 'openid courses:read', resource: origin, approval: 'form' },
    });
    expect(byType('auth.token.issued')).toMatchObject({
      school_id: 'demo-school',
      actor: { type: 'client', id: appId },
      subject: consent.subject,
      client_id: appId,
      data: { grant_type: 'authorization_code', scope: 'openid courses:read', resource: origin },
    });
    // Never a secret, a code or a token, under any name (a key naming one; the sign-in's method is the value "password").
    expect(JSON.stringify(entries)).not.toMatch(/"\w*(password|secret|code|token|assertion|cookie|verifier)":/i);

    // The owner disconnects the app on the connected-apps page: the grant ends, by the user.
    const browser = new BrowserLikeAgent(origin);
    const signIn = await browser.open(`${origin}/oauth/connected-apps`);
    const page = await browser.submit(signIn, { email: DEMO.email, password: DEMO.password });
    const section = parse(page.body).querySelectorAll('section').find((candidate) => candidate.querySelector('h2')?.text.trim() === 'security events e2e: the app');
    expect(section?.querySelector('h2')?.text.trim()).toBe('security events e2e: the app');
    const disconnected = await browser.submit({ ...page, body: section?.toString() ?? '' }, {}, 'Disconnect');
    expect(disconnected.url).toContain('disconnected=1');
    await eventually(async () => {
      const revoked = await api(`/audit-log?client_id=${encodeURIComponent(appId)}&type=auth.grant.revoked`, owner);
      return ((revoked.body['data'] as AuditEntry[] | undefined) ?? []).length === 1;
    }, 'the Disconnect in the audit log');
    const revoked = (await api(`/audit-log?client_id=${encodeURIComponent(appId)}&type=auth.grant.revoked`, owner)).body['data'] as AuditEntry[];
    expect(revoked[0]).toMatchObject({
      school_id: 'demo-school',
      actor: byType('auth.sign_in.succeeded').actor,
      subject: consent.subject,
      client_id: appId,
      data: { reason: 'disconnected' },
    });

    await eventually(
      () => SUBSCRIBED.every((type) => receiver.to(path).some((delivery) => JSON.parse(delivery.rawBody).type === type && JSON.parse(delivery.rawBody).client_id === appId)),
      'the four events delivered to the subscribed endpoint',
    );
    for (const delivery of receiver.to(path)) {
      const event = verifyWebhook(secret, delivery.headers, delivery.rawBody) as AuditEntry;
      expect(SUBSCRIBED).toContain(event.type);
      expect(event.school_id).toBe('demo-school');
      expect(delivery.headers['webhook-id']).toBe(event.id);
    }

    // Another school's owner: none of it.
    const other = await api(`/audit-log?client_id=${encodeURIComponent(appId)}`, otherOwner);
    expect(other).toEqual({ status: 200, body: { data: [], next_cursor: null } });
  });
});
