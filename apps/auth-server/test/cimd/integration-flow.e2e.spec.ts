/**
 * A registered integration created with the staff CLI completes the code flow with its exact
 * https redirect URI and its secret; a near miss is refused; the ceiling holds; disabling it
 * ends its tokens and refuses it everywhere.
 */
import * as oidc from 'openid-client';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { runClientsCli } from '../../src/cli/clients-cli';
import { DEMO_USER, INTROSPECTION_CLIENT, startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';

jest.setTimeout(60_000);

const CALLBACK = 'https://lms.acme.example/oauth/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };
let server: TestAuthServer;

beforeAll(async () => {
  server = await startTestAuthServer();
});
afterAll(async () => server?.close());

async function clients(...argv: string[]) {
  const out: string[] = [];
  // The CLI tells running services over the same bus they listen on (without it, they learn late).
  const env = { AUTH_DATABASE_URL: server.config.database.url, ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}) };
  const status = await runClientsCli(argv, env, { out: (l) => out.push(l), err: (l) => out.push(l) });
  return { status, out: out.join('\n') };
}

async function introspect(token: string) {
  const response = await fetch(`${server.issuer}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret }),
  });
  return (await response.json()) as Record<string, unknown>;
}

it('completes the code flow with its exact https redirect URI; near misses and scopes beyond the ceiling are refused; disable ends it', async () => {
  const created = await clients('create', '--name', 'Acme LMS', '--redirect-uri', CALLBACK, '--scope-ceiling', 'openid profile', '--json');
  expect(created.status).toBe(0);
  const { clientId, clientSecret } = JSON.parse(created.out);
  const config = await oidc.discovery(new URL(server.issuer), clientId, undefined, oidc.ClientSecretBasic(clientSecret), insecure);

  const verifier = oidc.randomPKCECodeVerifier();
  const challenge = await oidc.calculatePKCECodeChallenge(verifier);
  const request = (params: Record<string, string>) =>
    oidc.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid profile', code_challenge: challenge, code_challenge_method: 'S256', state: 's', ...params });

  const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
  const login = await agent.open(request({}).toString());
  const consent = await agent.submit(login, { email: DEMO_USER.email, password: DEMO_USER.password });
  expect(consent.headers.get('content-security-policy')).toContain('https://lms.acme.example');
  const callback = await agent.submit(consent, {}, 'Approve');
  expect(callback.location?.startsWith(`${CALLBACK}?code=`)).toBe(true);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback.location as string), { pkceCodeVerifier: verifier, expectedState: 's' });
  expect(await introspect(tokens.access_token)).toMatchObject({ active: true, client_id: clientId });

  for (const nearMiss of [`${CALLBACK}/`, 'https://lms.acme.example/oauth/callback?x=1', 'https://LMS.acme.example/oauth/callback', 'http://lms.acme.example/oauth/callback']) {
    const page = await agent.open(request({ redirect_uri: nearMiss }).toString());
    expect(page.status).toBe(400);
    expect(page.location).toBeUndefined();
  }

  const beyond = await agent.open(request({ scope: 'openid courses:read' }).toString());
  expect(new URL(beyond.location as string).searchParams.get('error')).toBe('invalid_scope');

  expect((await clients('disable', clientId)).status).toBe(0);
  expect(await introspect(tokens.access_token)).toEqual({ active: false });
  const disabled = await agent.open(request({}).toString());
  expect(disabled.status).toBe(400);
  await expect(oidc.refreshTokenGrant(config, tokens.refresh_token ?? 'x')).rejects.toMatchObject({ status: 401 });
});
