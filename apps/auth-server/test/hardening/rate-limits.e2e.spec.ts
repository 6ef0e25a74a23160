/**
 * Request rate limits and the login backoff, through the real HTTP server. Budgets are kept apart per test by X-Forwarded-For: the
 * test talks from 127.0.0.1, which TRUSTED_PROXIES=loopback trusts like the gateway.
 *
 * HARDENING_OFF=rate-limits (RATE_LIMITS_ENABLED=false) or HARDENING_OFF=login-throttle (no backoff) shows
 * which tests stand for which protection: they fail.
 */
import { randomBytes } from 'node:crypto';
import { realRedisUrl } from '../../../../tools/test-support/real-services';
import { DEMO, FormAgent, REDIRECT_URI, authorizationCode, authorizationUrl, pkce, post, registerClient } from './support/oauth';
import { INTROSPECTION_CLIENT, type HardenedAuthServer, createAccount, startHardenedAuthServer } from './support/hardened-auth-server';
import { PrivateRedis, waitFor } from '../../../../tools/test-support/private-redis';

jest.setTimeout(60_000);

const off = new Set((process.env['HARDENING_OFF'] ?? '').split(',').filter(Boolean));

const LIMITS = {
  RATE_LIMITS_ENABLED: off.has('rate-limits') ? 'false' : 'true',
  RATE_LIMIT_REGISTRATION_PER_IP: '3',
  RATE_LIMIT_TOKEN_PER_IP: '8',
  // The per-address, per-grant, per-user and per-client token windows: short, so a test can wait one out.
  RATE_LIMIT_TOKEN_WINDOW_SECONDS: '3',
  RATE_LIMIT_TOKEN_FAILURES_PER_IP: '4',
  RATE_LIMIT_TOKEN_PER_GRANT: '3',
  RATE_LIMIT_TOKEN_PER_USER: '6',
  RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: '3',
  RATE_LIMIT_INTROSPECTION_PER_CALLER: '3',
  // Short, so that a test can present a token rotated out past it.
  REFRESH_REUSE_GRACE_SECONDS: '1',
  LOGIN_FREE_FAILURES_PER_ACCOUNT: off.has('login-throttle') ? '1000000' : '3',
  LOGIN_FREE_FAILURES_PER_IP: off.has('login-throttle') ? '1000000' : '6',
  LOGIN_BACKOFF_BASE_SECONDS: '2',
  LOGIN_BACKOFF_MAX_SECONDS: '8',
  TRUSTED_PROXIES: 'loopback',
};

