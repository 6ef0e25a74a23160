/**
 * DPoP at the userinfo endpoint (RFC 9449 §7), a protected resource of the authorization server,
 * through the real HTTP server: oauth4webapi's own DPoP support (`userInfoRequest` with its `DPoP`
 * option) reads the claims with a bound token; then each refusal: the bound token as Bearer, a
 * proof by another key, for another URL, and one replayed.
 */
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO_USER, startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';

jest.setTimeout(90_000);

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const ALGS = 'algs="ES256 ES384 ES512 RS256 RS384 RS512 PS256 PS384 PS512 EdDSA Ed25519"';

describe('DPoP at the userinfo endpoint (oauth4webapi)', () => {
  let server: TestAuthServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let keys: oauth.CryptoKeyPair;
  let otherKeys: oauth.CryptoKeyPair;
  /** A DPoP-bound access token (openid profile) and the subject it is for. */
  let bound: { accessToken: string; sub: string };

  beforeAll(async () => {
    server = await startTestAuthServer();
    const issuer = new URL(server.issuer);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    client = await register();
    [keys, otherKeys] = (await Promise.all([generateKeyPair('ES256'), generateKeyPair('ES256')])) as oauth.CryptoKeyPair[];
    bound = await boundToken();
  });
  afterAll(async () => server?.close());

  async function register(): Promise<oauth.Client> {
    const response = await fetch(as.registration_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'DPoP userinfo', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
    });
    expect(response.status).toBe(201);
    return { client_id: ((await response.json()) as { client_id: string }).client_id, token_endpoint_auth_method: 'none' };
  }

  /** Signs in, approves openid profile and exchanges the code with a proof of `keys`. */
  async function boundToken() {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint as string);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    })) {
      url.searchParams.set(name, value);
    }
    const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
    const login = await agent.open(url.toString());
    const consent = await agent.submit(login, { email: DEMO_USER.email, password: DEMO_USER.password });
    const callback = await agent.submit(consent, {}, 'Approve');
    const params = oauth.validateAuthResponse(as, client, new URL(callback.location as string), state);
    const DPoP = oauth.DPoP(client, keys);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, verifier, { DPoP, ...insecure });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.token_type).toBe('dpop');
    return { accessToken: tokens.access_token, sub: oauth.getValidatedIdTokenClaims(tokens)?.sub as string };
  }

  /** A proof of `keys` made by hand, for what oauth4webapi would never send. */
  async function handMadeProof(htu: string): Promise<string> {
    return new SignJWT({ htm: 'GET', htu, jti: randomUUID(), ath: createHash('sha256').update(bound.accessToken).digest('base64url') })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
      .setIssuedAt()
      .sign(keys.privateKey);
  }

  async function userInfoWith(proof: string) {
    const response = await fetch(as.userinfo_endpoint as string, { headers: { authorization: `DPoP ${bound.accessToken}`, dpop: proof } });
    return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.json() };
  }

  it('answers the claims to the bound token with a proof of its key, on GET and POST', async () => {
    const DPoP = oauth.DPoP(client, keys);
    const response = await oauth.userInfoRequest(as, client, bound.accessToken, { DPoP, ...insecure });
    expect(await oauth.processUserInfoResponse(as, client, bound.sub, response)).toEqual({
      sub: bound.sub,
      name: 'Dana Demo',
      school_id: 'demo-school',
      role: 'owner',
    });

    const proof = new SignJWT({ htm: 'POST', htu: as.userinfo_endpoint, jti: randomUUID(), ath: createHash('sha256').update(bound.accessToken).digest('base64url') })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(keys.publicKey) })
      .setIssuedAt()
      .sign(keys.privateKey);
    const post = await fetch(as.userinfo_endpoint as string, { method: 'POST', headers: { authorization: `DPoP ${bound.accessToken}`, dpop: await proof } });
    expect(post.status).toBe(200);
    expect(await post.json()).toMatchObject({ sub: bound.sub });
  });

  it('refuses the bound token presented as Bearer, challenging in both schemes (RFC 9449 §7.1, §7.2)', async () => {
    const response = await oauth.userInfoRequest(as, client, bound.accessToken, insecure);
    const description = 'This access token is bound to a DPoP key: present it with the DPoP scheme and a proof';
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="${description}", DPoP ${ALGS}`);
    const error = await oauth.processUserInfoResponse(as, client, bound.sub, response).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((error as oauth.WWWAuthenticateChallengeError).cause.map(({ scheme, parameters }) => ({ scheme, error: parameters.error }))).toEqual([
      { scheme: 'bearer', error: 'invalid_token' },
      { scheme: 'dpop', error: undefined },
    ]);
  });

  it('refuses a proof by another key than the token is bound to', async () => {
    const response = await oauth.userInfoRequest(as, client, bound.accessToken, { DPoP: oauth.DPoP(client, otherKeys), ...insecure });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer, DPoP error="invalid_token", error_description="Invalid DPoP key binding", ${ALGS}`);
    expect(await response.json()).toEqual({ error: 'invalid_token', error_description: 'Invalid DPoP key binding' });
  });

  it('refuses a proof for another URL (the token endpoint, and the Host header’s origin)', async () => {
    for (const htu of [as.token_endpoint as string, `http://localhost:${new URL(server.issuer).port}/api/oauth/userinfo`]) {
      expect(await userInfoWith(await handMadeProof(htu))).toEqual({
        status: 401,
        challenge: `Bearer, DPoP error="invalid_dpop_proof", error_description="The DPoP proof is for another URL", ${ALGS}`,
        body: { error: 'invalid_dpop_proof', error_description: 'The DPoP proof is for another URL' },
      });
    }
  });

  it('refuses a proof used before, and the token still answers with a fresh one', async () => {
    const proof = await handMadeProof(as.userinfo_endpoint as string);
    expect(await userInfoWith(proof)).toMatchObject({ status: 200, body: { sub: bound.sub } });
    expect(await userInfoWith(proof)).toEqual({
      status: 401,
      challenge: `Bearer, DPoP error="invalid_dpop_proof", error_description="The DPoP proof was used before", ${ALGS}`,
      body: { error: 'invalid_dpop_proof', error_description: 'The DPoP proof was used before' },
    });
    expect(await userInfoWith(await handMadeProof(as.userinfo_endpoint as string))).toMatchObject({ status: 200, body: { sub: bound.sub } });
  });
});
