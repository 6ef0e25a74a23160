/**
 * The rules of the Redis layer against a scripted Redis (its keys and the three scripts played
 * in memory), for the races a real Redis cannot be made to produce on cue (test/faults drives a
 * real one through outages and replica restarts).
 */
import { Logger } from '@nestjs/common';
import type { EventBus, EventHandler } from '@platform/event-bus';
import { LocalEventBus } from '@platform/event-bus';
import { EventEmitter } from 'node:events';
import { resolveOptions } from './options';
import { JOIN_WAIT_MS, RedisAnswerCache } from './redis-answer-cache';

type Pending = { resolve(value: unknown): void; reject(error: Error): void };

/** Redis as these scripts see it: the tick, the coverage and the generation, and the commands sent. */
class ScriptedClient extends EventEmitter {
  isReady = false;
  isOpen = true;
  readonly keys = new Map<string, string>();
  /** Every command sent: the command's name, or the script's (BEAT, CLAIM, JOIN). */
  readonly sent: string[] = [];
  /** Coverage channels of other instances that PUBSUB CHANNELS lists. */
  otherChannels: string[] = [];
  /** Commands that never get a reply; DELs that fail. */
  unanswered = new Set<string>();
  failingDeletes = false;
  /** A reply held until the test settles it, by command name. */
  readonly held = new Map<string, Pending>();
  holding = new Set<string>();
  connect = jest.fn(async () => this);
  close = jest.fn(async () => undefined);
  destroy = jest.fn(() => {
    this.isOpen = false;
  });
  sendCommand = jest.fn((args: string[]) => {
    const name = args[0] === 'EVAL' ? scriptName(args[1]) : args[0];
    this.sent.push(name);
    if (this.unanswered.has(name)) return new Promise(() => undefined);
    if (this.holding.has(name)) return new Promise((resolve, reject) => this.held.set(name, { resolve: () => resolve(this.run(name, args)), reject }));
    if (name === 'DEL' && this.failingDeletes) return Promise.reject(new Error('DEL failed'));
    return Promise.resolve(this.run(name, args));
  });

  private number(key: string): number {
    return Number(this.keys.get(key) ?? '0');
  }

  private run(name: string, args: string[]): unknown {
    switch (name) {
      case 'INCR': {
        this.keys.set(args[1], String(this.number(args[1]) + 1));
        return this.number(args[1]);
      }
      case 'GET':
        return this.keys.get(args[1]) ?? null;
      case 'PUBSUB':
        return this.otherChannels;
      case 'BEAT': {
        const [, , , tickKey, generationKey, channel] = args;
        this.keys.set(tickKey, String(this.number(tickKey) + 1));
        this.beats.push({ channel, tick: this.number(tickKey) });
        return [this.number(tickKey), this.number(generationKey)];
      }
      case 'CLAIM': {
        const [, , , coveredKey, since, tick] = args;
        const through = this.number(coveredKey);
        if (through >= Number(since) && Number(tick) > through) this.keys.set(coveredKey, tick);
        return through;
      }
      case 'JOIN': {
        const [, , , coveredKey, generationKey, since] = args;
        if (this.number(coveredKey) >= Number(since)) return [0, this.number(generationKey)];
        this.keys.set(coveredKey, since);
        this.keys.set(generationKey, String(this.number(generationKey) + 1));
        return [1, this.number(generationKey)];
      }
      default:
        return name === 'DEL' ? 1 : 'OK';
    }
  }

  /** Beats sent, in order: the test delivers them (or not) to the instance's subscription. */
  readonly beats: { channel: string; tick: number }[] = [];

  becomeReady(): void {
    this.isReady = true;
    this.emit('ready');
  }
}

function scriptName(script: string): string {
  if (script.includes('PUBLISH')) return 'BEAT';
  if (script.includes("redis.call('INCR', KEYS[2])")) return 'JOIN';
  return 'CLAIM';
}

let mockClient: ScriptedClient;
jest.mock('redis', () => ({ createClient: () => mockClient }));

