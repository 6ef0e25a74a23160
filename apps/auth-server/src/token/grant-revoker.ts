import { Injectable } from '@nestjs/common';
import type { TokenRevokedEvent } from '@platform/contracts';
import { RevocationPublisher } from '../events/revocation-publisher';
import { TokensRepository } from './tokens.repository';

/** Ends a grant and everything it produced, and tells the resource servers. */
@Injectable()
export class GrantRevoker {
  constructor(
    private readonly tokens: TokensRepository,
    private readonly publisher: RevocationPublisher,
  ) {}

  async revokeGrant(grantId: string, reason: TokenRevokedEvent['reason']): Promise<void> {
    const hashes = await this.tokens.revokeGrant(grantId, new Date());
    await this.publisher.publish(hashes, reason);
  }
}
