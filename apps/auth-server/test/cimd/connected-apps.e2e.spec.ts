/**
 * The connected-apps page through the real HTTP server (the auth server as started in
 * production): two code flows by
 * openid-client, then the page lists both, Disconnect ends one app's tokens at once, CSRF
 * and sessions are enforced, and sign-out works.
 */
import * as oidc from 'openid-client';
import { parse } from 'node-html-parser';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO_USER, INTROSPECTION_CLIENT, startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';

jest.setTimeout(60_000);

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };
let server: TestAuthServer;

beforeAll(async () => {
  server = await startTestAuthServer();
});

afterAll(async () => {
  await server?.close();
});

async function register(name: string): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(server.issuer),
    { client_name: name, redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
    oidc.None(),
    insecure,
  );
}

/** One code flow in `agent` (signing in when the agent has no session yet). */
async function tokensFor(agent: BrowserLikeAgent, config: oidc.Configuration, scope: string) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  let page = await agent.open(url.toString());
  if (page.body.includes('name="password"')) page = await agent.submit(page, { email: DEMO_USER.email, password: DEMO_USER.password });
  const callback = await agent.submit(page, {}, 'Approve');
  return oidc.authorizationCodeGrant(config, new URL(callback.location as string), { pkceCodeVerifier: verifier, expectedState: state });
}

async function introspect(token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.issuer}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret }),
  });
  return (await response.json()) as Record<string, unknown>;
}

const appHeadings = (html: string) => parse(html).querySelectorAll('section h2').map((h) => h.text.trim());

describe('connected apps', () => {
  it('lists both apps after two flows; Disconnect ends one app at once and leaves the other', async () => {
    const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
    const planner = await register('Lesson Planner');
    const grader = await register('Quiz Grader');
    const plannerTokens = await tokensFor(agent, planner, 'openid profile offline_access');
    const graderTokens = await tokensFor(agent, grader, 'openid profile');

    const page = await agent.open(`${server.issuer}/oauth/connected-apps`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(appHeadings(page.body).sort()).toEqual(['Lesson Planner', 'Quiz Grader']);
    const root = parse(page.body);
    const plannerSection = root.querySelectorAll('section').find((s) => s.querySelector('h2')?.text.trim() === 'Lesson Planner');
    expect(plannerSection?.querySelector('code')?.text).toBe(planner.clientMetadata().client_id);
    expect(plannerSection?.querySelectorAll('ul.scopes code').map((c) => c.text)).toEqual(expect.arrayContaining(['openid', 'profile']));
    expect(plannerSection?.querySelectorAll('time')).toHaveLength(2);
    expect(page.body).toContain(`Signed in as`);

    const after = await agent.submit(
      { ...page, body: plannerSection?.toString() ?? '' },
      {},
      'Disconnect',
    );
    expect(after.status).toBe(200);
    expect(after.url).toContain('disconnected=1');
    expect(after.body).toContain('The application was disconnected');
    expect(appHeadings(after.body)).toEqual(['Quiz Grader']);

    // At once: introspection (what the resource server asks) says inactive, refresh is refused.
    expect(await introspect(plannerTokens.access_token)).toEqual({ active: false });
    await expect(oidc.refreshTokenGrant(planner, plannerTokens.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(await introspect(graderTokens.access_token)).toMatchObject({ active: true, client_id: grader.clientMetadata().client_id });
  });

  it('refuses a Disconnect without the page token (CSRF) and a Disconnect of an app the user never authorized', async () => {
    const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
    const app = await register('Attendance Bot');
    const tokens = await tokensFor(agent, app, 'openid');
    const page = await agent.open(`${server.issuer}/oauth/connected-apps`);
    const section = parse(page.body).querySelectorAll('section').find((s) => s.querySelector('h2')?.text.trim() === 'Attendance Bot');

    const forged = await agent.submit({ ...page, body: section?.toString() ?? '' }, { _csrf: 'forged.token' }, 'Disconnect');
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('This form expired');
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true });

    const other = await agent.submit({ ...page, body: section?.toString() ?? '' }, { client_id: 'someone-elses-client' }, 'Disconnect');
    expect(other.status).toBe(200);
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true });
  });

  it('signed out: a sign-in form of its own; sign-in shows the list, Sign out ends the session', async () => {
    const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
    const login = await agent.open(`${server.issuer}/oauth/connected-apps`);
    expect(login.status).toBe(200);
    expect(login.body).toContain('name="password"');
    const wrong = await agent.submit(login, { email: DEMO_USER.email, password: 'wrong-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('Email or password is incorrect');
    const signedIn = await agent.submit(wrong, { email: DEMO_USER.email, password: DEMO_USER.password });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body).toContain('<h1>Connected apps</h1>');

    const signedOut = await agent.submit(signedIn, {}, 'Sign out');
    expect(signedOut.status).toBe(200);
    expect(signedOut.body).toContain('name="password"');
    const again = await agent.open(`${server.issuer}/oauth/connected-apps`);
    expect(again.body).not.toContain('<h1>Connected apps</h1>');
  });

  it('a Disconnect without a session gets the sign-in form (401), never an action', async () => {
    const response = await fetch(`${server.issuer}/oauth/connected-apps/disconnect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'x', _csrf: 'y.z' }),
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain('Your session has ended');
  });
});
