/**
 * Hosted agents at real scale (issue 28, "Shown by"), through the gateway with the PRODUCTION
 * limits: a platform of its own, started with none of the limits the other suites relax. The
 * test stands for a trusted proxy hop in front of the gateway (GATEWAY_TRUST_PROXY=loopback), so
 * the X-Forwarded-For it sends is each request's client address:
 * - 150 users of one hosted public client refresh within a minute from one egress address: all 200
 *   (the per-client_id budget of 60 a minute refused 90 of them);
 * - 120 bad refresh requests naming that client from another address: that address is throttled
 *   for its failures, the client's users are not (they were locked out by anyone naming it);
 * - the abusive cases are still limited: one grant refreshing in a loop, one user over many grants,
 *   one address registering in bulk, one address guessing.
 *
 * HARDENING_OFF=rate-limits starts the platform with RATE_LIMITS_ENABLED=false: the tests of the
 * abusive cases then fail, each for its own limit.
 */
import { hash } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { BrowserLikeAgent } from '../../../../tools/test-support/browser-like-agent';
import { describeIfPostgres } from '../../../../tools/test-support/real-services';
import { type RunningPlatform, startPlatform } from '../support/platform-process';

jest.setTimeout(900_000);

const off = (process.env['HARDENING_OFF'] ?? '').split(',').includes('rate-limits');
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
const PASSWORD = 'a-hosted-agents-user';
const USERS = 150;
/** The hosted agent's egress address, and an unrelated one. */
const EGRESS = '198.51.100.10';
const ELSEWHERE = '203.0.113.99';

/** Production limits: every limit variable the platform suites relax, unset again (and the login backoff left generous: not under test). */
const PRODUCTION_LIMITS: NodeJS.ProcessEnv = {
  RATE_LIMIT_REGISTRATION_PER_IP: undefined,
  RATE_LIMIT_TOKEN_PER_IP: undefined,
  RATE_LIMIT_TOKEN_FAILURES_PER_IP: undefined,
  RATE_LIMIT_TOKEN_PER_GRANT: undefined,
  RATE_LIMIT_TOKEN_PER_USER: undefined,
  RATE_LIMIT_TOKEN_PER_AUTHENTICATED_CLIENT: undefined,
  RATE_LIMIT_WRITES_PER_USER: undefined,
  RATE_LIMIT_ANONYMOUS_PER_IP: undefined,
  RATE_LIMITS_ENABLED: off ? 'false' : 'true',
};

interface Tokens {
  access_token: string;
  refresh_token: string;
}

let platform: RunningPlatform;
let base: string;
let authDatabase: { url: string; drop(): Promise<void> };
let addresses = 0;
const freshAddress = () => `10.77.${Math.floor(++addresses / 250)}.${1 + (addresses % 250)}`;

