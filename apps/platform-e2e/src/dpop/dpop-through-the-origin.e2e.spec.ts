/**
 * DPoP (RFC 9449) through the one origin, with the DPoP support of two client libraries nobody
 * here wrote: oauth4webapi (`DPoP(client, keyPair)`) and openid-client (`getDPoPHandle`). The code
 * flow with a proof, an API call, a /mcp tools/call, refresh with the bound refresh token and
 * revocation; then each refusal of the resource server as its own test, with the answer a client
 * reads (oauth4webapi parses the challenges).
 */
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { createHash, randomUUID } from 'node:crypto';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO, REDIRECT_URI, registerClient } from '../support/oauth-client';
import { baseUrl } from '../support/platform';

jest.setTimeout(90_000);

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const SCOPE = 'students:read offline_access';
const studentsUrl = () => new URL(`${baseUrl()}/api/v1/students`);
const mcpUrl = () => new URL(`${baseUrl()}/mcp`);
const apiMetadata = () => `${baseUrl()}/.well-known/oauth-protected-resource`;

interface Flow {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
}

async function oauth4webapiFlow(): Promise<Flow> {
  const issuer = new URL(baseUrl());
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const response = await fetch(as.registration_endpoint as string, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'DPoP e2e (oauth4webapi)', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  const { client_id } = (await response.json()) as { client_id: string };
  return { as, client: { client_id, token_endpoint_auth_method: 'none' } };
}

/** Signs in as the demo user and approves; the callback's parameters and the PKCE verifier. */
async function authorize(flow: Flow) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(flow.as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: flow.client.client_id,
    redirect_uri: REDIRECT_URI,
    scope: SCOPE,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  }).toString();
  const agent = new BrowserLikeAgent(baseUrl());
  const consent = await agent.submit(await agent.open(url.toString()), { email: DEMO.email, password: DEMO.password });
  const callback = consent.location ? consent : await agent.submit(consent, {}, 'Approve');
  return { params: oauth.validateAuthResponse(flow.as, flow.client, new URL(callback.location as string), state), verifier };
}

async function bound(flow: Flow, DPoP: oauth.DPoPHandle) {
  const { params, verifier } = await authorize(flow);
  const response = await oauth.authorizationCodeGrantRequest(flow.as, flow.client, oauth.None(), params, REDIRECT_URI, verifier, { DPoP, ...insecure });
  return oauth.processAuthorizationCodeResponse(flow.as, flow.client, response);
}

const keyPair = () => generateKeyPair('ES256') as Promise<oauth.CryptoKeyPair>;

/** A proof made by hand (jose), for the refusals a library would never send. */
async function handProof(pair: oauth.CryptoKeyPair, claims: { htm: string; htu: string; token: string; iat?: number; jti?: string }) {
  return new SignJWT({ htm: claims.htm, htu: claims.htu, jti: claims.jti ?? randomUUID(), ath: createHash('sha256').update(claims.token).digest('base64url') })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(pair.publicKey) })
    .setIssuedAt(claims.iat ?? Math.floor(Date.now() / 1000))
    .sign(pair.privateKey);
}

