/**
 * private_key_jwt clients (RFC 7523 §2.2) through the origin, driven by a real client library's
 * own private_key_jwt support (oauth4webapi `PrivateKeyJwt`, which signs a fresh assertion for
 * each request):
 * - a hosted client shaped like ChatGPT's connectors, identified by its metadata document
 *   (`token_endpoint_auth_method: private_key_jwt`, the MCP SEP-3149 plural beside it, a
 *   per-connector callback https://<its origin>/connector/oauth/<id>), once with its public keys in
 *   the document (`jwks`) and once at a `jwks_uri` on its origin (as OpenAI documents its
 *   production document);
 * - a staff integration created with the clients CLI and a public key;
 * each completes the code flow, calls a private tool at /mcp, refreshes, and revokes (after which
 * its token gets 401 at /mcp). Then each way an assertion can be wrong is invalid_client on its own:
 * a wrong key, a replayed jti, an expired assertion, alg none, HS256, a wrong aud.
 *
 * The documents are served over TLS by a local https server whose certificate comes from the test
 * CA of the global setup (see cimd-mcp.e2e.spec.ts); a stack started elsewhere runs this suite only
 * with that CA (E2E_CIMD_TLS_DIR).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { loadTestTls, TlsDocumentServer, type TestTls } from '../../../../tools/test-support/test-tls';
import { CIMD_TLS_DIR_VARIABLE } from '../support/global-setup';
import { baseUrl } from '../support/platform';
import { platformAuthDatabaseUrl } from './platform-auth-database';
import { WatchfulPerson } from './cimd-provider';

jest.setTimeout(120_000);

const tlsDir = process.env[CIMD_TLS_DIR_VARIABLE];
if (!tlsDir) console.warn(`private_key_jwt end-to-end suite skipped: ${CIMD_TLS_DIR_VARIABLE} is not set (see cimd-mcp.e2e.spec.ts)`);
const describeWithTestCa = tlsDir ? describe : describe.skip;

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const SCOPE = 'students:read';

interface SigningKey {
  privateKey: CryptoKey;
  publicJwk: JWK;
  kid: string;
}

async function signingKey(kid: string, alg = 'ES256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, kid, publicJwk: { ...(await exportJWK(publicKey)), kid, use: 'sig' } };
}

/** This server's metadata, as a client discovers it (RFC 8414). */
async function discover(): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(baseUrl());
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
}

/** A JSON-RPC tools/call straight to /mcp with a bearer token. */
function listStudentsWith(accessToken: string) {
  return fetch(`${baseUrl()}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_students', arguments: { limit: 1 } } }),
  });
}

/**
 * The whole life of one grant with oauth4webapi's PrivateKeyJwt: a person's consent on the real
 * pages, the code exchange, a private tool at /mcp, a refresh, a revocation.
 */
async function completeLifecycle(as: oauth.AuthorizationServer, clientId: string, redirectUri: string, key: SigningKey) {
  const client: oauth.Client = { client_id: clientId };
  const clientAuth = oauth.PrivateKeyJwt({ key: key.privateKey, kid: key.kid });
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorization = new URL(as.authorization_endpoint as string);
  authorization.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: SCOPE,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const person = new WatchfulPerson();
  const callback = await person.authorize(authorization);
  expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);

  const params = oauth.validateAuthResponse(as, client, callback, state);
  const granted = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, insecure),
  );
  expect(granted.scope?.split(' ')).toContain(SCOPE);
  expect(granted.refresh_token).toBeDefined();
  expect((await listStudentsWith(granted.access_token)).status).toBe(200);

  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, granted.refresh_token as string, insecure),
  );
  expect(refreshed.access_token).not.toBe(granted.access_token);
  const tool = await listStudentsWith(refreshed.access_token);
  expect(tool.status).toBe(200);

  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token as string, insecure));
  const revoked = await listStudentsWith(refreshed.access_token);
  expect(revoked.status).toBe(401);
  return { person };
}

/** A token request authenticated by a hand-made assertion (the refusals need assertions no library would make). */
async function tokenRequestWith(clientAssertion: string, extra: Record<string, string> = {}) {
  const response = await fetch(`${baseUrl()}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token', client_assertion_type: JWT_BEARER, client_assertion: clientAssertion, ...extra }),
  });
  return { status: response.status, body: (await response.json()) as { error?: string; error_description?: string } };
}

