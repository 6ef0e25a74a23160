import { createServer, type Server, type Socket } from 'node:net';
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
