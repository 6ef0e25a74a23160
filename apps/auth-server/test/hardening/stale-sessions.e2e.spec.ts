/**
 * Many sessions of one agent (issue 28, item 3): what a rotated-out refresh token gets when it
 * comes back 10 seconds, 5 minutes and 2 hours after the rotation, from the address that rotated
 * it (another session of the same agent CLI on the same machine) or from anywhere else, through
 * the real HTTP server. The clock of the token endpoint is the injected Clock, moved by the test;
 * client addresses are X-Forwarded-For from loopback, which TRUSTED_PROXIES=loopback believes.
 *
 * The decision (token/grants/refresh-reuse.ts): within REFRESH_REUSE_GRACE_SECONDS a sibling pair
 * from anywhere; later, from the rotating address, invalid_grant and the grant kept (a stale
 * session); from anywhere else, reuse: invalid_grant and the grant revoked. Theft stays detectable
 * in both orders: the thief's late presentation, or the client's after the thief refreshed first.
 */
import { randomBytes } from 'node:crypto';
import { Clock } from '../../src/common/clock';
import { INTROSPECTION_CLIENT, type HardenedAuthServer, createAccount, startHardenedAuthServer } from './support/hardened-auth-server';
import { REDIRECT_URI, authorizationCode, pkce, post, registerClient } from './support/oauth';

jest.setTimeout(60_000);

const LAPTOP = '198.51.100.20';
const ELSEWHERE = '203.0.113.80';
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

interface Tokens {
  access_token: string;
  refresh_token: string;
}

describe.each([
  ['the default (REFRESH_STALE_SESSIONS_KEEP_GRANT=true)', true],
  ['strict rotation (REFRESH_STALE_SESSIONS_KEEP_GRANT=false)', false],
])('a rotated-out refresh token presented again: %s', (_name, keepGrant) => {
  let server: HardenedAuthServer;
  let clientId: string;
  let account: { email: string; password: string };
  let now = Date.now();

  beforeAll(async () => {
    server = await startHardenedAuthServer({ env: { TRUSTED_PROXIES: 'loopback', REFRESH_STALE_SESSIONS_KEEP_GRANT: String(keepGrant) } });
    jest.spyOn(server.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    clientId = (await registerClient(server.url, {}, { 'x-forwarded-for': LAPTOP })).client_id;
    account = { email: `agent-${randomBytes(4).toString('hex')}@academy.test`, password: 'the-agents-user' };
    await createAccount(server, account.email, account.password);
  });

  afterAll(async () => {
    await server?.close();
  });

  const token = async (fields: Record<string, string>, from: string) =>
    post(`${server.url}/api/oauth/token`, { client_id: clientId, ...fields }, { 'x-forwarded-for': from });

  const refresh = (refreshToken: string, from: string) => token({ grant_type: 'refresh_token', refresh_token: refreshToken }, from);

  async function introspect(accessToken: string) {
    const response = await post(`${server.url}/api/oauth/introspect`, { token: accessToken, client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret });
    return response.json<{ active: boolean }>().active;
  }

  /** A grant of the agent: the first pair, from the laptop, at the clock's time. */
  async function signIn(): Promise<Tokens> {
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(server.url, clientId, challenge, account);
    const response = await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }, LAPTOP);
    expect(response.status).toBe(200);
    return response.json<Tokens>();
  }

  async function staleSessionsCounted(): Promise<number> {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return Number(/^oauth_refresh_stale_sessions_total (\d+)$/m.exec(text)?.[1] ?? 'NaN');
  }

  /** One session rotated the grant's first token from the laptop; `later` after that, another session presents it from `from`. */
  async function presentRotatedOut(later: number, from: string) {
    now = Date.now();
    const first = await signIn();
    const rotation = await refresh(first.refresh_token, LAPTOP);
    expect(rotation.status).toBe(200);
    const current = rotation.json<Tokens>();
    now += later;
    const late = await refresh(first.refresh_token, from);
    return { late, current };
  }

  /** Whether the grant lives: its current refresh token still rotates, its access token is still active. */
  async function grantLives(current: Tokens): Promise<boolean> {
    const active = await introspect(current.access_token);
    const rotated = (await refresh(current.refresh_token, LAPTOP)).status === 200;
    expect(active).toBe(rotated);
    return rotated;
  }

  it.each([
    ['10 s later, from the same address', 10 * SECOND, LAPTOP],
    ['10 s later, from elsewhere', 10 * SECOND, ELSEWHERE],
  ])('%s: within the reuse window, a sibling pair; the grant lives', async (_case, later, from) => {
    const { late, current } = await presentRotatedOut(later, from);
    expect(late.status).toBe(200);
    const sibling = late.json<Tokens>();
    expect(sibling.refresh_token).not.toBe(current.refresh_token);
    expect(await introspect(sibling.access_token)).toBe(true);
    expect(await grantLives(current)).toBe(true);
  });

  it.each([
    ['5 min later', 5 * MINUTE],
    ['2 h later', 2 * HOUR],
  ])(`%s, from the address that rotated it: invalid_grant, and the grant ${keepGrant ? 'lives (a stale session, counted)' : 'is revoked'}`, async (_case, later) => {
    const before = await staleSessionsCounted();
    const { late, current } = await presentRotatedOut(later, LAPTOP);
    expect(late.status).toBe(400);
    expect(late.json()).toEqual({ error: 'invalid_grant', error_description: 'The refresh token is invalid, expired or revoked' });
    expect(await grantLives(current)).toBe(keepGrant);
    expect(await staleSessionsCounted()).toBe(before + (keepGrant ? 1 : 0));
  });

  it.each([
    ['5 min later', 5 * MINUTE],
    ['2 h later', 2 * HOUR],
  ])('%s, from elsewhere: reuse, invalid_grant and the whole grant revoked (RFC 9700 §4.14.2)', async (_case, later) => {
    const { late, current } = await presentRotatedOut(later, ELSEWHERE);
    expect(late.status).toBe(400);
    expect(late.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await grantLives(current)).toBe(false);
  });

  it('the thief refreshes first, from its own address: the client’s late refresh is reuse, and the thief’s grant is revoked', async () => {
    now = Date.now();
    const stolen = await signIn();
    const thief = await refresh(stolen.refresh_token, ELSEWHERE);
    expect(thief.status).toBe(200);
    now += 5 * MINUTE;
    const client = await refresh(stolen.refresh_token, LAPTOP);
    expect(client.status).toBe(400);
    const thiefs = thief.json<Tokens>();
    expect(await introspect(thiefs.access_token)).toBe(false);
    expect((await refresh(thiefs.refresh_token, ELSEWHERE)).status).toBe(400);
  });
});
