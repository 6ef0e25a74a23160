/**
 * The whole OAuth 2.0 / OpenID Connect life cycle driven through the real HTTP server by
 * openid-client, a standard client library nobody here wrote: discovery, registration,
 * authorization with login and consent, code exchange with iss and ID token checks,
 * userinfo, refresh with rotation, revocation, introspection — and every refusal.
 */
import * as oidc from 'openid-client';
import { BrowserLikeAgent } from '../../../tools/test-support/browser-like-agent';
import { EXPECTED_ERRORS } from './support/expected-errors';
import { rotatedBeyondReuseWindow } from './support/refresh-window';
import { DEMO_USER, INTROSPECTION_CLIENT, startTestAuthServer, type TestAuthServer } from './support/test-auth-server';

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

async function registerPublicClient(metadata: Partial<oidc.ClientMetadata> = {}): Promise<oidc.Configuration> {
  return oidc.dynamicClientRegistration(
    new URL(server.issuer),
    { client_name: 'Lesson Planner CLI', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata },
    oidc.None(),
    insecure,
  );
}

interface AuthorizationAttempt {
  verifier: string;
  state: string;
  nonce: string;
  url: URL;
}

async function authorizationRequest(
  config: oidc.Configuration,
  params: Record<string, string> = {},
): Promise<AuthorizationAttempt> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email students:read',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    // Each flow here goes through the consent page (an approval is remembered otherwise).
    prompt: 'consent',
    ...params,
  });
  return { verifier, state, nonce, url };
}

/** Opens the authorization URL, signs in, and approves or denies on the consent page. */
async function authorize(attempt: AuthorizationAttempt, decision: 'Approve' | 'Deny' = 'Approve') {
  const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
  const login = await agent.open(attempt.url.toString());
  expect(login.status).toBe(200);
  const consent = await agent.submit(login, { email: DEMO_USER.email, password: DEMO_USER.password });
  expect(consent.status).toBe(200);
  const callback = await agent.submit(consent, {}, decision);
  // Approved or denied, the answer goes back to the registered redirect URI with the request's state.
  const location = new URL(callback.location ?? 'about:no-redirect');
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  expect(location.searchParams.get('state')).toBe(attempt.state);
  return { consent, callback: location };
}

async function signedInTokens(config: oidc.Configuration, params: Record<string, string> = {}) {
  const attempt = await authorizationRequest(config, params);
  const { callback } = await authorize(attempt);
  return oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: attempt.verifier,
    expectedState: attempt.state,
    expectedNonce: attempt.nonce,
    idTokenExpected: true,
  });
}

async function introspectAsResourceServer(token: string) {
  const response = await fetch(`${server.issuer}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function postForm(path: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.issuer}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

describe('discovery', () => {
  it('serves RFC 8414 metadata that openid-client accepts, and an OIDC document that agrees', async () => {
    const config = await oidc.discovery(new URL(server.issuer), 'nobody', undefined, oidc.None(), insecure);
    const metadata = config.serverMetadata();
    expect(metadata).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/oauth/authorize`,
      token_endpoint: `${server.issuer}/api/oauth/token`,
      registration_endpoint: `${server.issuer}/api/oauth/register`,
      introspection_endpoint: `${server.issuer}/api/oauth/introspect`,
      revocation_endpoint: `${server.issuer}/api/oauth/revoke`,
      userinfo_endpoint: `${server.issuer}/api/oauth/userinfo`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      service_documentation: `${server.issuer}/auth.md`,
      id_token_signing_alg_values_supported: ['RS256'],
      request_uri_parameter_supported: false,
    });
    // The 38 of the catalogue, then offline_access (OpenID Connect Core §11).
    expect(metadata.scopes_supported).toHaveLength(43);
    expect(metadata.scopes_supported?.at(-1)).toBe('offline_access');
    expect(JSON.stringify(metadata)).not.toContain('agent_auth');

    const oauth = await (await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)).json();
    const { id_token_signing_alg_values_supported, subject_types_supported, claims_supported, request_uri_parameter_supported, ...shared } = metadata;
    expect(oauth).toEqual(shared);
    expect(subject_types_supported).toEqual(['public']);
    expect(request_uri_parameter_supported).toBe(false);
    expect(claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'auth_time', 'nonce']));
    expect(id_token_signing_alg_values_supported).toEqual(['RS256']);
  });

  it('publishes only public keys, each with a kid', async () => {
    const jwks = (await (await fetch(`${server.issuer}/.well-known/jwks.json`)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const key of jwks.keys) {
      expect(key).toEqual({ kty: 'RSA', n: expect.any(String), e: 'AQAB', kid: expect.any(String), alg: 'RS256', use: 'sig' });
    }
  });
});

