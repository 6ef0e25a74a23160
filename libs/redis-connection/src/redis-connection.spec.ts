import { createServer, type Server, type Socket } from 'node:net';
import { realRedisUrl } from '../../../tools/test-support';
import { withDeadline } from './deadline';
import { RedisConnection } from './redis-connection';

/** Takes connections, answers the handshake with +OK, and never answers anything else. */
async function frozenRedis(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (data) => {
      const text = data.toString();
      if (/HELLO|CLIENT|SELECT/i.test(text) && !/PING|GET/i.test(text)) socket.write('+OK\r\n'.repeat(text.split('*').length - 1));
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

describe('withDeadline', () => {
  it('answers with the reply when it comes in time, and leaves the signal alone', async () => {
    let signal: AbortSignal | undefined;
    await expect(withDeadline(async (abortSignal) => ((signal = abortSignal), 'PONG'), 1_000)).resolves.toBe('PONG');
    expect(signal?.aborted).toBe(false);
  });

  it('rejects at the deadline and aborts the signal (a command not yet written leaves the queue)', async () => {
    let signal: AbortSignal | undefined;
    const never = withDeadline((abortSignal) => ((signal = abortSignal), new Promise(() => undefined)), 20);
    await expect(never).rejects.toThrow('Redis did not answer within 20 ms');
    expect(signal?.aborted).toBe(true);
  });
});

describe('RedisConnection', () => {
  it('bounds a command Redis takes and never answers, and fails at once while not connected', async () => {
    const redis = await frozenRedis();
    const connection = RedisConnection.acquire(redis.url);
    try {
      await connection.connected();
      await expect(connection.command((client, abortSignal) => client.sendCommand(['PING'], { abortSignal }), 50)).rejects.toThrow(
        'within 50 ms',
      );
      await redis.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      await expect(connection.command((client) => client.sendCommand(['PING']), 50)).rejects.toThrow('Redis is not connected');
    } finally {
      await connection.release();
    }
  });

  it('says false when the first connection attempt fails', async () => {
    const connection = RedisConnection.acquire('redis://127.0.0.1:9');
    try {
      await expect(connection.firstOutcome()).resolves.toBe(false);
    } finally {
      await connection.release();
    }
  });
});

(realRedisUrl() ? describe : describe.skip)('RedisConnection (real Redis)', () => {
  const url = realRedisUrl() as string;

  it('gives every user of a URL the same commands connection, one pub/sub connection, and closes them with the last lease', async () => {
    const first = RedisConnection.acquire(url);
    const second = RedisConnection.acquire(url);
    await first.connected();
    expect(second.client).toBe(first.client);
    const [subscriber, again] = await Promise.all([first.subscriber(), second.subscriber()]);
    expect(again).toBe(subscriber);
    expect(subscriber).not.toBe(first.client);
    await expect(second.command((client, abortSignal) => client.sendCommand(['PING'], { abortSignal }), 1_000)).resolves.toBe('PONG');

    await first.release();
    await first.release();
    expect(second.isReady).toBe(true);
    await second.release();
    expect(first.client.isOpen).toBe(false);
    expect(subscriber.isOpen).toBe(false);

    const later = RedisConnection.acquire(url);
    try {
      expect(later.client).not.toBe(first.client);
      await expect(later.firstOutcome()).resolves.toBe(true);
    } finally {
      await later.release();
    }
  });
});
