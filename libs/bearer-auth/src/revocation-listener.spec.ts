import { TOKEN_REVOKED_CHANNEL } from '@platform/contracts';
import type { EventBus, EventHandler } from '@platform/event-bus';
import type { ResolvedBearerAuthOptions } from './options';
import { RevocationListener } from './revocation-listener';
import type { TokenValidator } from './token-validator';

/** A bus driven by the test. */
class ScriptedBus implements EventBus {
  readonly handlers = new Map<string, EventHandler<unknown>>();
  async publish<T>(channel: string, payload: T): Promise<void> {
    this.handlers.get(channel)?.(payload);
  }
  async subscribe<T>(channel: string, handler: EventHandler<T>): Promise<() => Promise<void>> {
    this.handlers.set(channel, handler as EventHandler<unknown>);
    return async () => void this.handlers.delete(channel);
  }
  async close(): Promise<void> {
    this.handlers.clear();
  }
}

describe('RevocationListener', () => {
  it('evicts revoked tokens named by a revocation event, and ignores what is not a hash', async () => {
    const bus = new ScriptedBus();
    const validator = { evict: jest.fn(async () => undefined) };
    const listener = new RevocationListener({ eventBus: bus } as unknown as ResolvedBearerAuthOptions, validator as unknown as TokenValidator);
    await listener.onModuleInit();

    await bus.publish(TOKEN_REVOKED_CHANNEL, { accessTokenHashes: ['a', 7, 'b'], reason: 'revocation', at: 0 });
    expect(validator.evict).toHaveBeenCalledWith(['a', 'b']);
    await listener.onModuleDestroy();
    expect(bus.handlers.size).toBe(0);
  });
});