/** The bus the cache subscribes its coverage channel on: the test delivers what it hears. */
class RecordingBus implements EventBus {
  readonly handlers = new Map<string, EventHandler<unknown>>();
  /** The cache publishes its beats through Redis (the BEAT script), never through the bus. */
  publish(): Promise<void> {
    return Promise.resolve();
  }
  async subscribe<T>(channel: string, handler: EventHandler<T>): Promise<() => Promise<void>> {
    this.handlers.set(channel, handler as EventHandler<unknown>);
    return async () => void this.handlers.delete(channel);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const flush = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('RedisAnswerCache', () => {
  let cache: RedisAnswerCache<string>;
  let bus: RecordingBus;
  let period: number | undefined;
  let newGenerations: number;
  let failures: string[];

  beforeAll(() => Logger.overrideLogger(false));

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    mockClient = new ScriptedClient();
    bus = new RecordingBus();
    period = 1;
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
      bus,
      () => period,
      (reason) => failures.push(reason),
      () => newGenerations++,
    );
  });

  afterEach(async () => {
    jest.useRealTimers();
    await cache.stop();
  });

  /** Started, connected, listening: the first join step runs. */
  async function started(): Promise<void> {
    await cache.start();
    mockClient.becomeReady();
    cache.listen();
    await flush();
  }

  /** Lets `ms` of heartbeats happen. */
  async function after(ms: number): Promise<void> {
    for (let elapsed = 0; elapsed < ms; elapsed += 250) {
      jest.advanceTimersByTime(250);
      await flush();
    }
  }

  /** Whether the layer's entries are in use: currentEpoch() is a number then, undefined otherwise. */
  const inUse = () => cache.currentEpoch() !== undefined;

  /** Delivers the instance's last beat to its coverage subscription, as Redis would. */
  async function hearLastBeat(): Promise<void> {
    const beat = mockClient.beats[mockClient.beats.length - 1];
    bus.handlers.get(beat.channel)?.(beat.tick);
    await flush();
  }

  it('joins at once, in a new generation, when no other instance listens', async () => {
    await started();
    expect(inUse()).toBe(true);
    expect(mockClient.keys.get('bearer-auth:generation')).toBe('1');
    expect(newGenerations).toBe(1);
  });

  it('waits for the listening stretch to be heard first: not before the revocation listener is up, nor while BusTrust does not trust', async () => {
    await cache.start();
    mockClient.becomeReady();
    period = undefined;
    cache.listen();
    await after(1_000);
    expect(inUse()).toBe(false);
    period = 1;
    cache.trustChanged();
    await flush();
    expect(inUse()).toBe(true);
  });

  it('uses the entries as they are, without a new generation, once another instance’s coverage reaches its start', async () => {
    mockClient.keys.set('bearer-auth:generation', '4');
    mockClient.keys.set('bearer-auth:tick', '100');
    mockClient.keys.set('bearer-auth:covered-through', '99');
    mockClient.otherChannels = ['bearer-auth:coverage:another'];
    await started();
    expect(inUse()).toBe(false);
    // The other instance hears its next beat (tick 102 > this one's start, 101) and claims it.
    mockClient.keys.set('bearer-auth:covered-through', '102');
    await after(250);
    expect(inUse()).toBe(true);
    expect(mockClient.keys.get('bearer-auth:generation')).toBe('4');
  });

  it('takes a new generation when, others listening, the coverage does not reach its start within JOIN_WAIT_MS', async () => {
    mockClient.keys.set('bearer-auth:generation', '4');
    mockClient.keys.set('bearer-auth:covered-through', '0');
    mockClient.otherChannels = ['bearer-auth:coverage:deaf'];
    await started();
    await after(JOIN_WAIT_MS - 250);
    expect(inUse()).toBe(false);
    await after(500);
    expect(inUse()).toBe(true);
    expect(mockClient.keys.get('bearer-auth:generation')).toBe('5');
  });

