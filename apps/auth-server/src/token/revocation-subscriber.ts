import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TOKEN_REVOKED_CHANNEL, type TokenRevokedEvent } from '@platform/contracts';
import { EVENT_BUS, type EventBus } from '@platform/event-bus';
import { ActiveAccessTokens } from './active-access-tokens';

/**
 * Every auth-server instance hears the revocations every other one publishes (the same channel
 * as the resource servers) and drops those tokens from the state it holds in memory. Events
 * lost while the bus was away are RevocationTrust's business.
 */
@Injectable()
export class RevocationSubscriber implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RevocationSubscriber.name);
  private unsubscribe?: () => Promise<void>;

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    private readonly tokens: ActiveAccessTokens,
  ) {}

  async onModuleInit(): Promise<void> {
    this.unsubscribe = await this.bus.subscribe<TokenRevokedEvent>(TOKEN_REVOKED_CHANNEL, (event) => {
      if (!Array.isArray(event?.accessTokenHashes)) {
        this.logger.warn('ignored a revocation event without accessTokenHashes');
        return;
      }
      this.tokens.evict(event.accessTokenHashes.filter((hash): hash is string => typeof hash === 'string'));
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.unsubscribe?.().catch(() => undefined);
  }
}
