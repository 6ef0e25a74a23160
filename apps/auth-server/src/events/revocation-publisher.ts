import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { TOKEN_REVOKED_CHANNEL, type TokenRevokedEvent } from '@platform/contracts';
import { EVENT_BUS, type EventBus } from '@platform/event-bus';
import { AuthMetrics } from '../observability/auth-metrics';

/**
 * Tells resource servers (and the other auth-server instances) that access tokens stopped being
 * valid, so they drop what they hold about them at once instead of at expiry. A failed publish
 * is logged, not fatal: the revocation itself is committed and caches still expire.
 */
@Injectable()
export class RevocationPublisher {
  private readonly logger = new Logger(RevocationPublisher.name);

  constructor(
    @Inject(EVENT_BUS) private readonly bus: EventBus,
    // Optional: test modules built without the app's ObservabilityModule still work.
    @Optional() private readonly metrics?: AuthMetrics,
  ) {}

  /** Called once per revocation (of a token or a whole grant), even one that ended no access token. */
  async publish(accessTokenHashes: string[], reason: TokenRevokedEvent['reason']): Promise<void> {
    this.metrics?.revoked(reason);
    if (accessTokenHashes.length === 0) return;
    const event: TokenRevokedEvent = { accessTokenHashes, reason, at: Date.now() };
    try {
      await this.bus.publish(TOKEN_REVOKED_CHANNEL, event);
    } catch (error) {
      this.logger.error(`could not publish a revocation (${reason}): ${(error as Error).message}`);
    }
  }
}