describe('registration (RFC 7591)', () => {
  it('registers a public client with the defaults', async () => {
    const config = await registerPublicClient();
    expect(config.clientMetadata()).toMatchObject({
      client_id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'Lesson Planner CLI',
      application_type: 'native',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(config.clientMetadata().client_secret).toBeUndefined();
  });

  it('gives a confidential client a secret once, that never expires', async () => {
    const response = await fetch(`${server.issuer}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_post' }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { client_secret: string; client_secret_expires_at: number };
    expect(body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.client_secret_expires_at).toBe(0);
  });

  it('refuses a fixed https callback with invalid_redirect_uri', async () => {
    const response = await fetch(`${server.issuer}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['https://app.example.com/callback'] }),
    });
    expect(response.status).toBe(EXPECTED_ERRORS.httpsRedirectUri.status);
    expect(await response.json()).toEqual(EXPECTED_ERRORS.httpsRedirectUri.body);
  });
});

describe('the authorization code flow of a public client', () => {
  let config: oidc.Configuration;

  beforeAll(async () => {
    config = await registerPublicClient();
  });

  it('shows a consent page that names the client, its redirect host and every scope in words', async () => {
    const attempt = await authorizationRequest(config);
    const { consent, callback } = await authorize(attempt, 'Deny');
    expect(consent.body).toContain('Lesson Planner CLI');
    expect(consent.body).toContain('127.0.0.1:8765');
    for (const words of ['Sign you in', 'See your name', 'See your email address', 'See students and their enrollments']) {
      expect(consent.body).toContain(words);
    }
    expect(consent.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(callback.searchParams.get('state')).toBe(attempt.state);
  });

  it('answers Deny with access_denied, state and iss', async () => {
    const attempt = await authorizationRequest(config);
    const { callback } = await authorize(attempt, 'Deny');
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('error')).toBe(EXPECTED_ERRORS.deny.error);
    expect(callback.searchParams.get('state')).toBe(attempt.state);
    expect(callback.searchParams.get('iss')).toBe(server.issuer);
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('issues tokens and a verified ID token, then serves userinfo, rotation, revocation', async () => {
    const attempt = await authorizationRequest(config);
    const { callback } = await authorize(attempt);
    expect(callback.searchParams.get('iss')).toBe(server.issuer);
    expect(callback.searchParams.get('state')).toBe(attempt.state);

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: attempt.verifier,
      expectedState: attempt.state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('openid profile email students:read');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const claims = tokens.claims();
    expect(claims).toMatchObject({ iss: server.issuer, aud: config.clientMetadata().client_id, nonce: attempt.nonce });
    expect(claims?.auth_time).toEqual(expect.any(Number));

    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims?.sub as string);
    expect(userinfo).toEqual({
      sub: claims?.sub,
      name: 'Dana Demo',
      email: DEMO_USER.email,
      email_verified: true,
      school_id: 'demo-school',
      role: 'owner',
    });

    expect(await introspectAsResourceServer(tokens.access_token)).toEqual({
      active: true,
      scope: 'openid profile email students:read',
      client_id: config.clientMetadata().client_id,
      sub: claims?.sub,
      aud: server.issuer,
      iss: server.issuer,
      exp: expect.any(Number),
      iat: expect.any(Number),
      token_type: 'Bearer',
      school_id: 'demo-school',
    });
    // A refresh token is never active as a bearer token.
    expect(await introspectAsResourceServer(tokens.refresh_token as string)).toEqual({ active: false });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string, { scope: 'openid students:read' });
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe('openid students:read');
    expect((await introspectAsResourceServer(refreshed.access_token)).active).toBe(true);

    await oidc.tokenRevocation(config, refreshed.access_token);
    expect(await introspectAsResourceServer(refreshed.access_token)).toEqual({ active: false });
    expect((await introspectAsResourceServer(tokens.access_token)).active).toBe(true);

    // Revoking the refresh token ends the grant and its access tokens.
    await oidc.tokenRevocation(config, refreshed.refresh_token as string, { token_type_hint: 'refresh_token' });
    expect(await introspectAsResourceServer(tokens.access_token)).toEqual({ active: false });
  });

  it('binds the audience to the canonical resource whatever spelling the client sent', async () => {
    const tokens = await signedInTokens(config, { resource: `${server.issuer}/mcp/` });
    expect((await introspectAsResourceServer(tokens.access_token)).aud).toBe(server.issuer);
  });

  it('ends the grant when a refresh token already rotated out is revoked (RFC 7009 §2.1)', async () => {
    const tokens = await signedInTokens(config);
    const current = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    await oidc.tokenRevocation(config, tokens.refresh_token as string, { token_type_hint: 'refresh_token' });
    expect(await introspectAsResourceServer(current.access_token)).toEqual({ active: false });
    await expect(oidc.refreshTokenGrant(config, current.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('binds URL.href spellings of the resource (upper-case scheme and host, trailing slash) to the canonical one', async () => {
    const tokens = await signedInTokens(config, { resource: `${server.issuer.replace('http://', 'HTTP://')}/` });
    expect((await introspectAsResourceServer(tokens.access_token)).aud).toBe(server.issuer);
  });

  it('answers 200 to the revocation of an unknown token', async () => {
    await expect(oidc.tokenRevocation(config, 'not-a-token-we-ever-issued-0123456789')).resolves.toBeUndefined();
  });
});

describe('refusals', () => {
  let config: oidc.Configuration;

  beforeAll(async () => {
    config = await registerPublicClient();
  });

  async function redirectedError(params: Record<string, string | null>) {
    const attempt = await authorizationRequest(config);
    for (const [name, value] of Object.entries(params)) {
      if (value === null) attempt.url.searchParams.delete(name);
      else attempt.url.searchParams.set(name, value);
    }
    const response = await fetch(attempt.url, { redirect: 'manual' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location') as string);
    expect(location.origin + location.pathname).toBe(REDIRECT_URI);
    expect(location.searchParams.get('state')).toBe(attempt.state);
    expect(location.searchParams.get('iss')).toBe(server.issuer);
    return Object.fromEntries(location.searchParams);
  }

  it('redirects a request without PKCE with invalid_request', async () => {
    expect(await redirectedError({ code_challenge: null, code_challenge_method: null })).toMatchObject(
      EXPECTED_ERRORS.missingPkce,
    );
  });

  it('redirects a request with plain PKCE with invalid_request', async () => {
    expect(await redirectedError({ code_challenge_method: 'plain', code_challenge: 'a'.repeat(43) })).toMatchObject(
      EXPECTED_ERRORS.plainPkce,
    );
  });

  it('redirects an unknown scope with invalid_scope', async () => {
    expect(await redirectedError({ scope: 'openid admin:everything' })).toMatchObject(EXPECTED_ERRORS.unknownScope);
  });

  it('shows an error page, never a redirect, for an unregistered redirect URI', async () => {
    const attempt = await authorizationRequest(config, { redirect_uri: 'http://127.0.0.1:8765/elsewhere' });
    const response = await fetch(attempt.url, { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toContain('text/html');
  });

  it('refuses a wrong code_verifier with invalid_grant', async () => {
    const attempt = await authorizationRequest(config);
    const { callback } = await authorize(attempt);
    const response = await postForm('/api/oauth/token', {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') as string,
      redirect_uri: REDIRECT_URI,
      client_id: config.clientMetadata().client_id,
      code_verifier: oidc.randomPKCECodeVerifier(),
    });
    expect(response.status).toBe(EXPECTED_ERRORS.wrongVerifier.status);
    expect(response.body).toEqual(EXPECTED_ERRORS.wrongVerifier.body);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a replayed code and revokes the tokens it produced', async () => {
    const attempt = await authorizationRequest(config);
    const { callback } = await authorize(attempt);
    const exchange = {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') as string,
      redirect_uri: REDIRECT_URI,
      client_id: config.clientMetadata().client_id,
      code_verifier: attempt.verifier,
    };
    const first = await postForm('/api/oauth/token', exchange);
    expect(first.status).toBe(200);
    const replay = await postForm('/api/oauth/token', exchange);
    expect(replay.status).toBe(EXPECTED_ERRORS.usedCode.status);
    expect(replay.body).toEqual(EXPECTED_ERRORS.usedCode.body);
    expect(await introspectAsResourceServer(first.body['access_token'] as string)).toEqual({ active: false });
    const refresh = await postForm('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.body['refresh_token'] as string,
      client_id: config.clientMetadata().client_id,
    });
    expect(refresh.body).toEqual(EXPECTED_ERRORS.usedRefreshToken.body);
  });

  it('answers a refresh token rotated out within the reuse window with a fresh pair; the grant lives', async () => {
    const tokens = await signedInTokens(config);
    const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    const sibling = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(sibling.refresh_token).not.toBe(rotated.refresh_token);
    expect(sibling.scope).toBe(rotated.scope);
    for (const token of [rotated.access_token, sibling.access_token]) {
      expect(await introspectAsResourceServer(token)).toMatchObject({ active: true });
    }
    // Both successors stay usable; the one rotated out is not a current token.
    await expect(oidc.refreshTokenGrant(config, rotated.refresh_token as string)).resolves.toMatchObject({ token_type: 'bearer' });
    await expect(oidc.refreshTokenGrant(config, sibling.refresh_token as string)).resolves.toMatchObject({ token_type: 'bearer' });
  });

  it('refuses a refresh token replayed after the reuse window and revokes the whole grant', async () => {
    const tokens = await signedInTokens(config);
    const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    await rotatedBeyondReuseWindow(server, tokens.refresh_token as string);
    const replay = await postForm('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      client_id: config.clientMetadata().client_id,
    });
    expect(replay.status).toBe(EXPECTED_ERRORS.usedRefreshToken.status);
    expect(replay.body).toEqual(EXPECTED_ERRORS.usedRefreshToken.body);
    expect(await introspectAsResourceServer(rotated.access_token)).toEqual({ active: false });
    await expect(oidc.refreshTokenGrant(config, rotated.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('refuses an unsupported grant type', async () => {
    const response = await postForm('/api/oauth/token', { grant_type: 'password', client_id: 'x' });
    expect(response.status).toBe(EXPECTED_ERRORS.unsupportedGrant.status);
    expect(response.body).toEqual(EXPECTED_ERRORS.unsupportedGrant.body);
  });
});

describe('a confidential client', () => {
  let registration: { client_id: string; client_secret: string };

  beforeAll(async () => {
    const response = await fetch(`${server.issuer}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Gradebook Sync',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'client_secret_post',
      }),
    });
    registration = (await response.json()) as typeof registration;
  });

  it('exchanges its code with client_secret_post and introspects its own token', async () => {
    const config = await oidc.discovery(
      new URL(server.issuer),
      registration.client_id,
      undefined,
      oidc.ClientSecretPost(registration.client_secret),
      insecure,
    );
    const tokens = await signedInTokens(config);
    const introspection = await oidc.tokenIntrospection(config, tokens.access_token);
    expect(introspection).toMatchObject({ active: true, client_id: registration.client_id, school_id: 'demo-school' });
  });

  it('exchanges, refreshes and revokes with client_secret_basic (RFC 6749 §2.3.1 MUST)', async () => {
    const config = await oidc.discovery(
      new URL(server.issuer),
      registration.client_id,
      undefined,
      oidc.ClientSecretBasic(registration.client_secret),
      insecure,
    );
    const tokens = await signedInTokens(config);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.access_token).toEqual(expect.any(String));
    await oidc.tokenRevocation(config, refreshed.refresh_token as string);
    expect(await oidc.tokenIntrospection(config, refreshed.access_token)).toMatchObject({ active: false });
  });

  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

  it('answers a wrong Basic secret with 401 invalid_client and a Basic challenge', async () => {
    const response = await postForm('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: 'whatever-0123456789-abcdefghij' }, { authorization: basic(registration.client_id, 'wrong-secret') });
    expect(response.status).toBe(401);
    expect(response.body).toEqual(EXPECTED_ERRORS.wrongSecret.body);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="oauth", charset="UTF-8"');
  });

  it('refuses two authentication methods in one request (RFC 6749 §2.3 MUST NOT)', async () => {
    const response = await postForm(
      '/api/oauth/token',
      { grant_type: 'refresh_token', refresh_token: 'whatever-0123456789-abcdefghij', client_secret: registration.client_secret },
      { authorization: basic(registration.client_id, registration.client_secret) },
    );
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_request' });
  });

  it('is refused with invalid_client and 401 when the secret is wrong', async () => {
    const response = await postForm('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: 'whatever-0123456789-abcdefghij',
      client_id: registration.client_id,
      client_secret: 'wrong-secret',
    });
    expect(response.status).toBe(EXPECTED_ERRORS.wrongSecret.status);
    expect(response.body).toEqual(EXPECTED_ERRORS.wrongSecret.body);
  });
});
