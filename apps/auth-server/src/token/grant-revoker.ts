import { Injectable, Optional } from '@nestjs/common';
import type { TokenRevokedEvent } from '@platform/contracts';
import { RevocationPublisher } from '../events/revocation-publisher';
import { ActiveAccessTokens } from './active-access-tokens';
import { TokensRepository } from './tokens.repository';

/**
 * Ends a grant and everything it produced, or one access token, and tells the others: this
 * instance's live access tokens drop the revoked ones at once, then the event goes out
 * (RevocationPublisher) to the resource servers and the other auth-server instances.
 */
@Injectable()
export class GrantRevoker {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly publisher: RevocationPublisher,
    // Optional: the clients CLI revokes without holding any token state.
    @Optional() private readonly activeTokens?: ActiveAccessTokens,
  ) {}

  async revokeGrant(grantId: string, reason: TokenRevokedEvent['reason']): Promise<void> {
    const hashes = await this.tokens.revokeGrant(grantId, new Date());
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
