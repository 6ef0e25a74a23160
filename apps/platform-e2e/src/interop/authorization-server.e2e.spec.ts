/**
 * The authorization server as clients nobody here wrote meet it, through the one origin:
 * openid-client (panva) and oauth4webapi (panva). Issue 10 items 4-8: scope rules and step-up,
 * offline_access, invalid_client for unknown clients, parallel refreshes and the reuse window,
 * revocation of a rotated refresh token, CORS, userinfo POST, discovery fields.
 * Each refusal is checked with its exact body and headers.
 */
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO, REDIRECT_URI } from '../support/oauth-client';
import { baseUrl } from '../support/platform';

jest.setTimeout(120_000);

const insecure = { execute: [oidc.allowInsecureRequests] };
/** What the platform runs with (the default unless the launcher's environment sets it). */
const REUSE_WINDOW_SECONDS = Number(process.env['REFRESH_REUSE_GRACE_SECONDS'] ?? 30);

const INVALID_CLIENT = { error: 'invalid_client', error_description: 'Client authentication failed' };
const INVALID_REFRESH = { error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or revoked' };

function register(metadata: Record<string, unknown> = {}): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(baseUrl()),
    { client_name: 'interop e2e', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata },
    oidc.None(),
    insecure,
  );
}

/** The code flow with openid-client; the user signs in and approves. `scope` undefined: none sent. */
async function signIn(config: oidc.Configuration, scope: string | undefined, onConsent?: (html: string) => void) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    ...(scope === undefined ? {} : { scope }),
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const agent = new BrowserLikeAgent(baseUrl());
  const login = await agent.open(url.toString());
  const consent = await agent.submit(login, { email: DEMO.email, password: DEMO.password });
  // A consent this user gave the client before is remembered: the code comes at once, no page.
  if (!consent.location) onConsent?.(consent.body);
  const callback = consent.location ? consent : await agent.submit(consent, {}, 'Approve');
  if (!callback.location) throw new Error(`no redirect after consent: ${callback.status} ${callback.body.slice(0, 300)}`);
  return oidc.authorizationCodeGrant(config, new URL(callback.location), { pkceCodeVerifier: verifier, expectedState: state });
}

async function post(path: string, form: Record<string, string>): Promise<Response> {
  return fetch(`${baseUrl()}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
}

async function userinfoStatus(accessToken: string): Promise<number> {
  return (await fetch(`${baseUrl()}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
}

describe('scope rules (the registered scope is a default, consent grants)', () => {
  it('step-up: a client registered with scope A re-authorizes for A+B and gets it', async () => {
    const config = await register({ scope: 'openid students:read' });
    const first = await signIn(config, 'openid students:read');
    expect(first.scope).toBe('openid students:read');
    const stepUp = await signIn(config, 'openid students:read orders:read');
    expect(stepUp.scope).toBe('openid students:read orders:read');
  });

  it('a request without scope gets the registered scope', async () => {
    const config = await register({ scope: 'openid students:read' });
    expect((await signIn(config, undefined)).scope).toBe('openid students:read');
  });

  it('a request without scope from a client that registered none gets the least-privilege default: openid profile', async () => {
    const config = await register();
    expect(config.clientMetadata().scope).toBeUndefined();
    expect((await signIn(config, undefined)).scope).toBe('openid profile');
  });

  it('offline_access is accepted, shown as "Stay signed in", and a refresh token is issued', async () => {
    const config = await register({ scope: 'openid offline_access' });
    let consentPage = '';
    const tokens = await signIn(config, 'openid offline_access', (html) => (consentPage = html));
    expect(consentPage).toContain('Stay signed in: keep access while you are away, until you revoke it');
    expect(consentPage).toContain('<code>offline_access</code>');
    expect(tokens.scope).toBe('openid offline_access');
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });
});

describe('client authentication at the token endpoint', () => {
  it('an unknown client redeeming a code gets 401 invalid_client (openid-client sees the error)', async () => {
    const registered = await register();
    const stranger = new oidc.Configuration(registered.serverMetadata(), 'no-such-client-0123456789', undefined, oidc.None());
    oidc.allowInsecureRequests(stranger);
    const callback = new URL(`${REDIRECT_URI}?code=some-code-0123456789abcdef&iss=${encodeURIComponent(baseUrl())}`);
    await expect(oidc.authorizationCodeGrant(stranger, callback, { pkceCodeVerifier: oidc.randomPKCECodeVerifier() })).rejects.toMatchObject({
      name: 'ResponseBodyError',
      status: 401,
      error: INVALID_CLIENT.error,
      error_description: INVALID_CLIENT.error_description,
    });

    const raw = await post('/api/oauth/token', {
      grant_type: 'authorization_code',
      code: 'some-code-0123456789abcdef',
      redirect_uri: REDIRECT_URI,
      code_verifier: oidc.randomPKCECodeVerifier(),
      client_id: 'no-such-client-0123456789',
    });
    expect(raw.status).toBe(401);
    expect(await raw.json()).toEqual(INVALID_CLIENT);
    expect(raw.headers.get('cache-control')).toBe('no-store');
    expect(raw.headers.get('www-authenticate')).toBeNull();
  });

  it('no client_id at all is 401 invalid_client too (RFC 6749 §5.2), with a Basic challenge when Basic was tried', async () => {
    const none = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43) });
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual(INVALID_CLIENT);
    const basic = await fetch(`${baseUrl()}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('nobody:secret').toString('base64')}` },
      body: 'grant_type=refresh_token&refresh_token=abc',
    });
    expect(basic.status).toBe(401);
    expect(await basic.json()).toEqual(INVALID_CLIENT);
    expect(basic.headers.get('www-authenticate')).toBe('Basic realm="oauth", charset="UTF-8"');
  });
});

