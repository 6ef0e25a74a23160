/**
 * Each security event recorded by the real flow that causes it: the authorization server on a
 * real port and database, driven over HTTP by openid-client and a browser-like agent (sign-in,
 * consent, code exchange, revocation, the connected-apps page), by the clients CLI and by the
 * metadata-document clients' repository; what it recorded is read from its outbox (the relay is
 * off: what it sends is security-events-relay.db.spec.ts's). Sign-ins and consents:
 * also authorize.service.spec.ts and accounts.service.spec.ts.
 */
import { type SecurityEvent } from '@platform/contracts';
import * as oidc from 'openid-client';
import { parse } from 'node-html-parser';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO_USER, startTestAuthServer, type TestAuthServer } from '../../test/support/test-auth-server';
import { runClientsCli } from '../cli/clients-cli';
import type { MetadataDocumentClient } from '../client-metadata-documents/document-validation';
import { MetadataDocumentClientsRepository } from '../client-metadata-documents/metadata-document-clients.repository';
import { PrismaService } from '../database/prisma.service';

jest.setTimeout(120_000);

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

let server: TestAuthServer;
let prisma: PrismaService;

beforeAll(async () => {
  server = await startTestAuthServer({
    SECURITY_EVENTS_RELAY_ENABLED: 'false',
    RATE_LIMITS_ENABLED: 'true',
    RATE_LIMIT_REGISTRATION_PER_IP: '4',
    LOGIN_FREE_FAILURES_PER_ACCOUNT: '2',
  });
  prisma = server.app.get(PrismaService);
});

afterAll(async () => {
  await server?.close();
});

/** The events recorded since `since` (ids are time-ordered), oldest first. */
async function recordedSince(since: string): Promise<SecurityEvent[]> {
  const rows = await prisma.securityEventOutbox.findMany({ where: { id: { gt: since } }, orderBy: { id: 'asc' } });
  return rows.map((row) => JSON.parse(row.payload) as SecurityEvent);
}

/** A mark before the next flow: events after it are the flow's. */
async function mark(): Promise<string> {
  const last = await prisma.securityEventOutbox.findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
  return last?.id ?? '';
}

async function register(name: string): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(server.issuer),
    { client_name: name, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
    oidc.None(),
    insecure,
  );
}

/** A code flow in `agent`: signs in (when asked), answers the consent page with `decision`, exchanges the code when approved. */
async function codeFlow(agent: BrowserLikeAgent, config: oidc.Configuration, scope: string, decision: 'Approve' | 'Deny' = 'Approve') {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'consent',
  });
  let page = await agent.open(url.toString());
  if (page.body.includes('name="password"')) page = await agent.submit(page, { email: DEMO_USER.email, password: DEMO_USER.password });
  const callback = await agent.submit(page, {}, decision);
  if (decision === 'Deny') return undefined;
  return oidc.authorizationCodeGrant(config, new URL(callback.location as string), { pkceCodeVerifier: verifier, expectedState: state });
}

const demoUserId = () => prisma.user.findUniqueOrThrow({ where: { email: DEMO_USER.email } }).then((user) => user.id);

