/**
 * A staff integration registered with the clients CLI and a public key (private_key_jwt, RFC
 * 7523), driven by a real client library's own private_key_jwt support (openid-client v6
 * `PrivateKeyJwt`): the code flow, introspection of its own token, a refresh and a revocation,
 * each authenticated by a fresh signed assertion; the same client without its signature (client_id
 * alone, or a secret) is invalid_client.
 */
import { exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import * as oidc from 'openid-client';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { runClientsCli } from '../../src/cli/clients-cli';
import { DEMO_USER, startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';

jest.setTimeout(60_000);

const CALLBACK = 'https://lms.acme.example/oauth/callback';
const KID = 'lms-signing-2026';
const insecure = { execute: [oidc.allowInsecureRequests] };
let server: TestAuthServer;
let privateKey: CryptoKey;
let clientId: string;

beforeAll(async () => {
  server = await startTestAuthServer();
  const pair = await generateKeyPair('ES256', { extractable: true });
  privateKey = pair.privateKey;
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: KID, use: 'sig' }] });
  const out: string[] = [];
  const env = { AUTH_DATABASE_URL: server.config.database.url, ...(process.env['REDIS_URL'] ? { REDIS_URL: process.env['REDIS_URL'] } : {}) };
  const status = await runClientsCli(['create', '--name', 'Acme LMS', '--redirect-uri', CALLBACK, '--jwks', jwks, '--json'], env, {
    out: (line) => out.push(line),
    err: (line) => out.push(line),
  });
  if (status !== 0) throw new Error(out.join('\n'));
  clientId = JSON.parse(out.join('\n')).clientId;
});
afterAll(async () => server?.close());

const configWith = (auth: oidc.ClientAuth) => oidc.discovery(new URL(server.issuer), clientId, undefined, auth, insecure);

async function codeFlow(config: oidc.Configuration) {
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid profile offline_access',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: 's',
  });
  const agent = new BrowserLikeAgent(new URL(server.issuer).origin);
  const login = await agent.open(url.toString());
  const afterLogin = await agent.submit(login, { email: DEMO_USER.email, password: DEMO_USER.password });
  // A consent this user gave the client before is remembered: the code comes at once.
  const callback = afterLogin.location ? afterLogin : await agent.submit(afterLogin, {}, 'Approve');
  expect(callback.location?.startsWith(`${CALLBACK}?code=`)).toBe(true);
  return oidc.authorizationCodeGrant(config, new URL(callback.location as string), { pkceCodeVerifier: verifier, expectedState: 's' });
}

it('discovery advertises private_key_jwt and its algorithms at all three endpoints', async () => {
  const metadata = (await configWith(oidc.None())).serverMetadata();
  for (const endpoint of ['token', 'revocation', 'introspection'] as const) {
    expect(metadata[`${endpoint}_endpoint_auth_methods_supported`]).toContain('private_key_jwt');
    expect(metadata[`${endpoint}_endpoint_auth_signing_alg_values_supported`]).toEqual(expect.arrayContaining(['RS256', 'PS256', 'ES256', 'EdDSA']));
    expect(metadata[`${endpoint}_endpoint_auth_signing_alg_values_supported`]).not.toContain('HS256');
  }
});

it("openid-client's PrivateKeyJwt: code flow, introspection, refresh and revocation, each with a fresh assertion", async () => {
  const config = await configWith(oidc.PrivateKeyJwt({ key: privateKey, kid: KID }));
  const tokens = await codeFlow(config);
  expect(tokens.refresh_token).toBeDefined();

  // Introspection of its own token, authenticated by private_key_jwt (RFC 7662 §2.1).
  expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, client_id: clientId });

  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
  expect(refreshed.access_token).not.toBe(tokens.access_token);

  await oidc.tokenRevocation(config, refreshed.refresh_token as string);
  expect(await oidc.tokenIntrospection(config, refreshed.access_token)).toEqual({ active: false });
  await expect(oidc.refreshTokenGrant(config, refreshed.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
});

it('the same client without its signature is invalid_client: client_id alone, or a secret', async () => {
  const tokens = await codeFlow(await configWith(oidc.PrivateKeyJwt({ key: privateKey, kid: KID })));
  for (const auth of [oidc.None(), oidc.ClientSecretPost('guessed-secret')]) {
    const downgraded = await configWith(auth);
    await expect(oidc.refreshTokenGrant(downgraded, tokens.refresh_token as string)).rejects.toMatchObject({
      status: 401,
      error: 'invalid_client',
      error_description: expect.stringContaining('authenticates with private_key_jwt'),
    });
  }
  // HTTP Basic: the 401 carries the Basic challenge (RFC 6749 §5.2), which openid-client reports as such.
  const basic = await configWith(oidc.ClientSecretBasic('guessed-secret'));
  const challenged = await oidc.refreshTokenGrant(basic, tokens.refresh_token as string).catch((error: unknown) => error);
  expect(challenged).toMatchObject({ status: 401 });
  const response = (challenged as { response: Response }).response;
  expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
  expect(await response.json()).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('authenticates with private_key_jwt') });
});

it('an assertion signed by another key is invalid_client', async () => {
  const { privateKey: otherKey } = await generateKeyPair('ES256');
  const forged = await configWith(oidc.PrivateKeyJwt({ key: otherKey, kid: KID }));
  await expect(oidc.refreshTokenGrant(forged, 'any-refresh-token')).rejects.toMatchObject({
    status: 401,
    error: 'invalid_client',
    error_description: expect.stringContaining('signature does not verify'),
  });
});
