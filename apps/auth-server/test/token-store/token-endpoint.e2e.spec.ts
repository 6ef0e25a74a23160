/**
 * The token endpoint and introspection over HTTP, on the one-statement paths and the
 * in-memory token state: what a client and a resource server see.
 */
import { INTROSPECTION_CLIENT, startTestAuthServer, type TestAuthServer } from '../support/test-auth-server';
import { authorizationCode, pkce, post, REDIRECT_URI, registerClient } from '../hardening/support/oauth';

jest.setTimeout(120_000);

let server: TestAuthServer;
let clientId: string;

beforeAll(async () => {
  server = await startTestAuthServer();
  clientId = (await registerClient(server.issuer, { token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] })).client_id;
});

afterAll(async () => {
  await server?.close();
});

interface Tokens {
  access_token: string;
  refresh_token: string;
  scope: string;
}

async function tokens(on = server, client = clientId): Promise<Tokens> {
  const { verifier, challenge } = pkce();
  const code = await authorizationCode(on.issuer, client, challenge);
  const answer = await post(`${on.issuer}/api/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: client,
    code_verifier: verifier,
  });
  expect(answer.status).toBe(200);
  return answer.json<Tokens>();
}

function refresh(refreshToken: string, extra: Record<string, string> = {}, on = server, client = clientId) {
  return post(`${on.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client, ...extra });
}

async function introspect(token: string, on = server): Promise<Record<string, unknown>> {
  const answer = await post(`${on.issuer}/api/oauth/introspect`, {
    token,
    client_id: INTROSPECTION_CLIENT.id,
    client_secret: INTROSPECTION_CLIENT.secret,
  });
  expect(answer.status).toBe(200);
  return answer.json();
}

describe('refresh grant in one statement', () => {
  it('refuses a scope beyond the grant with invalid_scope, and the token still rotates afterwards', async () => {
    const issued = await tokens();
    const beyond = await refresh(issued.refresh_token, { scope: 'openid admin:write' });
    expect(beyond.status).toBe(400);
    expect(beyond.json()).toMatchObject({ error: 'invalid_scope' });

    const narrowed = await refresh(issued.refresh_token, { scope: 'openid' });
    expect(narrowed.status).toBe(200);
    const pair = narrowed.json<Tokens>();
    expect(pair.scope).toBe('openid');
    expect(await introspect(pair.access_token)).toMatchObject({ active: true, scope: 'openid', client_id: clientId });
    // The successor keeps the original scope (RFC 6749 §6: "identical").
    const next = await refresh(pair.refresh_token);
    expect(next.json<Tokens>().scope).toBe(issued.scope);
  });

  it('refuses an empty scope with invalid_scope without rotating', async () => {
    const issued = await tokens();
    const empty = await refresh(issued.refresh_token, { scope: ' ' });
    expect(empty.status).toBe(400);
    expect(empty.json()).toMatchObject({ error: 'invalid_scope' });
    expect((await refresh(issued.refresh_token)).status).toBe(200);
  });

  it('refuses another client’s refresh token with invalid_grant and leaves it usable', async () => {
    const issued = await tokens();
    const other = (await registerClient(server.issuer, { token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] })).client_id;
    const stolen = await post(`${server.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: other });
    expect(stolen.status).toBe(400);
    expect(stolen.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(issued.refresh_token)).status).toBe(200);
  });
});

describe('introspection from the state held in memory', () => {
  it('answers a freshly issued token active, and inactive right after its revocation', async () => {
    const issued = await tokens();
    const active = await introspect(issued.access_token);
    expect(active).toMatchObject({ active: true, client_id: clientId, token_type: 'Bearer', aud: server.issuer });
    expect(typeof active['exp']).toBe('number');

    const revoked = await post(`${server.issuer}/api/oauth/revoke`, { token: issued.access_token, client_id: clientId });
    expect(revoked.status).toBe(200);
    expect(await introspect(issued.access_token)).toEqual({ active: false });
  });

  it('answers the tokens of a grant inactive once a replayed refresh token revoked it', async () => {
    // No reuse window: the replay below is reuse at once (RFC 9700 §4.14.2).
    const strict = await startTestAuthServer({ REFRESH_REUSE_GRACE_SECONDS: '0', REFRESH_STALE_SESSIONS_KEEP_GRANT: 'false' });
    try {
      const strictClient = (await registerClient(strict.issuer, { token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] })).client_id;
      const issued = await tokens(strict, strictClient);
      const rotated = (await refresh(issued.refresh_token, {}, strict, strictClient)).json<Tokens>();
      expect(await introspect(rotated.access_token, strict)).toMatchObject({ active: true });

      const replay = await refresh(issued.refresh_token, {}, strict, strictClient);
      expect(replay.status).toBe(400);
      expect(replay.json()).toMatchObject({ error: 'invalid_grant' });
      expect(await introspect(rotated.access_token, strict)).toEqual({ active: false });
      expect((await refresh(rotated.refresh_token, {}, strict, strictClient)).status).toBe(400);
    } finally {
      await strict.close();
    }
  });
});