describe('refresh tokens (rotation with a reuse window)', () => {
  let config: oidc.Configuration;

  beforeAll(async () => {
    config = await register({ scope: 'openid students:read' });
  });

  it('two refreshes with one refresh token in parallel both succeed, and the grant lives', async () => {
    const tokens = await signIn(config, undefined);
    const [first, second] = await Promise.all([
      oidc.refreshTokenGrant(config, tokens.refresh_token as string),
      oidc.refreshTokenGrant(config, tokens.refresh_token as string),
    ]);
    expect(first.refresh_token).not.toBe(second.refresh_token);
    for (const pair of [first, second]) {
      expect(await userinfoStatus(pair.access_token)).toBe(200);
      // Each process goes on refreshing with the token it holds.
      await expect(oidc.refreshTokenGrant(config, pair.refresh_token as string)).resolves.toMatchObject({ scope: 'openid students:read' });
    }
  });

  it('revoking a refresh token already rotated out ends the grant', async () => {
    const tokens = await signIn(config, undefined);
    const current = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    await oidc.tokenRevocation(config, tokens.refresh_token as string, { token_type_hint: 'refresh_token' });

    const refused = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: current.refresh_token as string, client_id: config.clientMetadata().client_id });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(INVALID_REFRESH);
    const userinfo = await fetch(`${baseUrl()}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${current.access_token}` } });
    expect(userinfo.status).toBe(401);
    expect(await userinfo.json()).toEqual({ error: 'invalid_token', error_description: 'The access token is invalid, expired or revoked' });
    expect(userinfo.headers.get('www-authenticate')).toBe(
      // RFC 9449 §7.1: the DPoP scheme offered beside Bearer, the error in the scheme the request used.
      'Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked", DPoP algs="ES256 ES384 ES512 RS256 RS384 RS512 PS256 PS384 PS512 EdDSA Ed25519"',
    );
  });

  // A late presentation from elsewhere revokes the grant (RFC 9700 §4.14.2): the auth server's
  // stale-sessions.e2e shows it with distinct addresses; through one origin every request here
  // comes from one address, the case of an agent CLI's second session.
  it(`a replay after the window (${REUSE_WINDOW_SECONDS} s) from the address that rotated the token is refused, and the grant lives`, async () => {
    const tokens = await signIn(config, undefined);
    const current = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    // Wait the window out: the platform under test runs as configured, so no clock can be moved.
    await new Promise((resolve) => setTimeout(resolve, (REUSE_WINDOW_SECONDS + 1) * 1000));

    const stale = await post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: config.clientMetadata().client_id });
    expect(stale.status).toBe(400);
    expect(await stale.json()).toEqual(INVALID_REFRESH);
    expect(stale.headers.get('cache-control')).toBe('no-store');
    expect(await userinfoStatus(current.access_token)).toBe(200);
    await expect(oidc.refreshTokenGrant(config, current.refresh_token as string)).resolves.toMatchObject({ token_type: 'bearer' });
  });
});