/** A fresh client address, so every test has budgets of its own (also across runs on a shared Redis). */
const address = () => `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0] % 250)}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

function expectTooManyRequests(response: { status: number; headers: Headers; json(): unknown }, subject: RegExp) {
  expect(response.status).toBe(429);
  expect(response.headers.get('content-type')).toContain('application/json');
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter > 0).toBe(true);
  expect(response.json()).toEqual({ error: 'too_many_requests', error_description: expect.stringMatching(subject) });
}

const TOKEN_PATH = '/api/oauth/token';

/** A user's first tokens for the client, the code exchanged from `ip`. */
async function signIn(server: HardenedAuthServer, client: { client_id: string; client_secret?: string }, ip: string, account = DEMO) {
  const { verifier, challenge } = pkce();
  const code = await authorizationCode(server.url, client.client_id, challenge, account);
  const response = await post(
    `${server.url}${TOKEN_PATH}`,
    { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: client.client_id, ...(client.client_secret ? { client_secret: client.client_secret } : {}) },
    from(ip),
  );
  expect(response.status).toBe(200);
  return response.json<{ refresh_token: string }>().refresh_token;
}

function refresh(server: HardenedAuthServer, clientId: string, refreshToken: string, ip: string) {
  return post(`${server.url}${TOKEN_PATH}`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }, from(ip));
}

async function newUser(server: HardenedAuthServer) {
  const account = { email: `user-${randomBytes(4).toString('hex')}@academy.test`, password: 'a-password-of-theirs' };
  await createAccount(server, account.email, account.password);
  return account;
}

const waitOut = (response: { headers: Headers }) => new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000 + 200));

async function tryLogin(server: HardenedAuthServer, agent: FormAgent, clientId: string, email: string, password: string) {
  const login = await agent.open(authorizationUrl(server.url, clientId, pkce().challenge));
  expect(login.status).toBe(200);
  return agent.submit(login, { email, password });
}

function describeLimits(name: string, redisUrl: () => string | undefined) {
  describe(name, () => {
    let server: HardenedAuthServer;
    let clientId: string;

    beforeAll(async () => {
      const url = redisUrl();
      server = await startHardenedAuthServer({ env: { ...LIMITS, ...(url ? { REDIS_URL: url } : {}) } });
      clientId = (await registerClient(server.url, {}, from(address()))).client_id;
    });

    afterAll(async () => {
      await server?.close();
    });

    it('registration: 429 too_many_requests with Retry-After past the per-address limit; other addresses unaffected', async () => {
      const ip = address();
      for (let i = 0; i < 3; i++) await registerClient(server.url, {}, from(ip));
      const refused = await post(`${server.url}/api/oauth/register`, { json: { redirect_uris: ['http://127.0.0.1/cb'] } }, from(ip));
      expectTooManyRequests(refused, /registration endpoint/);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(3600);
      await registerClient(server.url, {}, from(address()));
    });

    it('token endpoint: naming a public client from another address spends nothing of its users’ budgets; that address is throttled for its failures', async () => {
      const client = await registerClient(server.url, {}, from(address()));
      const user = address();
      let refreshToken = await signIn(server, client, user);
      const guesser = address();
      const answers: number[] = [];
      for (let i = 0; i < 12; i++) answers.push((await refresh(server, client.client_id, randomBytes(32).toString('base64url'), guesser)).status);
      expect(answers.slice(0, 4)).toEqual(Array(4).fill(400));
      expect(answers.slice(4)).toEqual(Array(8).fill(429));
      expectTooManyRequests(await refresh(server, client.client_id, 'x'.repeat(43), guesser), /token endpoint from this address after its failed requests/);
      // The client's user, elsewhere: served.
      const served = await refresh(server, client.client_id, refreshToken, user);
      expect(served.status).toBe(200);
      refreshToken = served.json<{ refresh_token: string }>().refresh_token;
      // Another address, even naming an unknown client: its own count.
      expect((await post(`${server.url}${TOKEN_PATH}`, { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43), client_id: 'nobody' }, from(address()))).status).toBe(401);
    });

    it('token endpoint: wrong client secrets (invalid_client) count as failures too', async () => {
      const ip = address();
      const basic = `Basic ${Buffer.from(`${INTROSPECTION_CLIENT.id}:not-the-secret`).toString('base64')}`;
      for (let i = 0; i < 4; i++) {
        expect((await post(`${server.url}${TOKEN_PATH}`, { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43) }, { ...from(ip), authorization: basic })).status).toBe(401);
      }
      expectTooManyRequests(await post(`${server.url}${TOKEN_PATH}`, { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43) }, { ...from(ip), authorization: basic }), /after its failed requests/);
    });

    it('token endpoint: ordinary failures (rotated-out and revoked refresh tokens presented again) never throttle an address', async () => {
      const client = await registerClient(server.url, {}, from(address()));
      const ip = address();
      const first = await signIn(server, client, ip, await newUser(server));
      expect((await refresh(server, client.client_id, first, ip)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, (server.config.ttl.refreshReuseGrace + 1) * 1000));
      // Past the reuse window, from another address: reuse, the grant is revoked; then a revoked
      // token, again and again: more than the address's four failures, fewer than its eight requests.
      const other = address();
      for (let i = 0; i < 7; i++) {
        const response = await refresh(server, client.client_id, first, other);
        expect(response.status).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_grant' });
      }
    });

    it('token endpoint: per address, before the body is read: a flood of requests that are not even guesses', async () => {
      const ip = address();
      for (let i = 0; i < 8; i++) {
        const response = await post(`${server.url}${TOKEN_PATH}`, { client_id: `c${i}-${ip}` }, from(ip));
        expect(response.status).toBe(400);
      }
      expectTooManyRequests(await post(`${server.url}${TOKEN_PATH}`, { grant_type: 'refresh_token', client_id: 'fresh' }, from(ip)), /^Too many requests to the token endpoint;/);
    });

    it('token endpoint: one grant refreshing in a loop is refused BEFORE its token rotates: after the window the same token works', async () => {
      const client = await registerClient(server.url, {}, from(address()));
      let refreshToken = await signIn(server, client, address(), await newUser(server));
      // The code exchange was the grant's first of three. A success is counted as it is answered
      // (with Redis, once Redis answers): at most one more may get through meanwhile.
      let served = 0;
      let refused;
      while (served < 4) {
        const response = await refresh(server, client.client_id, refreshToken, address());
        if (response.status !== 200) {
          refused = response;
          break;
        }
        served++;
        refreshToken = response.json<{ refresh_token: string }>().refresh_token;
      }
      expect(served).toBeGreaterThanOrEqual(2);
      expect(served).toBeLessThanOrEqual(3);
      expectTooManyRequests(refused as NonNullable<typeof refused>, /token endpoint for this grant/);
      await waitOut(refused as NonNullable<typeof refused>);
      // Not rotated by the refused request: the token the client holds is still the current one.
      expect((await refresh(server, client.client_id, refreshToken, address())).status).toBe(200);
    });

    it('token endpoint: one user hammering over several grants is refused for the user', async () => {
      const account = await newUser(server);
      const clients = await Promise.all([0, 1, 2].map(() => registerClient(server.url, {}, from(address()))));
      const tokens: string[] = [];
      for (const client of clients) tokens.push(await signIn(server, client, address(), account));
      // Past the window of the code exchanges: the six refreshes below are the user's six.
      await new Promise((resolve) => setTimeout(resolve, 3_200));
      for (let i = 0; i < 6; i++) {
        const which = i % 3;
        const response = await refresh(server, clients[which].client_id, tokens[which], address());
        expect(response.status).toBe(200);
        tokens[which] = response.json<{ refresh_token: string }>().refresh_token;
      }
      // Each grant has spent two of its three; the user all six. With Redis the sixth is counted
      // once Redis answers, a moment after its response.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expectTooManyRequests(await refresh(server, clients[2].client_id, tokens[2], address()), /token endpoint for this user/);
    });

    it('token endpoint: a confidential client spends its own budget once authenticated; failed attempts naming it spend none of it', async () => {
      const client = await registerClient(server.url, { token_endpoint_auth_method: 'client_secret_post' }, from(address()));
      const basic = `Basic ${Buffer.from(`${client.client_id}:wrong`).toString('base64')}`;
      for (let i = 0; i < 6; i++) {
        expect((await post(`${server.url}${TOKEN_PATH}`, { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43) }, { ...from(address()), authorization: basic })).status).toBe(401);
      }
      const own = { grant_type: 'refresh_token', refresh_token: 'x'.repeat(43), client_id: client.client_id, client_secret: client.client_secret as string };
      // Unknown refresh tokens: authenticated, then refused by the grant (each from a fresh address, so not throttled as failures).
      for (let i = 0; i < 3; i++) expect((await post(`${server.url}${TOKEN_PATH}`, own, from(address()))).status).toBe(400);
      expectTooManyRequests(await post(`${server.url}${TOKEN_PATH}`, own, from(address())), /token endpoint for this client/);
    });

    it('introspection: per caller and address', async () => {
      const caller = { client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret, token: 'x'.repeat(43) };
      const ip = address();
      for (let i = 0; i < 3; i++) expect((await post(`${server.url}/api/oauth/introspect`, caller, from(ip))).json()).toEqual({ active: false });
      expectTooManyRequests(await post(`${server.url}/api/oauth/introspect`, caller, from(ip)), /introspection endpoint/);
      // Naming the same caller from another address spent nothing of this one's budget, and the other way round.
      expect((await post(`${server.url}/api/oauth/introspect`, caller, from(address()))).json()).toEqual({ active: false });
    });

    it('login: a locked account and an unknown email answer alike: 429 page with Retry-After, after the free failures', async () => {
      const known = `known-${randomBytes(4).toString('hex')}@academy.test`;
      await createAccount(server, known, 'the-right-password');
      const unknown = `nobody-${randomBytes(4).toString('hex')}@academy.test`;
      const answers = [];
      for (const email of [known, unknown]) {
        const agent = new FormAgent(server.url, from(address()));
        for (let i = 0; i < 4; i++) expect((await tryLogin(server, agent, clientId, email, 'wrong-password')).status).toBe(401);
        // Locked: even the right password is refused until the lock ends.
        answers.push(await tryLogin(server, agent, clientId, email, 'the-right-password'));
      }
      for (const refused of answers) {
        expect(refused.status).toBe(429);
        expect(refused.headers.get('content-type')).toContain('text/html');
        expect(refused.headers.get('retry-after')).toMatch(/^[12]$/);
        expect(refused.text).toContain('Too many sign-in attempts');
        expect(refused.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      }
      // Same page for both, byte for byte (nothing tells which email has an account).
      expect(answers[0].text).toBe(answers[1].text);
    });

    it('login: the lock doubles with each further failure, and the right password works once it is over', async () => {
      const email = `doubling-${randomBytes(4).toString('hex')}@academy.test`;
      await createAccount(server, email, DEMO.password);
      const agent = new FormAgent(server.url, from(address()));
      for (let i = 0; i < 4; i++) await tryLogin(server, agent, clientId, email, 'wrong-password');
      const first = await tryLogin(server, agent, clientId, email, DEMO.password);
      expect(first.status).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, Number(first.headers.get('retry-after')) * 1000 + 100));
      expect((await tryLogin(server, agent, clientId, email, 'wrong-password')).status).toBe(401);
      const second = await tryLogin(server, agent, clientId, email, DEMO.password);
      expect(second.status).toBe(429);
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(2);
      expect(Number(second.headers.get('retry-after'))).toBeLessThanOrEqual(4);
      await new Promise((resolve) => setTimeout(resolve, Number(second.headers.get('retry-after')) * 1000 + 100));
      const signedIn = await tryLogin(server, agent, clientId, email, DEMO.password);
      expect(signedIn.status).toBe(200);
      expect(signedIn.text).toContain('wants to access your account');
      // A success clears the account's failures: three more are free again.
      for (let i = 0; i < 3; i++) expect((await tryLogin(server, new FormAgent(server.url, from(address())), clientId, email, 'nope')).status).toBe(401);
    });

    it('login: one address spraying one password over many accounts is locked too', async () => {
      const agent = new FormAgent(server.url, from(address()));
      const statuses = [];
      for (let i = 0; i < 8; i++) {
        statuses.push((await tryLogin(server, agent, clientId, `spray-${i}-${randomBytes(3).toString('hex')}@academy.test`, 'Summer2026!')).status);
      }
      expect(statuses.slice(0, 7)).toEqual(Array(7).fill(401));
      expect(statuses[7]).toBe(429);
      // Another address, same target: still free.
      expect((await tryLogin(server, new FormAgent(server.url, from(address())), clientId, `spray-x@academy.test`, 'Summer2026!')).status).toBe(401);
    });
  });
}

describeLimits('limits counted in-process (no REDIS_URL)', () => undefined);

if (realRedisUrl()) {
  describeLimits('limits counted in Redis (REDIS_URL)', realRedisUrl);

  describe('two instances on one Redis', () => {
    let first: HardenedAuthServer;
    let second: HardenedAuthServer;

    beforeAll(async () => {
      const env = { ...LIMITS, REDIS_URL: realRedisUrl() as string };
      first = await startHardenedAuthServer({ env });
      // Instances of one server share its issuer (and so its counters), whatever port each listens on.
      second = await startHardenedAuthServer({ env: { ...env, PUBLIC_BASE_URL: first.issuer }, database: first.database });
    });

    afterAll(async () => {
      await second?.close();
      await first?.close();
      await first?.database.drop();
    });

    it('share one budget per address', async () => {
      const ip = address();
      await registerClient(first.url, {}, from(ip));
      await registerClient(second.url, {}, from(ip));
      await registerClient(first.url, {}, from(ip));
      expectTooManyRequests(await post(`${second.url}/api/oauth/register`, { json: { redirect_uris: ['http://127.0.0.1/cb'] } }, from(ip)), /registration/);
    });

    it('share the failure count of an address: the other instance refuses it from its own next failure on', async () => {
      const ip = address();
      const guess = () => ({ grant_type: 'refresh_token', refresh_token: randomBytes(32).toString('base64url'), client_id: 'nobody' });
      for (let i = 0; i < 4; i++) expect((await post(`${first.url}${TOKEN_PATH}`, guess(), from(ip))).status).toBe(401);
      expect((await post(`${first.url}${TOKEN_PATH}`, guess(), from(ip))).status).toBe(429);
      // The second instance has not counted this address yet: one more failure, whose count is the shared one.
      expect((await post(`${second.url}${TOKEN_PATH}`, guess(), from(ip))).status).toBe(401);
      expectTooManyRequests(await post(`${second.url}${TOKEN_PATH}`, guess(), from(ip)), /after its failed requests/);
    });

    it('share the login lock of an account', async () => {
      const email = `shared-${randomBytes(4).toString('hex')}@academy.test`;
      const { client_id } = await registerClient(first.url, {}, from(address()));
      for (let i = 0; i < 4; i++) {
        const server = i % 2 === 0 ? first : second;
        await tryLogin(server, new FormAgent(server.url, from(address())), client_id, email, 'wrong');
      }
      expect((await tryLogin(second, new FormAgent(second.url, from(address())), client_id, email, 'wrong')).status).toBe(429);
    });
  });
} else {
  it.skip('limits counted in Redis, shared by two instances: skipped, needs a real Redis (set REDIS_URL)', () => undefined);
}

describe('forged X-Forwarded-For from a peer that is not a trusted proxy', () => {
  let server: HardenedAuthServer;

  beforeAll(async () => {
    // The test's own address (127.0.0.1) is not the configured proxy here.
    server = await startHardenedAuthServer({ env: { ...LIMITS, TRUSTED_PROXIES: '192.0.2.10' } });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('does not buy a fresh budget', async () => {
    for (let i = 0; i < 3; i++) await registerClient(server.url, {}, from(address()));
    expectTooManyRequests(await post(`${server.url}/api/oauth/register`, { json: { redirect_uris: ['http://127.0.0.1/cb'] } }, from(address())), /registration/);
  });
});

describe('switched off (RATE_LIMITS_ENABLED=false)', () => {
  let server: HardenedAuthServer;

  beforeAll(async () => {
    server = await startHardenedAuthServer({ env: { ...LIMITS, RATE_LIMITS_ENABLED: 'false' } });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('lets every registration through', async () => {
    const ip = address();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await post(`${server.url}/api/oauth/register`, { json: { redirect_uris: [REDIRECT_URI] } }, from(ip))).status);
    }
    expect(statuses).toEqual(Array(6).fill(201));
  });
});

(PrivateRedis.available() ? describe : describe.skip)('when the Redis of the counters stops and starts again', () => {
  const redis = new PrivateRedis();
  let server: HardenedAuthServer;

  beforeAll(async () => {
    await redis.start();
    server = await startHardenedAuthServer({ env: { ...LIMITS, REDIS_URL: redis.url } });
  });

  afterAll(async () => {
    await server?.close();
    await redis.destroy();
  });

  it('keeps limiting in-process during the outage, without errors or waiting, and counts in Redis again after it', async () => {
    await redis.stop();
    const during = address();
    const started = Date.now();
    for (let i = 0; i < 3; i++) await registerClient(server.url, {}, from(during));
    expectTooManyRequests(await post(`${server.url}/api/oauth/register`, { json: { redirect_uris: ['http://127.0.0.1/cb'] } }, from(during)), /registration/);
    expect(Date.now() - started).toBeLessThan(5_000);

    await redis.start();
    const after = address();
    await waitFor(
      async () => {
        await registerClient(server.url, {}, from(address()));
        return (await (await import('redis')).createClient({ url: redis.url }).connect().then(async (client) => {
          const keys = await client.keys('auth-server:limits:*register:ip:*');
          await client.close();
          return keys.length > 0;
        }));
      },
      10_000,
      'the counters did not come back to Redis',
    );
    for (let i = 0; i < 3; i++) await registerClient(server.url, {}, from(after));
    expectTooManyRequests(await post(`${server.url}/api/oauth/register`, { json: { redirect_uris: ['http://127.0.0.1/cb'] } }, from(after)), /registration/);
  });
  it('keeps limiting in-process while Redis is frozen (connections open, no answers), no request waiting on it', async () => {
    const during = address();
    redis.freeze();
    try {
      const started = Date.now();
      for (let i = 0; i < 3; i++) await registerClient(server.url, {}, from(during));
      expectTooManyRequests(await post(`${server.url}/api/oauth/register`, { json: { redirect_uris: ['http://127.0.0.1/cb'] } }, from(during)), /registration/);
      // One command waits for its timeout (200 ms); the others do not even try until a second has passed.
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      redis.thaw();
    }
  });
});
