import { createServer, type Server, type Socket } from 'node:net';
import { createClient } from 'redis';
import { PrivateRedis, waitFor } from '../../../tools/test-support/private-redis';
import { PUBLISH_DEADLINE_MS, RedisEventBus } from './redis-event-bus';

/**
 * A "frozen" Redis: it takes connections and answers the handshake, then reads every command
 * and answers none (what a paused or overloaded server looks like from the client).
 */
async function frozenRedis(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (data) => {
      // Handshake (HELLO / CLIENT SETINFO) gets +OK so that connect() resolves; PUBLISH never does.
      if (!/PUBLISH/i.test(data.toString())) socket.write('+OK\r\n'.repeat(data.toString().split('*').length - 1));
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('RedisEventBus.publish', () => {
  it('gives up after its deadline when Redis takes the command and never answers', async () => {
    const redis = await frozenRedis();
    const bus = await new RedisEventBus(redis.url).connect();
    try {
      const started = Date.now();
      await expect(bus.publish('channel', { n: 1 })).rejects.toThrow(`within ${PUBLISH_DEADLINE_MS} ms`);
      // Figures, not a timing assertion: the rejection is what matters.
      process.stdout.write(`publish to a frozen Redis gave up after ${Date.now() - started} ms\n`);
    } finally {
      await Promise.race([bus.close(), new Promise((resolve) => setTimeout(resolve, 500))]);
      await redis.close();
    }
  });

  it('fails at once while the connection is down, instead of queueing behind the reconnection', async () => {
    const redis = await frozenRedis();
    const bus = await new RedisEventBus(redis.url).connect();
    await redis.close();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await expect(bus.publish('channel', { n: 2 })).rejects.toThrow('Redis is not connected');
    } finally {
      await Promise.race([bus.close(), new Promise((resolve) => setTimeout(resolve, 500))]);
    }
  });
});

(PrivateRedis.available() ? describe : describe.skip)('RedisEventBus subscriptions', () => {
  const redis = new PrivateRedis();

  beforeAll(() => redis.start());
  afterAll(() => redis.destroy());

  it('says so when its subscriber connection was cut and came back (messages meanwhile are lost), and receives again', async () => {
    const bus = await new RedisEventBus(redis.url).connect();
    const received: unknown[] = [];
    let missed = 0;
    bus.onMissedMessages(() => missed++);
    await bus.subscribe('channel', (message) => received.push(message));
    const admin = await createClient({ url: redis.url }).connect();
    try {
      await bus.publish('channel', { n: 1 });
      await waitFor(async () => received.length === 1, 2_000, 'the first message did not arrive');
      expect(missed).toBe(0);

      await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
      await waitFor(async () => missed === 1, 5_000, 'the reconnection was not reported');

      // Subscribed again: the next message arrives.
      await waitFor(
        async () => {
          await bus.publish('channel', { n: 2 });
          return received.some((message) => (message as { n: number }).n === 2);
        },
        5_000,
        'no message after the reconnection',
      );
    } finally {
      await admin.close();
      await bus.close();
    }
  });
});