describe('standards details real clients enforce', () => {
  it('userinfo answers 200 to POST (OpenID Connect Core §5.3.1), accepted by oauth4webapi', async () => {
    const config = await register({ scope: 'openid profile email' });
    const tokens = await signIn(config, 'openid profile email');
    const as = await oauth.processDiscoveryResponse(
      new URL(baseUrl()),
      await oauth.discoveryRequest(new URL(baseUrl()), { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }),
    );
    const client: oauth.Client = { client_id: config.clientMetadata().client_id };
    const response = await oauth.protectedResourceRequest(tokens.access_token, 'POST', new URL(as.userinfo_endpoint as string), new Headers(), null, {
      [oauth.allowInsecureRequests]: true,
    });
    expect(response.status).toBe(200);
    const sub = tokens.claims()?.sub as string;
    await expect(oauth.processUserInfoResponse(as, client, sub, response)).resolves.toMatchObject({ sub, email: DEMO.email });
    // And GET, with oauth4webapi's own request.
    const get = await oauth.userInfoRequest(as, client, tokens.access_token, { [oauth.allowInsecureRequests]: true });
    await expect(oauth.processUserInfoResponse(as, client, sub, get)).resolves.toMatchObject({ sub });
  });

  it('discovery: request_uri_parameter_supported is false; offline_access is in scopes_supported', async () => {
    const as = await oauth.processDiscoveryResponse(
      new URL(baseUrl()),
      await oauth.discoveryRequest(new URL(baseUrl()), { algorithm: 'oidc', [oauth.allowInsecureRequests]: true }),
    );
    expect(as['request_uri_parameter_supported']).toBe(false);
    expect(as.scopes_supported).toContain('offline_access');
    const oauthMetadata = (await (await fetch(`${baseUrl()}/.well-known/oauth-authorization-server`)).json()) as { scopes_supported: string[] };
    expect(oauthMetadata.scopes_supported).toHaveLength(43);
    expect(oauthMetadata.scopes_supported.at(-1)).toBe('offline_access');
    // offline_access is the authorization server's: no protected resource lists it.
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const resource = (await (await fetch(`${baseUrl()}${path}`)).json()) as { scopes_supported: string[] };
      expect(resource.scopes_supported).not.toContain('offline_access');
    }
  });

  it('error_description stays within RFC 6749 §5.2 (no quote, no backslash, ASCII) in bodies and headers', async () => {
    const registration = await fetch(`${baseUrl()}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
    });
    expect(registration.status).toBe(400);
    expect(await registration.json()).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'redirect_uris[0] must use http on a loopback address (RFC 8252 section 7.3); https and custom schemes are not accepted',
    });
    const malformed = await fetch(`${baseUrl()}/api/oauth/userinfo`, { headers: { authorization: 'Bearer "quoted"' } });
    expect(malformed.status).toBe(400);
    const body = (await malformed.json()) as { error_description: string };
    expect(body).toEqual({ error: 'invalid_request', error_description: "The Authorization header must be 'Bearer <token>'" });
    // The same description in the challenge: a single quote is within RFC 6749 §5.2's characters.
    expect(malformed.headers.get('www-authenticate')).toBe(`Bearer error="invalid_request", error_description="The Authorization header must be 'Bearer <token>'"`);
  });
});

describe('CORS for browser-based clients, through the origin', () => {
  const ORIGIN = 'http://localhost:6274';
  const open: [string, string][] = [
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/openid-configuration'],
    ['GET', '/.well-known/jwks.json'],
    ['POST', '/api/oauth/register'],
    ['POST', '/api/oauth/token'],
    ['POST', '/api/oauth/revoke'],
    ['GET', '/api/oauth/userinfo'],
    ['POST', '/api/oauth/userinfo'],
  ];

  it.each(open)('%s %s: preflight and answer for any origin, without credentials', async (method, path) => {
    const preflight = await fetch(`${baseUrl()}${path}`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, MCP-Protocol-Version, DPoP');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const answer = await fetch(`${baseUrl()}${path}`, { method, headers: { origin: ORIGIN }, ...(method === 'POST' ? { body: '' } : {}) });
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-expose-headers')).toBe('WWW-Authenticate, Retry-After, DPoP-Nonce');
  });

  it.each([
    ['GET', '/oauth/authorize'],
    ['POST', '/oauth/authorize/login'],
    ['POST', '/oauth/authorize/consent'],
    ['POST', '/api/oauth/introspect'],
  ])('%s %s: no CORS header, no preflight', async (method, path) => {
    const preflight = await fetch(`${baseUrl()}${path}`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': method } });
    expect(preflight.status).toBe(404);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const answer = await fetch(`${baseUrl()}${path}`, { method, headers: { origin: ORIGIN }, redirect: 'manual' });
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});
