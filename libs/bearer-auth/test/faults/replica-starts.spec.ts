/**
 * Replicas that start and stop around a shared Redis (a private redis-server; the shared one of
 * REDIS_URL is never touched). A replica's start used to take a new cache generation, emptying
 * the shared cache for every replica: a rolling restart introspected every hot token once per
 * replica. Now a start uses the shared entries as they are when another replica has heard every
 * revocation since they were written, and retires them when nobody was listening meanwhile:
 *  - a replica started beside a running one reads what the other cached, and the other keeps its
 *    own: no introspection, no new generation; nor when every replica is replaced one by one;
 *  - a token revoked while a replica restarts, heard by the one still running, is refused by both;
 *  - a token revoked while no replica ran at all is refused by the one that starts next.
 *
 * Each step waits for the replica to have joined the shared cache (instances.ts: joined), however
 * long the join takes on a busy machine, not for a fixed time; the JOIN_WAIT_MS bound itself is
 * redis-answer-cache.spec's, on fake timers.
 */
import { PrivateRedis, waitFor } from '../../../../tools/test-support/private-redis';
import { IntrospectionStub } from '../introspection-stub';
import { CREDENTIALS, generation, type Instance, joined, publishRevocation, RESOURCE, startInstance, status } from './instances';

jest.setTimeout(60_000);

(PrivateRedis.available() ? describe : describe.skip)('replicas starting and stopping', () => {
  const stub = new IntrospectionStub(CREDENTIALS, RESOURCE);
  let endpoint: string;
  let redis: PrivateRedis;
  const running: Instance[] = [];

  beforeAll(async () => {
    endpoint = await stub.start();
  });

  afterAll(async () => {
    await stub.stop();
  });

  beforeEach(async () => {
    redis = new PrivateRedis();
    await redis.start();
  });

  afterEach(async () => {
    for (const instance of running.splice(0)) await instance.close();
    await redis.destroy();
  });

  /** A replica started and joined to the shared cache. */
  async function start(name: string): Promise<Instance> {
    const instance = await startInstance(name, redis.url, endpoint);
    running.push(instance);
    await joined(instance);
    return instance;
  }

  async function stop(instance: Instance): Promise<void> {
    running.splice(running.indexOf(instance), 1);
    await instance.close();
  }

  it('a replica that starts beside a running one shares its cache and empties nobody’s, through a whole rolling restart', async () => {
    const hot = `hot-${Date.now()}`;
    stub.tokens.set(hot, { scope: 'students:read' });
    const first = await start('first');
    expect(await generation(redis.url)).toBe(1);
    expect(await status(first, hot)).toBe(200);

    const second = await start('second');
    // Counted once the replica has joined: its probes were introspections of their own.
    let calls = stub.calls;
    expect(await status(second, hot)).toBe(200);
    expect(await status(first, hot)).toBe(200);
    // Read from Redis by the new replica, from memory by the old one: nobody introspected again.
    expect(stub.calls).toBe(calls);
    expect(await generation(redis.url)).toBe(1);

    // A rolling restart: each replica replaced by a new one, started before the old one stops.
    const third = await start('third');
    await stop(first);
    const fourth = await start('fourth');
    await stop(second);
    calls = stub.calls;
    expect(await status(third, hot)).toBe(200);
    expect(await status(fourth, hot)).toBe(200);
    expect(stub.calls).toBe(calls);
    expect(await generation(redis.url)).toBe(1);
  });

  it('a token revoked while a replica restarts is refused by it once back, as the replica that stayed heard the event', async () => {
    const revoked = `restart-revoked-${Date.now()}`;
    stub.tokens.set(revoked, { scope: 'students:read' });
    const stays = await start('stays');
    const restarts = await start('restarts');
    expect(await status(restarts, revoked)).toBe(200);
    expect(await status(stays, revoked)).toBe(200);

    await stop(restarts);
    stub.tokens.delete(revoked);
    // Heard by the one replica still running.
    expect(await publishRevocation(redis.url, revoked)).toBe(1);
    const again = await start('restarted');
    expect(await status(again, revoked)).toBe(401);
    expect(await status(stays, revoked)).toBe(401);
    expect(await generation(redis.url)).toBe(1);
  });

  it('a token revoked while no replica ran is refused by the next one to start, although Redis still holds its answer', async () => {
    const revoked = `unheard-revoked-${Date.now()}`;
    stub.tokens.set(revoked, { scope: 'students:read' });
    const only = await start('only');
    expect(await status(only, revoked)).toBe(200);
    await stop(only);

    stub.tokens.delete(revoked);
    // Published to nobody: no replica is subscribed.
    expect(await publishRevocation(redis.url, revoked)).toBe(0);
    const next = await startInstance('next', redis.url, endpoint);
    running.push(next);
    // From its first request, not only once it has joined.
    expect(await status(next, revoked)).toBe(401);
    await waitFor(async () => (await generation(redis.url)) === 2, 20_000, 'the next replica did not take a new generation');
    expect(await status(next, revoked)).toBe(401);
  });
});
