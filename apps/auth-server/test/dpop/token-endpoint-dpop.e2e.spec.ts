/**
 * DPoP at the token endpoint (RFC 9449 §5, §8, §10) through the real HTTP server, driven by
 * oauth4webapi's own DPoP support (`DPoP(client, keyPair)`), a client library nobody here wrote:
 * the code flow with a proof, introspection's cnf.jkt, refresh with the bound refresh token,
 * revocation without a proof; then each refusal; and the server-nonce flow, where the client
 * retries with the nonce the server gave it.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { randomUUID } from 'node:crypto';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO_USER, INTROSPECTION_CLIENT, startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';

jest.setTimeout(90_000);

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const SCOPE = 'students:read';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

interface Flow {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
}

async function discover(server: TestAuthServer): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(server.issuer);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
}

async function register(server: TestAuthServer, metadata: Record<string, unknown> = {}): Promise<oauth.Client> {
  const response = await fetch(`${server.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'DPoP CLI', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata }),
  });
  expect(response.status).toBe(201);
  const registered = (await response.json()) as { client_id: string; dpop_bound_access_tokens: boolean };
  expect(registered.dpop_bound_access_tokens).toBe(metadata['dpop_bound_access_tokens'] ?? false);
  return { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
}

/** Signs in and approves; answers the callback's parameters and the PKCE verifier. */
async function authorize(server: TestAuthServer, flow: Flow, extra: Record<string, string> = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(flow.as.authorization_endpoint as string);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: flow.client.client_id,
    redirect_uri: REDIRECT_URI,
    scope: SCOPE,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'consent',
    ...extra,
  })) {
    url.searchParams.set(name, value);
  }
  const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
  const login = await agent.open(url.toString());
  const consent = await agent.submit(login, { email: DEMO_USER.email, password: DEMO_USER.password });
  const callback = await agent.submit(consent, {}, 'Approve');
  const params = oauth.validateAuthResponse(flow.as, flow.client, new URL(callback.location as string), state);
  return { params, verifier };
}

async function exchange(server: TestAuthServer, flow: Flow, DPoP?: oauth.DPoPHandle, extra: Record<string, string> = {}) {
  const { params, verifier } = await authorize(server, flow, extra);
  const response = await oauth.authorizationCodeGrantRequest(flow.as, flow.client, oauth.None(), params, REDIRECT_URI, verifier, { DPoP, ...insecure });
  return oauth.processAuthorizationCodeResponse(flow.as, flow.client, response);
}

async function refresh(flow: Flow, refreshToken: string, DPoP?: oauth.DPoPHandle) {
  const response = await oauth.refreshTokenGrantRequest(flow.as, flow.client, oauth.None(), refreshToken, { DPoP, ...insecure });
  return oauth.processRefreshTokenResponse(flow.as, flow.client, response);
}

