/**
 * A client whose client_id is the URL of its metadata document, through the real auth server:
 * discovery says CIMD is supported; openid-client completes consent (the page shows the
 * client's host), the code exchange, a refresh, introspection and revocation; near-miss
 * redirect URIs and unusable documents get an error page or invalid_client, never a redirect
 * or a 500. The document is served over TLS by a local https server whose test CA only this
 * server's configuration trusts (CIMD_EXTRA_CA_FILE), on localhost (allowed by the test-only
 * CIMD_ALLOW_SPECIAL_USE_HOSTS).
 */
import * as oidc from 'openid-client';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO_USER, INTROSPECTION_CLIENT, startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';
import { DocumentHost } from './support/document-host';
import { createTestCertificates, type TestCertificates } from './support/test-ca';

jest.setTimeout(60_000);

let certs: TestCertificates;
let host: DocumentHost;
let server: TestAuthServer;
let clientId: string;
let callbackUri: string;
const insecure = { execute: [oidc.allowInsecureRequests] };

beforeAll(async () => {
  certs = createTestCertificates(['localhost']);
  host = await new DocumentHost(certs).start();
  callbackUri = host.url('localhost', '/api/mcp/auth_callback');
  clientId = host.json('localhost', '/oauth/mcp-oauth-client-metadata', (url: string) => ({
    client_id: url,
    client_name: 'Claude',
    redirect_uris: [callbackUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  }));
  server = await startTestAuthServer({ CIMD_ALLOW_SPECIAL_USE_HOSTS: 'true', CIMD_EXTRA_CA_FILE: certs.caFile });
});

afterAll(async () => {
  await server?.close();
  await host?.stop();
  certs?.cleanup();
});

async function introspect(token: string) {
  const response = await fetch(`${server.issuer}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret }),
  });
  return (await response.json()) as Record<string, unknown>;
}

it('discovery advertises client_id_metadata_document_supported: true', async () => {
  const metadata = (await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  expect(metadata.client_id_metadata_document_supported).toBe(true);
});

it('a client_id URL completes consent, code exchange, refresh, introspection and revocation', async () => {
  const config = await oidc.discovery(new URL(server.issuer), clientId, undefined, oidc.None(), insecure);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callbackUri,
    scope: 'openid profile offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
  const login = await agent.open(url.toString());
  expect(login.status).toBe(200);
  const consent = await agent.submit(login, { email: DEMO_USER.email, password: DEMO_USER.password });
  expect(consent.status).toBe(200);
  expect(consent.body).toContain(`Application published by <strong>localhost:${host.port}</strong>`);
  expect(consent.headers.get('content-security-policy')).toContain(`https://localhost:${host.port}`);
  const callback = await agent.submit(consent, {}, 'Approve');
  expect(callback.location?.startsWith(`${callbackUri}?`)).toBe(true);

  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback.location as string), { pkceCodeVerifier: verifier, expectedState: state });
  expect(await introspect(tokens.access_token)).toMatchObject({ active: true, client_id: clientId });
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
  expect(await introspect(refreshed.access_token)).toMatchObject({ active: true, client_id: clientId });
  await oidc.tokenRevocation(config, refreshed.refresh_token as string);
  expect(await introspect(refreshed.access_token)).toEqual({ active: false });
});

it('a near-miss redirect_uri gets an error page, not a redirect', async () => {
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: `${callbackUri}/`,
    response_type: 'code',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const response = await fetch(`${server.issuer}/oauth/authorize?${query}`, { redirect: 'manual' });
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
});

it('an unusable document: an error page at authorize, invalid_client at the token endpoint, never a 500', async () => {
  const broken = host.url('localhost', '/missing.json');
  const query = new URLSearchParams({ client_id: broken, redirect_uri: callbackUri, response_type: 'code', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
  const page = await fetch(`${server.issuer}/oauth/authorize?${query}`, { redirect: 'manual' });
  expect(page.status).toBe(401);
  expect(page.headers.get('location')).toBeNull();
  expect(await page.text()).toContain('HTTP 404');

  const token = await fetch(`${server.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x', client_id: broken, redirect_uri: callbackUri, code_verifier: 'v'.repeat(43) }),
  });
  expect(token.status).toBe(401);
  expect(await token.json()).toMatchObject({ error: 'invalid_client' });

  // RFC 6749 §5.2: a client that tried HTTP Basic MUST get WWW-Authenticate with the 401.
  const viaBasic = await fetch(`${server.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(broken)}:secret`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }),
  });
  expect(viaBasic.status).toBe(401);
  expect(viaBasic.headers.get('www-authenticate')).toMatch(/^Basic /);
  expect(await viaBasic.json()).toMatchObject({ error: 'invalid_client' });

  const http = await fetch(`${server.issuer}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: `http://localhost:${host.port}/c.json` }),
  });
  expect(http.status).toBe(401);
  expect(((await http.json()) as { error_description: string }).error_description).toContain('must use https');
});
