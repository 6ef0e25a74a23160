import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { TOKEN_REVOKED_CHANNEL, type TokenRevokedEvent } from '@platform/contracts';
import { EVENT_BUS, type EventBus } from '@platform/event-bus';
import { AuthMetrics } from '../observability/auth-metrics';
import { ActiveAccessTokens } from '../token/active-access-tokens';

/**
 * Tells resource servers that access tokens stopped being valid, so they drop cached
 * introspection answers at once instead of at cache expiry. A failed publish is logged,
 * not fatal: the revocation itself is committed and caches still expire. This instance's own
 * in-memory state is evicted first, without waiting for the bus.
 */
@Injectable()
export class RevocationPublisher {
  private readonly logger = new Logger(RevocationPublisher.name);

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    // Optional: test modules built without the app's ObservabilityModule still work.
    @Optional() private readonly metrics?: AuthMetrics,
    // Optional: the clients CLI publishes without holding any token state.
    @Optional() private readonly activeTokens?: ActiveAccessTokens,
  ) {}

  /** Called once per revocation (of a token or a whole grant), even one that ended no access token. */
  async publish(accessTokenHashes: string[], reason: TokenRevokedEvent['reason']): Promise<void> {
    this.metrics?.revoked(reason);
    if (accessTokenHashes.length === 0) return;
    this.activeTokens?.evict(accessTokenHashes);
    const event: TokenRevokedEvent = { accessTokenHashes, reason, at: Date.now() };
    try {
      await this.bus.publish(TOKEN_REVOKED_CHANNEL, event);
    } catch (error) {
      this.logger.error(`could not publish a revocation (${reason}): ${(error as Error).message}`);
    }
  }
}
