import { TOKEN_REVOKED_CHANNEL } from '@platform/contracts';
import type { EventBus, EventHandler } from '@platform/event-bus';
import type { ResolvedBearerAuthOptions } from './options';
import { RevocationListener } from './revocation-listener';
import type { TokenValidator } from './token-validator';

/** A bus that can lose messages, driven by the test. */
class LossyBus implements EventBus {
  readonly handlers = new Map<string, EventHandler<unknown>>();
  private missed: (() => void)[] = [];
  async publish<T>(channel: string, payload: T): Promise<void> {
    this.handlers.get(channel)?.(payload);
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

describe('RevocationListener', () => {
  it('evicts revoked tokens, and forgets the in-process answers when revocations may have been missed', async () => {
    const bus = new LossyBus();
    const validator = { evict: jest.fn(async () => undefined), clearLocal: jest.fn() };
    const listener = new RevocationListener({ eventBus: bus } as unknown as ResolvedBearerAuthOptions, validator as unknown as TokenValidator);
    await listener.onModuleInit();

    await bus.publish(TOKEN_REVOKED_CHANNEL, { accessTokenHashes: ['a', 7, 'b'], reason: 'revocation', at: 0 });
    expect(validator.evict).toHaveBeenCalledWith(['a', 'b']);
    expect(validator.clearLocal).not.toHaveBeenCalled();

    bus.reconnectAfterGap();
    expect(validator.clearLocal).toHaveBeenCalledTimes(1);
    await listener.onModuleDestroy();
    expect(bus.handlers.size).toBe(0);
  });
});