async function createAuthDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env['DATABASE_URL'];
  if (!server) throw new Error('this suite needs DATABASE_URL (a real PostgreSQL): it adds users to the auth database');
  const name = `e2e_limits_auth_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: server });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

/** Users of the demo school, one password hash for all (one argon2 run). */
async function createUsers(count: number, prefix: string): Promise<string[]> {
  const passwordHash = await hash(PASSWORD);
  const client = new pg.Client({ connectionString: authDatabase.url });
  await client.connect();
  const emails = Array.from({ length: count }, (_, i) => `${prefix}-${i}@academy.test`);
  try {
    for (const email of emails) {
      await client.query(`INSERT INTO users (id, school_id, email, name, role, password_hash, email_verified) VALUES ($1, 'demo-school', $2, 'Agent User', 'member', $3, true)`, [
        `user-${email}`,
        email,
        passwordHash,
      ]);
    }
  } finally {
    await client.end();
  }
  return emails;
}

async function post(path: string, form: Record<string, string>, from: string): Promise<{ status: number; json<T = Record<string, unknown>>(): T }> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  return { status: response.status, json: <T>() => JSON.parse(text) as T };
}

async function registerPublicClient(from: string): Promise<string> {
  const response = await fetch(`${base}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ client_name: 'Hosted agent', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }),
  });
  if (response.status !== 201) throw new Error(`registration: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { client_id: string }).client_id;
}

/** One user signs in and approves in their browser; the agent exchanges the code from its egress address. */
async function connect(clientId: string, email: string, from: string): Promise<Tokens> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = (await import('node:crypto')).createHash('sha256').update(verifier).digest('base64url');
  const authorize = new URL(`${base}/oauth/authorize`);
  for (const [name, value] of Object.entries({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT_URI, scope: 'courses:read', code_challenge: challenge, code_challenge_method: 'S256', state: 's' })) {
    authorize.searchParams.set(name, value);
  }
  const agent = new BrowserLikeAgent(base);
  const login = await agent.open(authorize.toString());
  const consent = await agent.submit(login, { email, password: PASSWORD });
  const callback = await agent.submit(consent, {}, 'Approve');
  const code = callback.location ? new URL(callback.location).searchParams.get('code') : null;
  if (!code) throw new Error(`no code for ${email}: ${callback.status} ${callback.body.slice(0, 300)}`);
  const exchange = await post('/api/oauth/token', { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: clientId }, from);
  if (exchange.status !== 200) throw new Error(`code exchange for ${email}: ${exchange.status} ${JSON.stringify(exchange.json())}`);
  return exchange.json<Tokens>();
}

const refresh = (clientId: string, refreshToken: string, from: string) =>
  post('/api/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }, from);

/** Runs `work` over `items`, `concurrency` at a time, in order of the items. */
async function inParallel<T, R>(items: readonly T[], concurrency: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]);
      }
    }),
  );
  return results;
}

// Its users are added to an auth database of its own, on a real PostgreSQL.
describeIfPostgres('hosted agents at the production limits', () => {
  beforeAll(async () => {
    authDatabase = await createAuthDatabase();
    platform = await startPlatform({ ...PRODUCTION_LIMITS, AUTH_DATABASE_URL: authDatabase.url, GATEWAY_TRUST_PROXY: 'loopback' });
    base = platform.baseUrl;
  });

  afterAll(async () => {
    await platform?.stop();
    await authDatabase?.drop();
  });

  describe('one hosted public client, many users, one egress address', () => {
    let clientId: string;
    let tokens: Tokens[];

    beforeAll(async () => {
      clientId = await registerPublicClient(EGRESS);
      const emails = await createUsers(USERS, `hosted-${randomBytes(3).toString('hex')}`);
      tokens = await inParallel(emails, 6, (email) => connect(clientId, email, EGRESS));
    });

    it(`${USERS} users refreshing within a minute from one address: all 200`, async () => {
      const answers = await inParallel(tokens, 10, (held) => refresh(clientId, held.refresh_token, EGRESS));
      expect(answers.map((answer) => answer.status)).toEqual(Array(USERS).fill(200));
      tokens = answers.map((answer) => answer.json<Tokens>());
    });

    it('120 bad requests naming the client from another address: that address is limited, the client’s users are not', async () => {
      const bad = await inParallel(Array.from({ length: 120 }), 4, () => refresh(clientId, randomBytes(32).toString('base64url'), ELSEWHERE));
      const statuses = bad.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(120 - 30 - 4);
      expect(statuses.every((status) => status === 400 || status === 429)).toBe(true);
      expect(bad.find((answer) => answer.status === 429)?.json()).toEqual({
        error: 'too_many_requests',
        error_description: expect.stringMatching(/^Too many requests to the token endpoint from this address after its failed requests; retry after \d+ seconds$/),
      });
      // Every user of the client, from the egress address: served.
      const answers = await inParallel(tokens, 10, (held) => refresh(clientId, held.refresh_token, EGRESS));
      expect(answers.map((answer) => answer.status)).toEqual(Array(USERS).fill(200));
    });
  });

  describe('abuse is still limited (each fails with HARDENING_OFF=rate-limits)', () => {
    it('one grant refreshing in a loop: refused after its 60 tokens a minute, before its token rotates', async () => {
      const clientId = await registerPublicClient(freshAddress());
      const [email] = await createUsers(1, `loop-${randomBytes(3).toString('hex')}`);
      const from = freshAddress();
      let held = await connect(clientId, email, from);
      let served = 0;
      let refused: Awaited<ReturnType<typeof refresh>> | undefined;
      while (served < 70) {
        const answer = await refresh(clientId, held.refresh_token, from);
        if (answer.status !== 200) {
          refused = answer;
          break;
        }
        served++;
        held = answer.json<Tokens>();
      }
      // The code exchange was the grant's first of 60; with Redis a success is counted as Redis
      // answers, so one more may get through meanwhile.
      expect(served).toBeGreaterThanOrEqual(59);
      expect(served).toBeLessThanOrEqual(60);
      expect(refused?.status).toBe(429);
      expect(refused?.json()).toMatchObject({ error_description: expect.stringMatching(/^Too many requests to the token endpoint for this grant;/) });
    });

    it('one user over many grants: refused after their 300 tokens a minute', async () => {
      const [email] = await createUsers(1, `hammer-${randomBytes(3).toString('hex')}`);
      const grants: { clientId: string; held: Tokens }[] = [];
      for (let i = 0; i < 6; i++) {
        const clientId = await registerPublicClient(freshAddress());
        grants.push({ clientId, held: await connect(clientId, email, freshAddress()) });
      }
      let served = 6;
      let refused: Awaited<ReturnType<typeof refresh>> | undefined;
      for (let i = 0; served < 330 && refused === undefined; i++) {
        const grant = grants[i % grants.length];
        const answer = await refresh(grant.clientId, grant.held.refresh_token, freshAddress());
        if (answer.status === 200) {
          served++;
          grant.held = answer.json<Tokens>();
        } else {
          refused = answer;
        }
      }
      expect(served).toBeGreaterThanOrEqual(300);
      expect(served).toBeLessThanOrEqual(306);
      expect(refused?.status).toBe(429);
      expect(refused?.json()).toMatchObject({ error_description: expect.stringMatching(/^Too many requests to the token endpoint for this user;/) });
    });

    it('one address registering clients in bulk: refused after 30 an hour', async () => {
      const from = freshAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) {
        const response = await fetch(`${base}/api/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI] }),
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([...Array(30).fill(201), 429]);
    });

    it('one address guessing refresh tokens: refused after 30 failures a minute, and guesses of any client count', async () => {
      const clients = [await registerPublicClient(freshAddress()), await registerPublicClient(freshAddress())];
      const from = freshAddress();
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) statuses.push((await refresh(clients[i % 2], randomBytes(32).toString('base64url'), from)).status);
      expect(statuses).toEqual([...Array(30).fill(400), 429]);
    });
  });
});
