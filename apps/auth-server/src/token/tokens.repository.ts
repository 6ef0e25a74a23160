import { Injectable } from '@nestjs/common';
import type { SecurityEvent } from '@platform/contracts';
import { appendSecurityEventsIn } from '../security-events/security-event-outbox';
import { PrismaService } from '../database/prisma.service';
import { utc } from '../database/pg-pool';

/**
 * Revocations in the token tables (RFC 7009, and a grant ended on replay or reuse), in SQL like
 * the rest of the token storage (token-store.ts), sent through Prisma's connection: the clients
 * CLI, which holds a PrismaClient only, runs the very same statements.
 */
@Injectable()
export class TokensRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Revokes a grant with every token it produced, in one transaction. Returns the hashes of
   * the access tokens that were still live, for the revocation event.
   *
   * The grant row is updated first, in a statement of its own: it waits for any statement
   * storing tokens in this grant (they hold a share lock on it, token-store.ts), and the next
   * statements, with a snapshot taken after that one committed, revoke its tokens too.
   * Statements storing tokens afterwards find the grant revoked and store nothing.
   *
   * `event`: the revocation's security event, written in the transaction when this revocation is
   * the one that ends the grant (of two racing, one event).
   */
  revokeGrant(grantId: string, now: Date, event?: SecurityEvent): Promise<string[]> {
    const at = utc(now);
    return this.prisma.$transaction(async (tx) => {
      const ended = await tx.$executeRaw`UPDATE grants SET revoked_at = ${at}::timestamp WHERE id = ${grantId} AND revoked_at IS NULL`;
      if (event && ended === 1) await appendSecurityEventsIn(tx, [event]);
      const live = await tx.$queryRaw<{ token_hash: string }[]>`
        WITH revoked AS (
          UPDATE access_tokens SET revoked_at = ${at}::timestamp
          WHERE grant_id = ${grantId} AND revoked_at IS NULL
          RETURNING token_hash, expires_at
        )
        SELECT token_hash FROM revoked WHERE expires_at > ${at}::timestamp`;
      await tx.$executeRaw`UPDATE refresh_tokens SET revoked_at = ${at}::timestamp WHERE grant_id = ${grantId} AND revoked_at IS NULL`;
      return live.map((token) => token.token_hash);
    });
  }

  /** Revokes one access token; true when it was live. */
  async revokeAccessToken(tokenId: string, now: Date): Promise<boolean> {
    const count = await this.prisma.$executeRaw`UPDATE access_tokens SET revoked_at = ${utc(now)}::timestamp WHERE id = ${tokenId} AND revoked_at IS NULL`;
    return count === 1;
  }
}
