import { Injectable, Logger, Optional } from '@nestjs/common';
import type { TokenRevokedEvent } from '@platform/contracts';
import { RevocationPublisher } from '../events/revocation-publisher';
import { securityEventOf, type SecurityEventInput } from '../security-events/security-event';
import { ActiveAccessTokens } from './active-access-tokens';
import { TokensRepository } from './tokens.repository';

/**
 * Ends a grant and everything it produced, or one access token, and tells the others: this
 * instance's live access tokens drop the revoked ones at once, then the event goes out
 * (RevocationPublisher) to the resource servers and the other auth-server instances.
 */
@Injectable()
export class GrantRevoker {
  private readonly logger = new Logger('GrantRevoker');

  constructor(
    private readonly tokens: TokensRepository,
    private readonly publisher: RevocationPublisher,
    // Optional: the clients CLI revokes without holding any token state.
    @Optional() private readonly activeTokens?: ActiveAccessTokens,
  ) {}

  /**
   * `recorded`: the security event of this revocation (auth.refresh_token.reuse_detected), written
   * in its transaction when it ends the grant. Should that write fail, the grant is revoked all
   * the same and the event is lost with an error log: recording never fails what it records.
   */
  async revokeGrant(grantId: string, reason: TokenRevokedEvent['reason'], recorded?: SecurityEventInput): Promise<void> {
    const now = new Date();
    const event = recorded && securityEventOf(recorded, now);
    const hashes = await this.tokens.revokeGrant(grantId, now, event).catch((error: unknown) => {
      if (!event) throw error;
      this.logger.error(`security event ${event.type} ${event.id} not recorded: ${(error as Error).message}`);
      return this.tokens.revokeGrant(grantId, now);
    });
    await this.announce(hashes, reason);
  }

  /** RFC 7009: one access token, nothing else of its grant. */
  async revokeAccessToken(token: { id: string; tokenHash: string }): Promise<void> {
    const revoked = await this.tokens.revokeAccessToken(token.id, new Date());
    if (revoked) await this.announce([token.tokenHash], 'revocation');
  }

  private async announce(hashes: string[], reason: TokenRevokedEvent['reason']): Promise<void> {
    this.activeTokens?.evict(hashes);
    await this.publisher.publish(hashes, reason);
  }
}