async function introspect(server: TestAuthServer, token: string) {
  const response = await fetch(`${server.issuer}/api/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret }),
  });
  return (await response.json()) as Record<string, unknown>;
}

async function keyPair() {
  return generateKeyPair('ES256') as Promise<oauth.CryptoKeyPair>;
}

const thumbprint = async (pair: oauth.CryptoKeyPair) => calculateJwkThumbprint(await exportJWK(pair.publicKey), 'sha256');

/** What processing a refused response throws: the OAuth error of its body. */
async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(oauth.ResponseBodyError);
  const { status, error: code, error_description } = error as oauth.ResponseBodyError;
  return { status, error: code, error_description };
}

describe('DPoP at the token endpoint (oauth4webapi)', () => {
  let server: TestAuthServer;
  let as: oauth.AuthorizationServer;

  beforeAll(async () => {
    server = await startTestAuthServer();
    as = await discover(server);
  });
  afterAll(async () => server?.close());

  it('discovery advertises the asymmetric proof algorithms (RFC 9449 §5.1)', () => {
    expect(as['dpop_signing_alg_values_supported']).toEqual(['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA', 'Ed25519']);
  });

  it('code flow, introspection, refresh with the bound refresh token, revocation', async () => {
    const flow = { as, client: await register(server) };
    const keys = await keyPair();
    const DPoP = oauth.DPoP(flow.client, keys);
    const jkt = await thumbprint(keys);

    const tokens = await exchange(server, flow, DPoP);
    expect(tokens.token_type).toBe('dpop');
    expect(await introspect(server, tokens.access_token)).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt }, scope: SCOPE });

    const refreshed = await refresh(flow, tokens.refresh_token as string, DPoP);
    expect(refreshed.token_type).toBe('dpop');
    expect(await introspect(server, refreshed.access_token)).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });

    // RFC 7009 needs no proof: the client revokes its bound token as any other.
    const revoked = await oauth.revocationRequest(flow.as, flow.client, oauth.None(), refreshed.access_token, insecure);
    await oauth.processRevocationResponse(revoked);
    expect(await introspect(server, refreshed.access_token)).toEqual({ active: false });
  });

  it('a bound refresh token refused with another key and without a proof, and still good with its own', async () => {
    const flow = { as, client: await register(server) };
    const keys = await keyPair();
    const tokens = await exchange(server, flow, oauth.DPoP(flow.client, keys));
    const refreshToken = tokens.refresh_token as string;
    const expected = {
      status: 400,
      error: 'invalid_grant',
      error_description: 'The refresh token is bound to a DPoP key: send a DPoP proof signed with that key',
    };
    expect(await refusal(refresh(flow, refreshToken, oauth.DPoP(flow.client, await keyPair())))).toEqual(expected);
    expect(await refusal(refresh(flow, refreshToken))).toEqual(expected);
    expect((await refresh(flow, refreshToken, oauth.DPoP(flow.client, keys))).token_type).toBe('dpop');
  });

  it('without a proof: Bearer, as before', async () => {
    const flow = { as, client: await register(server) };
    const tokens = await exchange(server, flow);
    expect(tokens.token_type).toBe('bearer');
    const answer = await introspect(server, tokens.access_token);
    expect(answer).toMatchObject({ active: true, token_type: 'Bearer' });
    expect(answer).not.toHaveProperty('cnf');
  });

  it('dpop_bound_access_tokens: a token request without a proof is invalid_dpop_proof (RFC 9449 §5.2)', async () => {
    const flow = { as, client: await register(server, { dpop_bound_access_tokens: true }) };
    expect(await refusal(exchange(server, flow))).toEqual({
      status: 400,
      error: 'invalid_dpop_proof',
      error_description: 'A DPoP proof is required: this client registered dpop_bound_access_tokens',
    });
    expect((await exchange(server, flow, oauth.DPoP(flow.client, await keyPair()))).token_type).toBe('dpop');
  });

  it('dpop_jkt on the authorization request binds the code: another key or no proof consumes nothing, its key exchanges it (RFC 9449 §10)', async () => {
    const flow = { as, client: await register(server) };
    const keys = await keyPair();
    const { params, verifier } = await authorize(server, flow, { dpop_jkt: await thumbprint(keys) });
    const exchangeWith = async (DPoP?: oauth.DPoPHandle) =>
      oauth.processAuthorizationCodeResponse(
        flow.as,
        flow.client,
        await oauth.authorizationCodeGrantRequest(flow.as, flow.client, oauth.None(), params, REDIRECT_URI, verifier, { DPoP, ...insecure }),
      );
    const bound = {
      status: 400,
      error: 'invalid_grant',
      error_description: 'The authorization code is bound to a DPoP key (dpop_jkt): send a DPoP proof signed with that key',
    };
    expect(await refusal(exchangeWith(oauth.DPoP(flow.client, await keyPair())))).toEqual(bound);
    expect(await refusal(exchangeWith())).toEqual(bound);
    const tokens = await exchangeWith(oauth.DPoP(flow.client, keys));
    expect(await introspect(server, tokens.access_token)).toMatchObject({ active: true, cnf: { jkt: await thumbprint(keys) } });
  });

  it('a malformed dpop_jkt is refused at the authorization endpoint, back to the client', async () => {
    const client = await register(server);
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
      state: 's',
      dpop_jkt: 'not-a-thumbprint',
    }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get('location') as string);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'invalid_request', state: 's' });
  });

  describe('proofs refused at the token endpoint (RFC 9449 §4.3), each invalid_dpop_proof', () => {
    let pair: oauth.CryptoKeyPair;
    let refreshToken: string;
    let clientId: string;

    beforeAll(async () => {
      pair = await keyPair();
      const flow = { as, client: await register(server) };
      clientId = flow.client.client_id;
      refreshToken = (await exchange(server, flow, oauth.DPoP(flow.client, pair))).refresh_token as string;
    });

    async function proof(claims: Record<string, unknown> = {}) {
      const base = { jti: randomUUID(), htm: 'POST', htu: as.token_endpoint, iat: Math.floor(Date.now() / 1000) };
      return new SignJWT({ ...base, ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(pair.publicKey) })
        .sign(pair.privateKey);
    }

    async function post(dpop: string, headers: Record<string, string> = {}) {
      const response = await fetch(as.token_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop, ...headers },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
      });
      const body = (await response.json()) as Record<string, unknown>;
      if (response.status === 200) refreshToken = body['refresh_token'] as string;
      return { status: response.status, error: body['error'], error_description: body['error_description'] };
    }

    it.each<[string, () => Promise<Record<string, unknown>>, string]>([
      ['for another URL', async () => ({ htu: as.token_endpoint?.replace('/token', '/revoke') }), 'The DPoP proof is for another URL'],
      ['for another method', async () => ({ htm: 'GET' }), 'The DPoP proof is for another HTTP method'],
      ['made two minutes ago', async () => ({ iat: Math.floor(Date.now() / 1000) - 120 }), 'The DPoP proof is too old'],
    ])('a proof %s', async (_name, claims, description) => {
      expect(await post(await proof(await claims()))).toEqual({ status: 400, error: 'invalid_dpop_proof', error_description: description });
    });

    it('a proof for the URL of the Host header the caller chose, not the issuer’s', async () => {
      const htu = `http://attacker.example${new URL(as.token_endpoint as string).pathname}`;
      expect(await post(await proof({ htu }), { host: 'attacker.example' })).toMatchObject({ status: 400, error: 'invalid_dpop_proof' });
    });

    it('a replayed proof: the first use refreshes, the second is refused', async () => {
      const once = await proof();
      expect((await post(once)).status).toBe(200);
      expect(await post(once)).toEqual({ status: 400, error: 'invalid_dpop_proof', error_description: 'The DPoP proof was used before' });
    });

    it('two DPoP headers', async () => {
      const response = await fetch(as.token_endpoint as string, {
        method: 'POST',
        headers: [
          ['content-type', 'application/x-www-form-urlencoded'],
          ['dpop', await proof()],
          ['dpop', await proof()],
        ],
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_dpop_proof');
    });
  });
});