describe('security events recorded by their flows', () => {
  it('a registration (platform-wide, with its client and address)', async () => {
    const since = await mark();
    const client = await register('Lesson Planner');
    expect(await recordedSince(since)).toEqual([
      expect.objectContaining({
        type: 'auth.client.registered',
        school_id: null,
        actor: { type: 'client', id: client.clientMetadata().client_id },
        client_id: client.clientMetadata().client_id,
        address: '127.0.0.1',
        request_id: expect.any(String),
        data: { client_name: 'Lesson Planner', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      }),
    ]);
  });

  it('a sign-in, an approval and the tokens it issued, for the user’s school; a denial', async () => {
    const client = await register('Quiz Grader');
    const clientId = client.clientMetadata().client_id;
    const userId = await demoUserId();
    const since = await mark();
    const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
    await codeFlow(agent, client, 'openid courses:read');
    await codeFlow(agent, client, 'openid courses:write', 'Deny');

    const events = await recordedSince(since);
    expect(events.map((event) => event.type)).toEqual(['auth.sign_in.succeeded', 'auth.consent.granted', 'auth.token.issued', 'auth.consent.denied']);
    for (const event of events) expect(event).toMatchObject({ school_id: 'demo-school', client_id: clientId, request_id: expect.any(String) });
    const [signIn, granted, issued, denied] = events;
    expect(signIn).toMatchObject({ actor: { type: 'user', id: userId }, address: '127.0.0.1', data: { method: 'password' } });
    expect(granted).toMatchObject({ actor: { type: 'user', id: userId }, subject: { type: 'grant' }, data: { scope: 'openid courses:read', approval: 'form' } });
    expect(issued).toMatchObject({ actor: { type: 'client', id: clientId }, subject: granted.subject, data: { grant_type: 'authorization_code', scope: 'openid courses:read', user_id: userId } });
    // The consent page asks for what the client already holds with what it adds: the denial names that whole scope.
    expect(denied).toMatchObject({ actor: { type: 'user', id: userId }, outcome: 'failure', data: { scope: 'openid courses:read courses:write' } });
    // One request per sign-in, approval, exchange, denial.
    expect(new Set(events.map((event) => event.request_id)).size).toBe(4);
  });

  it('a client’s revocation (RFC 7009), a user’s Disconnect, and staff disabling an integration', async () => {
    const client = await register('Report Builder');
    const clientId = client.clientMetadata().client_id;
    const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
    const first = await codeFlow(agent, client, 'openid offline_access');
    await codeFlow(agent, client, 'openid offline_access');
    let since = await mark();

    await oidc.tokenRevocation(client, first?.refresh_token as string);
    expect(await recordedSince(since)).toEqual([
      expect.objectContaining({ type: 'auth.token.revoked', school_id: 'demo-school', actor: { type: 'client', id: clientId }, data: expect.objectContaining({ token_type: 'refresh_token', grant_ended: true }) }),
    ]);

    since = await mark();
    const page = await agent.open(`${server.issuer}/oauth/connected-apps`);
    const section = parse(page.body).querySelectorAll('section').find((s) => s.querySelector('h2')?.text.trim() === 'Report Builder');
    await agent.submit({ ...page, body: section?.toString() ?? '' }, {}, 'Disconnect');
    expect(await recordedSince(since)).toEqual([
      expect.objectContaining({ type: 'auth.grant.revoked', school_id: 'demo-school', actor: { type: 'user', id: await demoUserId() }, client_id: clientId, data: expect.objectContaining({ reason: 'disconnected' }) }),
    ]);

    since = await mark();
    const env = { AUTH_DATABASE_URL: server.config.database.url };
    const io = { out: () => undefined, err: () => undefined };
    let integration: { clientId: string } | undefined;
    const created = await runClientsCli(['create', '--name', 'Acme LMS', '--redirect-uri', 'https://lms.acme.example/cb', '--json'], env, {
      out: (line) => (integration = JSON.parse(line) as { clientId: string }),
      err: () => undefined,
    });
    expect(created).toBe(0);
    await codeFlowAsIntegration(agent, integration?.clientId as string);
    expect(await runClientsCli(['disable', integration?.clientId as string], env, io)).toBe(0);
    const staffEvents = (await recordedSince(since)).filter((event) => event.actor.type === 'staff');
    expect(staffEvents.map((event) => [event.type, event.school_id, event.client_id, event.data['action'] ?? event.data['reason']])).toEqual([
      ['auth.integration.changed', null, integration?.clientId, 'created'],
      ['auth.integration.changed', null, integration?.clientId, 'disabled'],
      ['auth.grant.revoked', 'demo-school', integration?.clientId, 'integration_disabled'],
    ]);
  });

  it('a metadata-document client stored for the first time, and not when seen again', async () => {
    const since = await mark();
    const repository = server.app.get(MetadataDocumentClientsRepository);
    const document = {
      id: 'https://agent.example.com/client.json',
      host: 'agent.example.com',
      name: 'Hosted Agent',
      applicationType: 'web' as const,
      redirectUris: ['https://agent.example.com/callback'],
      tokenEndpointAuthMethod: 'none' as const,
      keys: null,
      grantTypes: ['authorization_code' as const],
      responseTypes: ['code' as const],
      scope: '',
      loopbackOnly: false,
    } as MetadataDocumentClient;
    await repository.saveFetchedDocument(document, new Date());
    await repository.saveFetchedDocument(document, new Date());
    expect(await recordedSince(since)).toEqual([
      expect.objectContaining({
        type: 'auth.client.metadata_document_first_seen',
        school_id: null,
        actor: { type: 'client', id: document.id },
        data: { host: 'agent.example.com', client_name: 'Hosted Agent' },
      }),
    ]);
  });

  it('a rate limit’s first refusal of a caller, not the ones after it', async () => {
    const since = await mark();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await fetch(`${server.issuer}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'flood', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
      });
      statuses.push(response.status);
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(2);
    const trips = (await recordedSince(since)).filter((event) => event.type === 'auth.rate_limit.exceeded');
    expect(trips).toEqual([
      expect.objectContaining({ school_id: null, actor: { type: 'system', id: null }, address: '127.0.0.1', outcome: 'failure', data: { limit: 'register:ip', retry_after_seconds: expect.any(Number) } }),
    ]);
  });

  // Last: the lock it starts would hold up the other flows' sign-ins.
  it('failed sign-ins and the lock they start, never with the password or the email typed', async () => {
    const since = await mark();
    const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
    const page = await agent.open(`${server.issuer}/oauth/connected-apps`);
    for (let i = 0; i < 3; i++) await agent.submit(page, { email: DEMO_USER.email, password: `wrong-password-${i}` });
    await agent.submit(page, { email: 'nobody@academy.test', password: 'wrong-password-x' });
    const events = await recordedSince(since);
    expect(events.map((event) => [event.type, event.school_id, event.data])).toEqual([
      ['auth.sign_in.failed', 'demo-school', { reason: 'wrong_password' }],
      ['auth.sign_in.failed', 'demo-school', { reason: 'wrong_password' }],
      ['auth.sign_in.failed', 'demo-school', { reason: 'wrong_password' }],
      ['auth.sign_in.throttled', 'demo-school', { scope: 'account', retry_after_seconds: 1 }],
      ['auth.sign_in.failed', null, { reason: 'unknown_account' }],
    ]);
    expect(JSON.stringify(events)).not.toMatch(/wrong-password|nobody@|demo@/);
  });
});

/** The integration's one authorization by the demo user (so that disabling it ends a grant). */
async function codeFlowAsIntegration(agent: BrowserLikeAgent, clientId: string): Promise<void> {
  const url = new URL(`${server.issuer}/oauth/authorize`);
  const verifier = oidc.randomPKCECodeVerifier();
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'https://lms.acme.example/cb',
    scope: 'openid',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 'integration',
    prompt: 'consent',
  }).toString();
  const page = await agent.open(url.toString());
  if (!page.body.includes('Approve')) throw new Error(parse(page.body).querySelector('main')?.text ?? page.body);
  const callback = await agent.submit(page, {}, 'Approve');
  expect(callback.location).toContain('code=');
}
