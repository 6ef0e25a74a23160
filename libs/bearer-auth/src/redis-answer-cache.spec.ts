/**
 * The rules of the Redis layer against a scripted client, for the races a real Redis cannot be
 * made to produce on cue (test/faults drives a real one through outages).
 */
import { Logger } from '@nestjs/common';
import { LocalEventBus } from '@platform/event-bus';
import { EventEmitter } from 'node:events';
import { resolveOptions } from './options';
import { RedisAnswerCache } from './redis-answer-cache';

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

class ScriptedClient extends EventEmitter {
  isReady = false;
  isOpen = true;
  /** Replies to INCR, in order; each stays pending until the test settles it. */
  readonly increments: Pending[] = [];
  /** Every command sent, by name. */
  readonly sent: string[][] = [];
  /** What GET answers; a command named in `unanswered` never gets a reply. */
  reply: { get: string | null } = { get: null };
  unanswered = new Set<string>();
  connect = jest.fn(async () => this);
  close = jest.fn(async () => undefined);
  destroy = jest.fn(() => {
    this.isOpen = false;
  });
  sendCommand = jest.fn((args: string[]) => {
    this.sent.push(args);
    const [name] = args;
    if (this.unanswered.has(name)) return new Promise(() => undefined);
    if (name === 'INCR') return new Promise((resolve, reject) => this.increments.push({ resolve, reject }));
    if (name === 'GET') return Promise.resolve(this.reply.get);
    return Promise.resolve(name === 'DEL' ? 1 : 'OK');
  });

  becomeReady(): void {
    this.isReady = true;
    this.emit('ready');
  }
}

let mockClient: ScriptedClient;
jest.mock('redis', () => ({ createClient: () => mockClient }));

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('RedisAnswerCache', () => {
  let cache: RedisAnswerCache<string>;
  let newGenerations: number;
  let failures: string[];

  beforeAll(() => Logger.overrideLogger(false));

  beforeEach(() => {
    mockClient = new ScriptedClient();
    newGenerations = 0;
    failures = [];
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
    cache = new RedisAnswerCache<string>(
      'redis://127.0.0.1:1',
      options,
      (reason) => failures.push(reason),
      () => newGenerations++,
    );
  });

  afterEach(async () => {
    jest.useRealTimers();
    await cache.stop();
  });

  it('is used only once a new generation is taken', async () => {
    cache.start();
    expect(cache.currentEpoch()).toBeUndefined();
    mockClient.becomeReady();
    mockClient.increments[0]?.resolve(7);
    await flush();
    expect(cache.currentEpoch()).toBeDefined();
    expect(newGenerations).toBe(1);
  });

  it('starts afresh when the heartbeat finds a newer generation (another instance lived through an outage)', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    cache.start();
    mockClient.becomeReady();
    mockClient.increments[0]?.resolve(7);
    await flush();
    expect(newGenerations).toBe(1);
    mockClient.reply.get = '8';
    jest.advanceTimersByTime(1_000);
    await flush();
    expect(newGenerations).toBe(2);
    expect(cache.currentEpoch()).toBeDefined();
  });

  it('stays unused when Redis fails while the new generation is being taken, and says so', async () => {
    cache.start();
    mockClient.becomeReady();
    mockClient.emit('error', new Error('connection reset'));
    mockClient.increments[0]?.resolve(7);
    await flush();
    expect(cache.currentEpoch()).toBeUndefined();
    expect(failures).toEqual(['connection reset']);
  });

  it('does not write an answer asked for before a failure, once Redis is back in a new generation', async () => {
    cache.start();
    mockClient.becomeReady();
    mockClient.increments[0]?.resolve(7);
    await flush();
    const asked = cache.currentEpoch();
    mockClient.emit('error', new Error('connection reset'));
    mockClient.emit('ready');
    mockClient.increments[1]?.resolve(8);
    await flush();
    expect(cache.currentEpoch()).toBeDefined();
    cache.set('key', 'answer', 60_000, asked);
    expect(mockClient.sent.filter(([name]) => name === 'SET')).toEqual([]);
    cache.set('key', 'answer', 60_000, cache.currentEpoch());
    expect(mockClient.sent.filter(([name]) => name === 'SET')).toHaveLength(1);
  });

  describe('stops using Redis, and says so, when a reply does not come within redisTimeoutMs', () => {
    beforeEach(async () => {
      cache.start();
      mockClient.becomeReady();
      mockClient.increments[0]?.resolve(7);
      await flush();
      expect(cache.currentEpoch()).toBeDefined();
    });

    it('to a read', async () => {
      mockClient.unanswered.add('GET');
      await expect(cache.get('key')).resolves.toBeUndefined();
      expect(cache.currentEpoch()).toBeUndefined();
      expect(failures).toEqual(['Redis did not answer within 50 ms']);
    });

    it('to a write', async () => {
      mockClient.unanswered.add('SET');
      cache.set('key', 'answer', 60_000, cache.currentEpoch());
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(cache.currentEpoch()).toBeUndefined();
      expect(failures).toHaveLength(1);
    });

    it('to a delete', async () => {
      mockClient.unanswered.add('DEL');
      await cache.delete(['key']);
      expect(cache.currentEpoch()).toBeUndefined();
      expect(failures).toHaveLength(1);
    });
  });
});
