/**
 * Every revocation is published so resource servers can drop cached introspection answers
 * at once: over Redis pub/sub when REDIS_URL is set, over the in-process bus otherwise.
 */
import { TOKEN_REVOKED_CHANNEL, type TokenRevokedEvent } from '@platform/contracts';
import { createEventBus, type EventBus } from '@platform/event-bus';
import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { BrowserLikeAgent } from '../../../tools/test-support/browser-like-agent';
import { rotatedBeyondReuseWindow } from './support/refresh-window';
import { DEMO_USER, startTestAuthServer, type TestAuthServer } from './support/test-auth-server';

jest.setTimeout(60_000);

const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };
const sha256 = (token: string) => createHash('sha256').update(token).digest('base64url');

let server: TestAuthServer;
let subscriber: EventBus;
const events: TokenRevokedEvent[] = [];

beforeAll(async () => {
  server = await startTestAuthServer();
  subscriber = await createEventBus(process.env['REDIS_URL']);
  await subscriber.subscribe<TokenRevokedEvent>(TOKEN_REVOKED_CHANNEL, (event) => events.push(event));
});

afterAll(async () => {
  await subscriber?.close();
  await server?.close();
});

/**
 * The first event about any of `hashes`. Other suites share this Redis and channel in CI and
 * publish their own revocations meanwhile: those are not this test's events.
 */
async function nextEventAbout(hashes: readonly string[]): Promise<TokenRevokedEvent> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const index = events.findIndex((event) => event.accessTokenHashes.some((hash) => hashes.includes(hash)));
    if (index >= 0) return events.splice(index, 1)[0];
    if (Date.now() > deadline) throw new Error('no revocation event about these tokens within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function tokens(config: oidc.Configuration) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'students:read',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const agent = new BrowserLikeAgent(server.issuer);
  const login = await agent.open(url.toString());
  const consent = await agent.submit(login, { email: DEMO_USER.email, password: DEMO_USER.password });
  // A consent this user gave the client before is remembered: the code comes at once.
  const callback = consent.location ? consent : await agent.submit(consent, {}, 'Approve');
  return oidc.authorizationCodeGrant(config, new URL(callback.location as string), { pkceCodeVerifier: verifier });
}

describe(`revocation events (${process.env['REDIS_URL'] ? 'Redis pub/sub' : 'in-process bus'})`, () => {
  let config: oidc.Configuration;

  beforeAll(async () => {
    config = await oidc.dynamicClientRegistration(
      new URL(server.issuer),
      { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      oidc.None(),
      insecure,
    );
  });

  beforeEach(() => events.splice(0));

  it('publishes the hash of a revoked access token, never the token', async () => {
    const issued = await tokens(config);
    await oidc.tokenRevocation(config, issued.access_token);
    const event = await nextEventAbout([sha256(issued.access_token)]);
    expect(event).toEqual({ accessTokenHashes: [sha256(issued.access_token)], reason: 'revocation', at: expect.any(Number) });
    expect(JSON.stringify(event)).not.toContain(issued.access_token);
  });

  it('publishes every live access token of a grant whose refresh token is replayed', async () => {
    const issued = await tokens(config);
    const rotated = await oidc.refreshTokenGrant(config, issued.refresh_token as string);
    await rotatedBeyondReuseWindow(server, issued.refresh_token as string);
    await expect(oidc.refreshTokenGrant(config, issued.refresh_token as string)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const event = await nextEventAbout([sha256(issued.access_token), sha256(rotated.access_token)]);
    expect(event.reason).toBe('refresh_token_reuse');
    expect(new Set(event.accessTokenHashes)).toEqual(new Set([sha256(issued.access_token), sha256(rotated.access_token)]));
  });
});
