/**
 * The trust rule against a scripted bus (test/faults of libs/bearer-auth and the auth server's
 * active-access-tokens.db.spec drive it through real Redis outages).
 */
import { Logger } from '@nestjs/common';
import { BusTrust } from './bus-trust';
import type { EventBus, EventHandler } from './event-bus';
import { LocalEventBus } from './local-event-bus';

/** A bus that can lose messages: up, down (publish fails) or deaf (publish succeeds, nothing arrives). */
class ScriptedBus implements EventBus {
  state: 'up' | 'down' | 'deaf' = 'up';
  /** Messages published while deaf, deliverable later (a heartbeat in flight). */
  readonly held: (() => void)[] = [];
  private readonly handlers = new Map<string, EventHandler<unknown>>();
  private readonly missed: (() => void)[] = [];

  async publish<T>(channel: string, payload: T): Promise<void> {
    if (this.state === 'down') throw new Error('Redis is not connected');
    const deliver = () => this.handlers.get(channel)?.(payload);
    if (this.state === 'deaf') this.held.push(deliver);
    else deliver();
  }

  async subscribe<T>(channel: string, handler: EventHandler<T>): Promise<() => Promise<void>> {
    this.handlers.set(channel, handler as EventHandler<unknown>);
    return async () => void this.handlers.delete(channel);
  }

  onMissedMessages(handler: () => void): void {
    this.missed.push(handler);
  }

  reconnectAfterGap(): void {
    for (const handler of this.missed) handler();
  }

  async close(): Promise<void> {
    this.handlers.clear();
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('BusTrust', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterEach(() => jest.useRealTimers());

  it('always trusts a bus that cannot lose messages, in period 0', async () => {
    const trust = new BusTrust(new LocalEventBus(), { name: 'test', holds: 'state' });
    await trust.start();
    expect(trust.trustPeriod()).toBe(0);
    trust.interrupted('a failed command');
    expect(trust.trustPeriod()).toBe(0);
    await trust.stop();
  });

  describe('on a bus that can lose messages', () => {
    let bus: ScriptedBus;
    let trust: BusTrust;
    let changes: number;

    beforeEach(async () => {
      jest.useFakeTimers({ doNotFake: ['setImmediate'] });
      bus = new ScriptedBus();
      trust = new BusTrust(bus, { name: 'test', holds: 'state' });
      changes = 0;
      trust.onChange(() => changes++);
      expect(trust.trustPeriod()).toBeUndefined();
      await trust.start();
    });

    afterEach(() => trust.stop());

    it('trusts once its first heartbeat is heard back', () => {
      expect(trust.trustPeriod()).toBe(1);
      expect(changes).toBe(1);
    });

    it('ends trust when the subscription came back after a gap, and starts a new period at the next heartbeat', async () => {
      bus.reconnectAfterGap();
      expect(trust.trustPeriod()).toBeUndefined();
      expect(changes).toBe(2);
      jest.advanceTimersByTime(1_000);
      await flush();
      expect(trust.trustPeriod()).toBe(3);
      expect(changes).toBe(3);
    });

    it('ends trust when a heartbeat is not heard back before the next one', async () => {
      bus.state = 'deaf';
      jest.advanceTimersByTime(1_000);
      await flush();
      expect(trust.trustPeriod()).toBe(1);
      jest.advanceTimersByTime(1_000);
      await flush();
      expect(trust.trustPeriod()).toBeUndefined();
    });

    it('is not brought back by a heartbeat sent before trust ended', async () => {
      bus.state = 'deaf';
      jest.advanceTimersByTime(1_000);
      await flush();
      trust.interrupted('a failed command');
      // The heartbeat in flight when trust ended arrives late.
      bus.held.shift()?.();
      expect(trust.trustPeriod()).toBeUndefined();
      bus.state = 'up';
      jest.advanceTimersByTime(1_000);
      await flush();
      // Trusted again in a new period (the interruption took a number, the return the next), so
      // nothing held under the first one counts.
      expect(trust.trustPeriod()).toBe(3);
    });

    it('ends trust when a heartbeat cannot be published', async () => {
      bus.state = 'down';
      jest.advanceTimersByTime(1_000);
      await flush();
      expect(trust.trustPeriod()).toBeUndefined();
      bus.state = 'up';
      jest.advanceTimersByTime(1_000);
      await flush();
      expect(trust.trustPeriod()).toBe(3);
    });

    it('ends trust when an owner sharing the Redis says a command failed', async () => {
      trust.interrupted('GET timed out');
      expect(trust.trustPeriod()).toBeUndefined();
      jest.advanceTimersByTime(1_000);
      await flush();
      expect(trust.trustPeriod()).toBe(3);
    });
  });
});