describe('server nonces (RFC 9449 §8): DPOP_NONCES=true', () => {
  let server: TestAuthServer;
  let as: oauth.AuthorizationServer;

  beforeAll(async () => {
    server = await startTestAuthServer({ DPOP_NONCES: 'true', DPOP_NONCE_SECRET: 'a-test-secret-shared-by-every-replica-0123' });
    as = await discover(server);
  });
  afterAll(async () => server?.close());

  it('the first request gets use_dpop_nonce with a DPoP-Nonce header; the client retries with it and gets its tokens', async () => {
    const flow = { as, client: await register(server) };
    const DPoP = oauth.DPoP(flow.client, await keyPair());
    const { params, verifier } = await authorize(server, flow);
    const request = () => oauth.authorizationCodeGrantRequest(flow.as, flow.client, oauth.None(), params, REDIRECT_URI, verifier, { DPoP, ...insecure });

    const first = await request();
    expect(first.status).toBe(400);
    expect(first.headers.get('dpop-nonce')).toMatch(/^\d+\.[\w-]{43}$/);
    const refused = await oauth.processAuthorizationCodeResponse(flow.as, flow.client, first).catch((error: unknown) => error);
    expect(oauth.isDPoPNonceError(refused)).toBe(true);

    // The code was not consumed by the refused request: the retry, with the nonce, exchanges it.
    const tokens = await oauth.processAuthorizationCodeResponse(flow.as, flow.client, await request());
    expect(tokens.token_type).toBe('dpop');
    // The handle keeps the nonce: the refresh needs no retry.
    expect((await refresh(flow, tokens.refresh_token as string, DPoP)).token_type).toBe('dpop');
  });
});
