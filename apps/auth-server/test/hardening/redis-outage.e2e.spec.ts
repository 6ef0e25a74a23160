/**
 * The authorization server with its Redis (revocation events, rate-limit counters) stopped or
 * frozen: token endpoints keep answering promptly, revocations are committed, and nothing is
 * a 5xx. A private redis-server on a free port; the shared one is never touched.
 *
 * Revocation publishes the event to Redis without waiting for it: at once while Redis is
 * stopped, after RedisEventBus's 1 s deadline while it is frozen (the resource servers clear
 * their caches when Redis comes back, so a lost event loses nothing).
 */
import { randomBytes } from 'node:crypto';
import { REDIRECT_URI, authorizationCode, pkce, post, registerClient } from './support/oauth';
import { INTROSPECTION_CLIENT, type HardenedAuthServer, startHardenedAuthServer } from './support/hardened-auth-server';
import { PrivateRedis } from '../../../../tools/test-support/private-redis';

jest.setTimeout(60_000);

(PrivateRedis.available() ? describe : describe.skip)('the auth server while its Redis is away', () => {
  const redis = new PrivateRedis();
  let server: HardenedAuthServer;
  let clientId: string;

  beforeAll(async () => {
    await redis.start();
    server = await startHardenedAuthServer({ env: { REDIS_URL: redis.url } });
    clientId = (await registerClient(server.url)).client_id;
  });

  afterAll(async () => {
    redis.thaw();
    await Promise.race([server?.close(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
    await redis.destroy();
  });

  async function tokens() {
    const { verifier, challenge } = pkce();
    const code = await authorizationCode(server.url, clientId, challenge);
    const response = await post(`${server.url}/api/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier, client_id: clientId });
    expect(response.status).toBe(200);
    return response.json<{ access_token: string; refresh_token: string }>();
  }

  /** The revocation's answer, or 'no answer' after `withinMs`. */
  async function revoke(token: string, withinMs: number): Promise<number | 'no answer'> {
    const answer = post(`${server.url}/api/oauth/revoke`, { token, client_id: clientId }).then((response) => response.status);
    return Promise.race([answer, new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), withinMs))]);
  }

  async function active(token: string): Promise<boolean> {
    const response = await post(`${server.url}/api/oauth/introspect`, { client_id: INTROSPECTION_CLIENT.id, client_secret: INTROSPECTION_CLIENT.secret, token });
    return response.json<{ active: boolean }>().active;
  }

  it('issues and refreshes tokens promptly while Redis is stopped', async () => {
    const issued = await tokens();
    await redis.stop();
    try {
      const started = Date.now();
      const refreshed = await post(`${server.url}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: clientId });
      expect(refreshed.status).toBe(200);
      const registration = await post(`${server.url}/api/oauth/register`, { json: { client_name: `x-${randomBytes(2).toString('hex')}`, redirect_uris: [REDIRECT_URI] } });
      expect(registration.status).toBe(201);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await redis.start();
    }
  });

  it('revokes within a second while Redis is stopped', async () => {
    const issued = await tokens();
    await redis.stop();
    try {
      expect(await revoke(issued.access_token, 1_000)).toBe(200);
      expect(await active(issued.access_token)).toBe(false);
    } finally {
      await redis.start();
      await new Promise((resolve) => setTimeout(resolve, 6_000));
    }
  });

  it('revokes within three seconds while Redis is frozen', async () => {
    const issued = await tokens();
    redis.freeze();
    try {
      expect(await revoke(issued.access_token, 3_000)).toBe(200);
    } finally {
      redis.thaw();
    }
  });
});
