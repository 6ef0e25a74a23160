/**
 * The trust rules of the Redis layer against a scripted client, for the races a real Redis
 * cannot be made to produce on cue (test/faults drives a real one through outages).
 */
import { Logger } from '@nestjs/common';
import { LocalEventBus } from '@platform/event-bus';
import { EventEmitter } from 'node:events';
import { resolveOptions } from './options';
import { RedisAnswerCache } from './redis-answer-cache';

class ScriptedClient extends EventEmitter {
  isReady = true;
  isOpen = true;
  /** Replies to INCR, in order; each stays pending until the test settles it. */
  readonly increments: { resolve(value: number): void; reject(error: Error): void }[] = [];
  get = jest.fn<Promise<string | null>, [string]>(async () => null);
  set = jest.fn(async () => 'OK');
  del = jest.fn(async () => 1);
  connect = jest.fn(async () => this);
  close = jest.fn(async () => undefined);
  destroy = jest.fn();
  incr = jest.fn(() => new Promise<number>((resolve, reject) => this.increments.push({ resolve, reject })));
}

let mockClient: ScriptedClient;
jest.mock('redis', () => ({ createClient: () => mockClient }));

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('RedisAnswerCache', () => {
  let cache: RedisAnswerCache<string>;
  let newGenerations: number;

  beforeAll(() => Logger.overrideLogger(false));

  beforeEach(() => {
    mockClient = new ScriptedClient();
    newGenerations = 0;
    const options = resolveOptions({
      introspectionEndpoint: 'http://127.0.0.1:1/introspect',
      clientId: 'resource-server',
      clientSecret: 'secret',
      resource: 'http://platform.test',
      resourceMetadataUrl: 'http://platform.test/.well-known/oauth-protected-resource',
      redisUrl: 'redis://127.0.0.1:1',
      eventBus: new LocalEventBus(),
      redisTimeoutMs: 50,
    });
    cache = new RedisAnswerCache<string>('redis://127.0.0.1:1', options, () => newGenerations++);
  });

  it('is trusted only once a new generation is taken', async () => {
    expect(cache.trustPeriod()).toBeUndefined();
    mockClient.emit('ready');
    mockClient.increments[0]?.resolve(7);
    await flush();
    expect(cache.trustPeriod()).toBeDefined();
    expect(newGenerations).toBe(1);
  });

  it('starts afresh when the heartbeat finds a newer generation (another instance lived through an outage)', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      cache.start();
      mockClient.emit('ready');
      mockClient.increments[0]?.resolve(7);
      await flush();
      expect(newGenerations).toBe(1);
      mockClient.get.mockResolvedValueOnce('8');
      jest.advanceTimersByTime(1_000);
      await flush();
      expect(newGenerations).toBe(2);
      expect(cache.trustPeriod()).toBeDefined();
    } finally {
      jest.useRealTimers();
      await cache.stop();
    }
  });

  it('stays untrusted when Redis fails while the new generation is being taken', async () => {
    mockClient.emit('ready');
    mockClient.emit('error', new Error('connection reset'));
    mockClient.increments[0]?.resolve(7);
    await flush();
    expect(cache.trustPeriod()).toBeUndefined();
  });

  describe('ends trust when a reply does not come within redisTimeoutMs', () => {
    beforeEach(async () => {
      mockClient.emit('ready');
      mockClient.increments[0]?.resolve(7);
      await flush();
      expect(cache.trustPeriod()).toBeDefined();
    });

    it('to a read', async () => {
      mockClient.get.mockReturnValueOnce(new Promise(() => undefined));
      await expect(cache.get('key')).resolves.toBeUndefined();
      expect(cache.trustPeriod()).toBeUndefined();
    });

    it('to a write', async () => {
      mockClient.set.mockReturnValueOnce(new Promise(() => undefined));
      cache.set('key', 'answer', 60_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(cache.trustPeriod()).toBeUndefined();
    });

    it('to a delete', async () => {
      mockClient.del.mockReturnValueOnce(new Promise(() => undefined));
      await cache.delete(['key']);
      expect(cache.trustPeriod()).toBeUndefined();
    });
  });
});
