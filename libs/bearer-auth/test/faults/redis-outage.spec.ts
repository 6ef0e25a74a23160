/**
 * Redis stopped (or frozen) and back again under two resource-server instances that share it
 * for their introspection cache and revocation events, with requests running throughout.
 * A private redis-server on a free port; the shared one of REDIS_URL is never touched.
 *
 * Expected behaviour:
 *  - every request is answered (200 or 401; never a 5xx: the authorization server is up);
 *  - a token revoked while Redis is away is refused from the moment of its revocation (the
 *    revocation event is lost, so the validator must not trust what it had cached), and stays
 *    refused once Redis is back, on every instance, although Redis still holds the old answer;
 *  - tokens that are still valid keep working throughout.
 *
 * The first point holds because validation goes around Redis while it is away; the second
 * because nothing cached is used from the first failed or unanswered Redis command until
 * Redis answers again, and answers cached before the outage are not trusted after it.
 */
import { PrivateRedis, waitFor } from '../../../../tools/test-support/private-redis';
import { IntrospectionStub } from '../introspection-stub';
import { CREDENTIALS, generation, type Instance, RESOURCE, sleep, startInstance, status } from './instances';

jest.setTimeout(60_000);

interface Observation {
  at: number;
  tookMs: number;
  instance: string;
  token: string;
  status: number;
}

/** Requests with every token on every instance, one round every 15 ms, until stopped. */
function traffic(instances: Instance[], tokens: string[]) {
  const seen: Observation[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        instances.flatMap((instance) =>
          tokens.map(async (token) => {
            const at = Date.now();
            let status = 0;
            try {
              const response = await fetch(`${instance.url}/students`, { headers: { authorization: `Bearer ${token}` } });
              status = response.status;
              await response.body?.cancel();
            } catch {
              status = -1;
            }
            seen.push({ at, tookMs: Date.now() - at, instance: instance.name, token, status });
          }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
  })();
  return {
    seen,
    async stop() {
      running = false;
      await loop;
    },
  };
}

(PrivateRedis.available() ? describe : describe.skip)('Redis outage', () => {
  const stub = new IntrospectionStub(CREDENTIALS, RESOURCE);
  let endpoint: string;

  beforeAll(async () => {
    endpoint = await stub.start();
  });

  afterAll(async () => {
    await stub.stop();
  });

  it('stopped and restarted with its data: a token revoked meanwhile is refused at once and after, valid ones keep working', async () => {
    const redis = new PrivateRedis();
    await redis.start({ keepData: true });
    const first = await startInstance('first', redis.url, endpoint);
    const second = await startInstance('second', redis.url, endpoint);
    try {
      const revoked = `revoked-${Date.now()}`;
      const valid = `valid-${Date.now()}`;
      stub.tokens.set(revoked, { scope: 'students:read' });
      stub.tokens.set(valid, { scope: 'students:read' });
      // Both instances connected and warm: the answers are in both in-process layers and in Redis.
      await sleep(300);
      for (const instance of [first, second]) {
        expect(await status(instance, revoked)).toBe(200);
        expect(await status(instance, valid)).toBe(200);
      }

      const load = traffic([first, second], [revoked, valid]);
      await sleep(300);
      await redis.stop();
      await sleep(300);
      // Revoked at the authorization server now; the revocation event it publishes is lost.
      const revokedAt = Date.now();
      stub.tokens.delete(revoked);
      await sleep(700);
      await redis.start({ keepData: true });
      // Both instances reconnect (the stale answer of `revoked` is back in Redis with the data).
      await sleep(2_500);
      await load.stop();

      const statuses = new Set(load.seen.map((observation) => observation.status));
      expect([...statuses].every((code) => code === 200 || code === 401)).toBe(true);
      expect(load.seen.filter((o) => o.token === valid && o.status !== 200)).toEqual([]);
      // In-flight requests may have been answered from the authorization server just before.
      const wronglyAccepted = load.seen.filter((o) => o.token === revoked && o.at > revokedAt + 50 && o.status === 200);
      expect(wronglyAccepted).toEqual([]);
      for (const instance of [first, second]) {
        expect(await status(instance, revoked)).toBe(401);
        expect(await status(instance, valid)).toBe(200);
      }
    } finally {
      await first.close();
      await second.close();
      await redis.destroy();
    }
  });

  it('frozen (a partition: connections open, no answers) and thawed: a revoked token is refused within about a second', async () => {
    const redis = new PrivateRedis();
    await redis.start();
    const instance = await startInstance('only', redis.url, endpoint);
    try {
      const revoked = `frozen-revoked-${Date.now()}`;
      const valid = `frozen-valid-${Date.now()}`;
      stub.tokens.set(revoked, { scope: 'students:read' });
      stub.tokens.set(valid, { scope: 'students:read' });
      await sleep(300);
      expect(await status(instance, revoked)).toBe(200);
      expect(await status(instance, valid)).toBe(200);

      const load = traffic([instance], [revoked, valid]);
      await sleep(200);
      redis.freeze();
      await sleep(200);
      const revokedAt = Date.now();
      stub.tokens.delete(revoked);
      // The event would reach the instance only after the thaw: it is not published here at all.
      await sleep(2_500);
      redis.thaw();
      await sleep(2_000);
      await load.stop();

      expect(load.seen.filter((o) => o.status !== 200 && o.status !== 401)).toEqual([]);
      expect(load.seen.filter((o) => o.token === valid && o.status !== 200)).toEqual([]);
      // Nobody waits on the frozen Redis for long.
      expect(load.seen.filter((o) => o.tookMs > 1_000)).toEqual([]);
      // A PING every second (timing out after 200 ms) notices the freeze: the bound on staleness.
      const lateAcceptances = load.seen.filter((o) => o.token === revoked && o.at > revokedAt + 1_500 && o.status === 200);
      expect(lateAcceptances).toEqual([]);
      await waitFor(async () => (await status(instance, revoked)) === 401, 3_000, 'the revoked token is still accepted after the thaw');
    } finally {
      await instance.close();
      await redis.destroy();
    }
  });

  it('an answer on its way while Redis went away and came back is not cached: the token, revoked meanwhile, is refused next time', async () => {
    const redis = new PrivateRedis();
    await redis.start();
    const instance = await startInstance('only', redis.url, endpoint);
    let release: () => void = () => undefined;
    let answered: Promise<number> | undefined;
    try {
      const token = `in-flight-${Date.now()}`;
      stub.tokens.set(token, { scope: 'students:read' });
      // Connected, with a cache generation: answers are being cached.
      await sleep(300);
      stub.hold = new Promise<void>((resolve) => (release = resolve));
      const callsBefore = stub.calls;
      answered = status(instance, token);
      await waitFor(() => stub.calls > callsBefore, 2_000, 'the introspection did not start');

      // The authorization server has decided "active"; its answer is still on the way.
      await redis.stop();
      stub.tokens.delete(token);
      await redis.start();
      await waitFor(async () => (await generation(redis.url)) > 0, 3_000, 'the instance did not take a new generation');
      await sleep(100);
      release();

      // Answered before the revocation, so accepted once; never again.
      expect(await answered).toBe(200);
      stub.hold = undefined;
      expect(await status(instance, token)).toBe(401);
    } finally {
      release();
      stub.hold = undefined;
      await answered?.catch(() => undefined);
      await instance.close();
      await redis.destroy();
    }
  });
});

