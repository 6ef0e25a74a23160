/**
 * Server nonces (RFC 9449 §8, §9) on a platform of its own started with DPOP_NONCES: oauth4webapi
 * retries with the nonce the server gave it, at the token endpoint and at the API. The two servers
 * are one origin to the client, which keeps one nonce per origin: a nonce from the token endpoint
 * is good at the API.
 */
import { generateKeyPair } from 'jose';
import * as oauth from 'oauth4webapi';
import { randomBytes } from 'node:crypto';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { DEMO, REDIRECT_URI } from '../support/oauth-client';
import { type RunningPlatform, startPlatform } from '../support/platform-process';

jest.setTimeout(240_000);

const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** Runs `attempt`; on a use_dpop_nonce answer (the handle kept the nonce), once more, as RFC 9449 §8 and §9 expect of a client. */
async function withNonceRetry<T>(attempt: () => Promise<T>): Promise<{ result: T; retried: boolean }> {
  try {
    return { result: await attempt(), retried: false };
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return { result: await attempt(), retried: true };
  }
}

describe('DPoP server nonces through the origin (DPOP_NONCES=true)', () => {
  let platform: RunningPlatform;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;

  beforeAll(async () => {
    platform = await startPlatform({ DPOP_NONCES: 'true', DPOP_NONCE_SECRET: randomBytes(32).toString('base64url') });
    const issuer = new URL(platform.baseUrl);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const registered = await fetch(as.registration_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'DPoP nonce e2e', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
    });
    client = { client_id: ((await registered.json()) as { client_id: string }).client_id, token_endpoint_auth_method: 'none' };
  });

  afterAll(async () => platform?.stop());

  it('the client retries with the nonce at the token endpoint, then calls the API with it; a fresh handle is asked for one by the API', async () => {
    const pair = (await generateKeyPair('ES256')) as oauth.CryptoKeyPair;
    const DPoP = oauth.DPoP(client, pair);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'students:read',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    }).toString();
    const agent = new BrowserLikeAgent(platform.baseUrl);
    const consent = await agent.submit(await agent.open(url.toString()), { email: DEMO.email, password: DEMO.password });
    const callback = consent.location ? consent : await agent.submit(consent, {}, 'Approve');
    const params = oauth.validateAuthResponse(as, client, new URL(callback.location as string), state);

    const exchange = await withNonceRetry(async () =>
      oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT_URI, verifier, { DPoP, ...insecure }),
      ),
    );
    expect(exchange.retried).toBe(true);
    expect(exchange.result.token_type).toBe('dpop');
    const token = exchange.result.access_token;
    const students = new URL(`${platform.baseUrl}/api/v1/students`);

    // The handle holds the origin's nonce from the token endpoint: the API takes it at once.
    const call = await withNonceRetry(() => oauth.protectedResourceRequest(token, 'GET', students, undefined, undefined, { DPoP, ...insecure }));
    expect({ status: call.result.status, retried: call.retried }).toEqual({ status: 200, retried: false });

    // The same key without the nonce: 401 use_dpop_nonce with a DPoP-Nonce; the retry carries it.
    const fresh = oauth.DPoP(client, pair);
    const retriedCall = await withNonceRetry(() => oauth.protectedResourceRequest(token, 'GET', students, undefined, undefined, { DPoP: fresh, ...insecure }));
    expect({ status: retriedCall.result.status, retried: retriedCall.retried }).toEqual({ status: 200, retried: true });
  });

  it('the answer asking for a nonce: 401, DPoP error="use_dpop_nonce" and a DPoP-Nonce header (RFC 9449 §9)', async () => {
    const pair = (await generateKeyPair('ES256')) as oauth.CryptoKeyPair;
    const DPoP = oauth.DPoP(client, pair);
    const error = await oauth
      .protectedResourceRequest('some-token', 'GET', new URL(`${platform.baseUrl}/api/v1/students`), undefined, undefined, { DPoP, ...insecure })
      .then(
        () => undefined,
        (thrown: unknown) => thrown as oauth.WWWAuthenticateChallengeError,
      );
    expect(error?.status).toBe(401);
    expect(error?.response.headers.get('dpop-nonce')).toMatch(/^\d+\.[\w-]+$/);
    expect(error?.cause.find((challenge) => challenge.scheme === 'dpop')?.parameters.error).toBe('use_dpop_nonce');
  });
});