  it('claims coverage for its own last beat only once heard, and only after the deletes sent before it succeeded', async () => {
    await started();
    await after(1_000);
    expect(mockClient.sent).toContain('BEAT');
    await hearLastBeat();
    const tick = mockClient.beats[mockClient.beats.length - 1].tick;
    expect(mockClient.keys.get('bearer-auth:covered-through')).toBe(String(tick));

    // A revocation's delete fails: the stretch ends, and the beat heard after it claims nothing.
    mockClient.failingDeletes = true;
    await after(1_000);
    await cache.delete(['revoked']);
    await hearLastBeat();
    expect(mockClient.keys.get('bearer-auth:covered-through')).toBe(String(tick));
    expect(inUse()).toBe(false);
    expect(failures).toEqual(['DEL failed']);
  });

  it('holds a claim until the deletes sent before it are answered, and drops it when one fails', async () => {
    await started();
    await after(1_000);
    const covered = mockClient.keys.get('bearer-auth:covered-through');
    mockClient.holding.add('DEL');
    const deleting = cache.delete(['revoked']);
    await hearLastBeat();
    expect(mockClient.sent.filter((name) => name === 'CLAIM')).toEqual([]);
    mockClient.held.get('DEL')?.reject(new Error('connection reset'));
    await deleting;
    await flush();
    expect(mockClient.sent.filter((name) => name === 'CLAIM')).toEqual([]);
    expect(mockClient.keys.get('bearer-auth:covered-through')).toBe(covered);
  });

  it('claims nothing for a beat heard in another trust period (its subscription was interrupted meanwhile)', async () => {
    await started();
    await after(1_000);
    const covered = mockClient.keys.get('bearer-auth:covered-through');
    period = 2;
    await hearLastBeat();
    expect(mockClient.keys.get('bearer-auth:covered-through')).toBe(covered);
  });

  it('stops using the entries when BusTrust’s period changes, and joins again', async () => {
    await started();
    period = undefined;
    cache.trustChanged();
    expect(inUse()).toBe(false);
    period = 2;
    cache.trustChanged();
    await flush();
    // Alone: a new generation at once.
    expect(inUse()).toBe(true);
    expect(mockClient.keys.get('bearer-auth:generation')).toBe('2');
  });

  it('starts afresh when a beat finds a newer generation (another instance found a moment nobody listened)', async () => {
    await started();
    expect(newGenerations).toBe(1);
    mockClient.keys.set('bearer-auth:generation', '8');
    await after(1_000);
    expect(newGenerations).toBe(2);
    expect(inUse()).toBe(true);
  });

  it('stays unused when Redis fails while joining, and says so', async () => {
    mockClient.holding.add('JOIN');
    await started();
    mockClient.emit('error', new Error('connection reset'));
    mockClient.held.get('JOIN')?.resolve(undefined);
    await flush();
    expect(inUse()).toBe(false);
    expect(failures).toEqual(['connection reset']);
  });

  it('does not write an answer asked for before a failure, once Redis is back and joined', async () => {
    await started();
    const asked = cache.currentEpoch();
    mockClient.emit('error', new Error('connection reset'));
    mockClient.emit('ready');
    await flush();
    expect(inUse()).toBe(true);
    expect(cache.currentEpoch()).not.toBe(asked);
    cache.set('key', 'answer', 60_000, asked);
    expect(mockClient.sent.filter((name) => name === 'SET')).toEqual([]);
    cache.set('key', 'answer', 60_000, cache.currentEpoch());
    expect(mockClient.sent.filter((name) => name === 'SET')).toHaveLength(1);
  });

  describe('stops using Redis, and says so, when a reply does not come within redisTimeoutMs', () => {
    beforeEach(async () => {
      await started();
      expect(inUse()).toBe(true);
      jest.useRealTimers();
    });

    it('to a read', async () => {
      mockClient.unanswered.add('GET');
      await expect(cache.get('key')).resolves.toBeUndefined();
      expect(inUse()).toBe(false);
      expect(failures).toEqual(['Redis did not answer within 50 ms']);
    });

    it('to a write', async () => {
      mockClient.unanswered.add('SET');
      cache.set('key', 'answer', 60_000, cache.currentEpoch());
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(inUse()).toBe(false);
      expect(failures).toHaveLength(1);
    });

    it('to a delete', async () => {
      mockClient.unanswered.add('DEL');
      await cache.delete(['key']);
      expect(inUse()).toBe(false);
      expect(failures).toHaveLength(1);
    });
  });
});