async function answer(response: Response) {
  const text = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** What oauth4webapi throws for a challenged request: the challenges as it parsed them. */
async function challenged(request: Promise<Response>) {
  const error = await request.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  const { status, cause } = error as oauth.WWWAuthenticateChallengeError;
  return { status, challenges: cause.map(({ scheme, parameters }) => ({ scheme, parameters: { ...parameters } })) };
}

const ALGS = 'ES256 ES384 ES512 RS256 RS384 RS512 PS256 PS384 PS512 EdDSA Ed25519';

describe('the resource server advertises DPoP', () => {
  it('protected resource metadata: dpop_signing_alg_values_supported, not required (RFC 9449 §5.1, RFC 9728 §2)', async () => {
    for (const url of [apiMetadata(), `${baseUrl()}/.well-known/oauth-protected-resource/mcp`]) {
      const metadata = (await (await fetch(url)).json()) as Record<string, unknown>;
      expect(metadata).toMatchObject({ dpop_signing_alg_values_supported: ALGS.split(' '), dpop_bound_access_tokens_required: false });
    }
  });

  it('a 401 challenges Bearer and DPoP, each with resource_metadata (RFC 9449 §7.1)', async () => {
    const response = await answer(await fetch(studentsUrl(), { method: 'POST' }));
    expect(response.status).toBe(401);
    expect(response.challenge).toBe(
      `Bearer scope="students:write", resource_metadata="${apiMetadata()}", DPoP scope="students:write", resource_metadata="${apiMetadata()}", algs="${ALGS}"`,
    );
  });
});

describe('DPoP with oauth4webapi through the origin', () => {
  let flow: Flow;
  let pair: oauth.CryptoKeyPair;
  let DPoP: oauth.DPoPHandle;
  let tokens: oauth.TokenEndpointResponse;

  beforeAll(async () => {
    flow = await oauth4webapiFlow();
    pair = await keyPair();
    DPoP = oauth.DPoP(flow.client, pair);
    tokens = await bound(flow, DPoP);
  });

  it('the code exchange with a proof gives a DPoP token bound to the key', async () => {
    expect(tokens.token_type).toBe('dpop');
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  it('calls the API with the token and a proof', async () => {
    const response = await oauth.protectedResourceRequest(tokens.access_token, 'GET', studentsUrl(), undefined, undefined, { DPoP, ...insecure });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it('calls a /mcp tool with the token and a proof', async () => {
    const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' });
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_students', arguments: { limit: 2 } } });
    const response = await oauth.protectedResourceRequest(tokens.access_token, 'POST', mcpUrl(), headers, body, { DPoP, ...insecure });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { result: { isError?: boolean; structuredContent: { data: unknown[] } } };
    expect(result.result.isError).toBeFalsy();
    expect(result.result.structuredContent.data).toHaveLength(2);
  });

  it('refreshes with the bound refresh token and the same key; the new token works', async () => {
    const response = await oauth.refreshTokenGrantRequest(flow.as, flow.client, oauth.None(), tokens.refresh_token as string, { DPoP, ...insecure });
    const refreshed = await oauth.processRefreshTokenResponse(flow.as, flow.client, response);
    expect(refreshed.token_type).toBe('dpop');
    const call = await oauth.protectedResourceRequest(refreshed.access_token, 'GET', studentsUrl(), undefined, undefined, { DPoP, ...insecure });
    expect(call.status).toBe(200);
    tokens = refreshed;
  });

  it('a revoked token is refused at once', async () => {
    const { access_token } = await bound(flow, DPoP);
    await oauth.processRevocationResponse(await oauth.revocationRequest(flow.as, flow.client, oauth.None(), access_token, insecure));
    // The event crosses processes: poll briefly; no timing assertion.
    let status = 200;
    for (const started = Date.now(); status === 200 && Date.now() - started < 5_000; ) {
      status = await oauth.protectedResourceRequest(access_token, 'GET', studentsUrl(), undefined, undefined, { DPoP, ...insecure }).then(
        (response) => response.status,
        (error: oauth.WWWAuthenticateChallengeError) => error.status,
      );
    }
    expect(status).toBe(401);
  });

  describe('refusals', () => {
    it('the bound token sent as Bearer: invalid_token in the Bearer challenge (RFC 9449 §7.2)', async () => {
      expect(await challenged(oauth.protectedResourceRequest(tokens.access_token, 'GET', studentsUrl(), undefined, undefined, insecure))).toEqual({
        status: 401,
        challenges: [
          {
            scheme: 'bearer',
            parameters: {
              error: 'invalid_token',
              error_description: 'This access token is bound to a DPoP key: present it with the DPoP scheme and a proof',
              resource_metadata: apiMetadata(),
            },
          },
          { scheme: 'dpop', parameters: { resource_metadata: apiMetadata(), algs: ALGS } },
        ],
      });
    });

    it('a proof of another key: invalid_token in the DPoP challenge', async () => {
      const other = oauth.DPoP(flow.client, await keyPair());
      expect(await challenged(oauth.protectedResourceRequest(tokens.access_token, 'GET', studentsUrl(), undefined, undefined, { DPoP: other, ...insecure }))).toEqual({
        status: 401,
        challenges: [
          { scheme: 'bearer', parameters: { resource_metadata: apiMetadata() } },
          { scheme: 'dpop', parameters: { error: 'invalid_token', error_description: 'Invalid DPoP key binding', resource_metadata: apiMetadata(), algs: ALGS } },
        ],
      });
    });

    const refusedProof = async (proof: string | string[] | undefined, url = studentsUrl(), method = 'GET') => {
      const headers = new Headers({ authorization: `DPoP ${tokens.access_token}` });
      for (const value of proof === undefined ? [] : [proof].flat()) headers.append('dpop', value);
      return answer(await fetch(url, { method, headers }));
    };
    const invalidProof = (description: string) => ({
      status: 401,
      challenge: `Bearer resource_metadata="${apiMetadata()}", DPoP error="invalid_dpop_proof", error_description="${description}", resource_metadata="${apiMetadata()}", algs="${ALGS}"`,
      body: { error: 'invalid_dpop_proof', error_description: description },
    });

    it('a proof for another URL', async () => {
      const proof = await handProof(pair, { htm: 'GET', htu: `${baseUrl()}/api/v1/courses`, token: tokens.access_token });
      expect(await refusedProof(proof)).toEqual(invalidProof('The DPoP proof is for another URL'));
    });

    it('a proof for another method', async () => {
      const proof = await handProof(pair, { htm: 'POST', htu: studentsUrl().href, token: tokens.access_token });
      expect(await refusedProof(proof)).toEqual(invalidProof('The DPoP proof is for another HTTP method'));
    });

    it('a stale proof', async () => {
      const proof = await handProof(pair, { htm: 'GET', htu: studentsUrl().href, token: tokens.access_token, iat: Math.floor(Date.now() / 1000) - 600 });
      expect(await refusedProof(proof)).toEqual(invalidProof('The DPoP proof is too old'));
    });

    it('a replayed proof', async () => {
      const proof = await handProof(pair, { htm: 'GET', htu: studentsUrl().href, token: tokens.access_token });
      expect((await refusedProof(proof)).status).toBe(200);
      expect(await refusedProof(proof)).toEqual(invalidProof('The DPoP proof was used before'));
    });

    it('two DPoP headers', async () => {
      const proofs = await Promise.all([0, 1].map(() => handProof(pair, { htm: 'GET', htu: studentsUrl().href, token: tokens.access_token })));
      expect(await refusedProof(proofs)).toEqual(invalidProof('The DPoP header is not a single well-formed JWT'));
    });

    it('no proof', async () => {
      expect(await refusedProof(undefined)).toEqual(invalidProof('Exactly one DPoP header is required'));
    });

    it('a proof at /mcp made for the API', async () => {
      const proof = await handProof(pair, { htm: 'POST', htu: studentsUrl().href, token: tokens.access_token });
      const response = await fetch(mcpUrl(), {
        method: 'POST',
        headers: { authorization: `DPoP ${tokens.access_token}`, dpop: proof, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('DPoP error="invalid_dpop_proof", error_description="The DPoP proof is for another URL"');
    });

    it('a token bound to no key sent with the DPoP scheme', async () => {
      const plain = await bearerToken();
      const proof = await handProof(pair, { htm: 'GET', htu: studentsUrl().href, token: plain });
      const response = await answer(await fetch(studentsUrl(), { headers: { authorization: `DPoP ${plain}`, dpop: proof } }));
      expect(response).toMatchObject({
        status: 401,
        body: { error: 'invalid_token', error_description: 'This access token is not bound to a DPoP key: present it with the Bearer scheme' },
      });
    });
  });

  /** A token of the same client obtained without a proof: a bearer token, still served as Bearer. */
  async function bearerToken(): Promise<string> {
    const { params, verifier } = await authorize(flow);
    const response = await oauth.authorizationCodeGrantRequest(flow.as, flow.client, oauth.None(), params, REDIRECT_URI, verifier, insecure);
    const plain = await oauth.processAuthorizationCodeResponse(flow.as, flow.client, response);
    expect(plain.token_type).toBe('bearer');
    expect((await fetch(studentsUrl(), { headers: { authorization: `Bearer ${plain.access_token}` } })).status).toBe(200);
    return plain.access_token;
  }
});

describe('DPoP with openid-client through the origin', () => {
  it('code flow, API call, refresh with the bound refresh token, revocation', async () => {
    const config = await registerClient('DPoP e2e (openid-client)');
    const pair = await oidc.randomDPoPKeyPair('ES256');
    const DPoP = oidc.getDPoPHandle(config, pair);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const agent = new BrowserLikeAgent(baseUrl());
    const consent = await agent.submit(await agent.open(url.toString()), { email: DEMO.email, password: DEMO.password });
    const callback = consent.location ? consent : await agent.submit(consent, {}, 'Approve');
    const tokens = await oidc.authorizationCodeGrant(config, new URL(callback.location as string), { pkceCodeVerifier: verifier, expectedState: state }, undefined, { DPoP });
    expect(tokens.token_type).toBe('dpop');

    const api = await oidc.fetchProtectedResource(config, tokens.access_token, studentsUrl(), 'GET', undefined, undefined, { DPoP });
    expect(api.status).toBe(200);

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string, undefined, { DPoP });
    expect(refreshed.token_type).toBe('dpop');
    expect((await oidc.fetchProtectedResource(config, refreshed.access_token, studentsUrl(), 'GET', undefined, undefined, { DPoP })).status).toBe(200);

    // The bound refresh token needs its key: another key is refused.
    const other = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token as string, undefined, { DPoP: other })).rejects.toThrow();

    await oidc.tokenRevocation(config, refreshed.access_token);
    let status = 200;
    for (const started = Date.now(); status === 200 && Date.now() - started < 5_000; ) {
      status = await oidc.fetchProtectedResource(config, refreshed.access_token, studentsUrl(), 'GET', undefined, undefined, { DPoP }).then(
        (response) => response.status,
        (error: { status?: number }) => error.status ?? 0,
      );
    }
    expect(status).toBe(401);
  });
});
