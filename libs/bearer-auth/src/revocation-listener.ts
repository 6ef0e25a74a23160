import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { TOKEN_REVOKED_CHANNEL, type TokenRevokedEvent } from '@platform/contracts';
import { BEARER_AUTH_OPTIONS, type ResolvedBearerAuthOptions } from './options';
import { TokenValidator } from './token-validator';

/** Revocations published by the authorization server evict cached answers at once. */
@Injectable()
export class RevocationListener implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RevocationListener.name);
  private unsubscribe?: () => Promise<void>;

  constructor(
    @Inject(BEARER_AUTH_OPTIONS) private readonly options: ResolvedBearerAuthOptions,
    private readonly validator: TokenValidator,
  ) {}

  async onModuleInit(): Promise<void> {
    // Revocations published while the subscription was down never arrive: that is BusTrust's
    // to judge (the validator then uses nothing cached, and starts afresh).
    this.unsubscribe = await this.options.eventBus.subscribe<TokenRevokedEvent>(TOKEN_REVOKED_CHANNEL, (event) => {
      if (!Array.isArray(event?.accessTokenHashes)) return;
      const keys = event.accessTokenHashes.filter((key): key is string => typeof key === 'string');
      this.validator.evict(keys).catch((error: Error) => this.logger.warn(`eviction failed: ${error.message}`));
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.unsubscribe?.().catch(() => undefined);
  }
}