let jtiCounter = 0;
function claims(clientId: string, overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return { iss: clientId, sub: clientId, aud: `${baseUrl()}/api/oauth/token`, iat: now, exp: now + 60, jti: `e2e-${Date.now()}-${++jtiCounter}`, ...overrides };
}

const sign = (key: SigningKey, payload: JWTPayload, alg = 'ES256') => new SignJWT(payload).setProtectedHeader({ alg, kid: key.kid }).sign(key.privateKey);

describeWithTestCa('private_key_jwt clients through the origin', () => {
  let tls: TestTls;
  let site: TlsDocumentServer;
  let as: oauth.AuthorizationServer;
  let inlineKey: SigningKey;
  let publishedKey: SigningKey;
  let inlineClientId: string;
  let publishedClientId: string;
  const callback = (id: string) => site.url(`/connector/oauth/${id}`);

  beforeAll(async () => {
    tls = loadTestTls(tlsDir as string);
    site = await new TlsDocumentServer(tls, '127.0.0.1').start();
    as = await discover();
    inlineKey = await signingKey('connector-2026');
    publishedKey = await signingKey('managed-1', 'RS256');
    const chatGptShaped = (id: string, keys: Record<string, unknown>) => (url: string) => ({
      client_id: url,
      client_name: 'e2e ChatGPT-shaped connector',
      redirect_uris: [callback(id)],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_methods_supported: ['none', 'private_key_jwt'],
      token_endpoint_auth_method: 'private_key_jwt',
      ...keys,
    });
    inlineClientId = site.json('/oauth/cb-jwks/client.json', chatGptShaped('cb-jwks', { jwks: { keys: [inlineKey.publicJwk] } }));
    const jwksUri = site.json('/oauth/jwks.json', { keys: [publishedKey.publicJwk] });
    publishedClientId = site.json('/oauth/cb-uri/client.json', chatGptShaped('cb-uri', { jwks_uri: jwksUri }));
  });

  afterAll(async () => {
    await site?.stop();
  });

  it('discovery advertises private_key_jwt and its asymmetric algorithms at the token, revocation and introspection endpoints', () => {
    for (const endpoint of ['token', 'revocation', 'introspection'] as const) {
      expect(as[`${endpoint}_endpoint_auth_methods_supported`]).toContain('private_key_jwt');
      expect(as[`${endpoint}_endpoint_auth_signing_alg_values_supported`]).toEqual(expect.arrayContaining(['RS256', 'PS256', 'ES256', 'EdDSA']));
      expect(as[`${endpoint}_endpoint_auth_signing_alg_values_supported`]?.some((alg) => alg === 'none' || alg.startsWith('HS'))).toBe(false);
    }
  });

  it('a ChatGPT-shaped document with jwks: consent naming its host, code flow, /mcp, refresh, revoke', async () => {
    const { person } = await completeLifecycle(as, inlineClientId, callback('cb-jwks'), inlineKey);
    expect(person.consentPages.at(-1)).toContain(`Application published by <strong>127.0.0.1:${site.port}</strong>`);
    expect(site.hitCount('/oauth/cb-jwks/client.json')).toBeGreaterThan(0);
  });

  it('a ChatGPT-shaped document with jwks_uri (its keys on its origin): the same, the keys fetched once', async () => {
    await completeLifecycle(as, publishedClientId, callback('cb-uri'), publishedKey);
    expect(site.hitCount('/oauth/jwks.json')).toBe(1);
  });

  it('the same client without an assertion (client_id alone) is invalid_client: it cannot fall back to none', async () => {
    const response = await fetch(`${baseUrl()}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: inlineClientId }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('authenticates with private_key_jwt') });
  });

  describe.each([
    ['jwks', () => ({ clientId: inlineClientId, key: inlineKey, alg: 'ES256' })],
    ['jwks_uri', () => ({ clientId: publishedClientId, key: publishedKey, alg: 'RS256' })],
  ])('assertions refused for the %s client: each invalid_client', (_kind, subject) => {
    const expectRefused = async (assertion: string, words: string) => {
      const { status, body } = await tokenRequestWith(assertion);
      expect(status).toBe(401);
      expect(body).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining(words) });
    };

    it('a wrong key (the same kid, another private key)', async () => {
      const { clientId, key, alg } = subject();
      const impostor = { ...(await signingKey(key.kid, alg)) };
      await expectRefused(await sign(impostor, claims(clientId), alg), 'signature does not verify');
    });

    it('a replayed jti: the first use authenticates, the replay does not', async () => {
      const { clientId, key, alg } = subject();
      const assertion = await sign(key, claims(clientId), alg);
      // Authenticated: the made-up refresh token is what is refused.
      expect(await tokenRequestWith(assertion)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      await expectRefused(assertion, 'was used before');
    });

    it('an expired assertion', async () => {
      const { clientId, key, alg } = subject();
      const now = Math.floor(Date.now() / 1000);
      await expectRefused(await sign(key, claims(clientId, { iat: now - 600, exp: now - 300 }), alg), 'has expired');
    });

    it('alg none', async () => {
      const { clientId } = subject();
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims(clientId))).toString('base64url')}.`;
      await expectRefused(unsigned, 'alg none');
    });

    it('HS256 (a shared secret instead of a key pair)', async () => {
      const { clientId } = subject();
      const hmac = await new SignJWT(claims(clientId)).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('shared-secret-shared-secret-32by'));
      await expectRefused(hmac, 'HMAC');
    });

    it('a wrong aud (another server)', async () => {
      const { clientId, key, alg } = subject();
      await expectRefused(await sign(key, claims(clientId, { aud: 'https://another-server.example/token' }), alg), 'aud must be');
    });
  });
});

