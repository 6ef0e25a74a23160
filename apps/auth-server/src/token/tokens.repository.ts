import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

const grantWithUser = { grant: { include: { user: true } } } as const;

/**
 * The Prisma-side token queries: the rare ones (revocation, userinfo), which the clients CLI
 * also runs on its own PrismaClient. The hot paths are in token-queries.ts.
 */
@Injectable()
export class TokensRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The access token with its grant and user (userinfo). */
  findAccessTokenByHash(tokenHash: string) {
    return this.prisma.accessToken.findUnique({ where: { tokenHash }, include: grantWithUser });
  }

  /**
   * Revokes a grant with every token it produced, in one transaction. Returns the hashes of
   * the access tokens that were still live, for the revocation event.
   *
   * The grant row is updated first, in a statement of its own: it waits for any statement
   * issuing tokens in this grant (they hold a share lock on it, token-queries.ts), and the
   * next statement, with a snapshot taken after that one committed, revokes its tokens too.
   * Statements issuing afterwards find the grant revoked and issue nothing.
   */
  async revokeGrant(grantId: string, now: Date): Promise<string[]> {
    return this.prisma.$transaction(async (tx) => {
      await tx.grant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: now } });
      const revoked = await tx.accessToken.updateManyAndReturn({
        where: { grantId, revokedAt: null },
        data: { revokedAt: now },
        select: { tokenHash: true, expiresAt: true },
      });
      await tx.refreshToken.updateMany({ where: { grantId, revokedAt: null }, data: { revokedAt: now } });
      return revoked.filter((token) => token.expiresAt > now).map((token) => token.tokenHash);
    });
  }

  /** Revokes one access token; true when it was live. */
  async revokeAccessToken(tokenId: string, now: Date): Promise<boolean> {
    const { count } = await this.prisma.accessToken.updateMany({
      where: { id: tokenId, revokedAt: null },
      data: { revokedAt: now },
    });
    return count === 1;
  }
}