describeWithTestCa('an integration created with the clients CLI and a public key, through the origin', () => {
  const CALLBACK = 'https://lms.acme.example/oauth/callback';
  let as: oauth.AuthorizationServer;
  let key: SigningKey;
  let clientId: string | undefined;
  let skipReason: string | undefined;

  beforeAll(async () => {
    as = await discover();
    key = await signingKey('lms-2026', 'PS256');
    const database = await platformAuthDatabaseUrl();
    if (!database) {
      skipReason = 'the platform runs on its embedded database, which the CLI cannot open while it runs (set DATABASE_URL)';
      console.warn(`clients CLI flow skipped: ${skipReason}`);
      return;
    }
    // What `npm run clients -- create ...` runs, as staff would beside the running platform.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        join(__dirname, '../../../../tools/clients/clients.cjs'),
        ...['create', '--name', 'e2e Acme LMS', '--redirect-uri', CALLBACK, '--default-scope', SCOPE, '--jwks', JSON.stringify({ keys: [key.publicJwk] }), '--json'],
      ],
      { env: { ...process.env, AUTH_DATABASE_URL: database } },
    );
    clientId = JSON.parse(stdout).clientId;
  });

  it('code flow, /mcp, refresh and revoke with its private key; a wrong key and client_id alone are invalid_client', async () => {
    if (!clientId) return expect(skipReason).toBeDefined();
    await completeLifecycle(as, clientId, CALLBACK, key);

    const impostor = await signingKey('lms-2026', 'PS256');
    const forged = await tokenRequestWith(await sign(impostor, claims(clientId), 'PS256'));
    expect(forged).toMatchObject({ status: 401, body: { error: 'invalid_client' } });

    const bare = await fetch(`${baseUrl()}/api/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x', client_id: clientId }),
    });
    expect(bare.status).toBe(401);
  });
});
