import { Injectable } from '@nestjs/common';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';

type Tx = Prisma.TransactionClient;

export interface NewAccessToken {
  tokenHash: string;
  grantId: string;
  refreshTokenId: string | null;
  clientId: string;
  userId: string;
  schoolId: string;
  scope: string;
  audience: string;
  issuedAt: Date;
  expiresAt: Date;
}

export interface NewRefreshToken {
  id: string;
  tokenHash: string;
  grantId: string;
  clientId: string;
  scope: string;
  resource: string;
  issuedAt: Date;
  expiresAt: Date;
}

const grantWithUser = { grant: { include: { user: true } } } as const;

/** Queries over codes, grants and tokens, named after what they do. */
@Injectable()
export class TokensRepository {
  constructor(private readonly prisma: PrismaService) {}

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(work);
  }

  findCodeByHash(codeHash: string) {
    return this.prisma.authorizationCode.findUnique({ where: { codeHash }, include: grantWithUser });
  }

  /** Marks the code used; false when another request used it first (the atomic single-use check). */
  async consumeCode(tx: Tx, codeId: string, now: Date): Promise<boolean> {
    const { count } = await tx.authorizationCode.updateMany({
      where: { id: codeId, consumedAt: null },
      data: { consumedAt: now },
    });
    return count === 1;
  }

  findRefreshTokenByHash(tokenHash: string) {
    return this.prisma.refreshToken.findUnique({ where: { tokenHash }, include: grantWithUser });
  }

  /** Marks the refresh token rotated; false when it was already rotated or revoked. */
  async rotateRefreshToken(tx: Tx, refreshTokenId: string, now: Date): Promise<boolean> {
    const { count } = await tx.refreshToken.updateMany({
      where: { id: refreshTokenId, rotatedAt: null, revokedAt: null },
      data: { rotatedAt: now },
    });
    return count === 1;
  }

  /** The committed state of a refresh token, read inside the transaction after a failed rotation. */
  findRefreshTokenState(tx: Tx, refreshTokenId: string) {
    return tx.refreshToken.findUnique({
      where: { id: refreshTokenId },
      select: { rotatedAt: true, revokedAt: true, expiresAt: true, grant: { select: { revokedAt: true } } },
    });
  }

  async insertRefreshToken(tx: Tx, token: NewRefreshToken): Promise<void> {
    await tx.refreshToken.create({ data: token });
  }

  async insertAccessToken(tx: Tx, token: NewAccessToken): Promise<void> {
    await tx.accessToken.create({ data: token });
  }

  findAccessTokenByHash(tokenHash: string) {
    return this.prisma.accessToken.findUnique({ where: { tokenHash }, include: grantWithUser });
  }

  /**
   * Revokes a grant with every token it produced, in one transaction. Returns the hashes of
   * the access tokens that were still live, for the revocation event.
   */
  async revokeGrant(grantId: string, now: Date): Promise<string[]> {
    return this.prisma.$transaction(async (tx) => {
      const live = await tx.accessToken.findMany({
        where: { grantId, revokedAt: null, expiresAt: { gt: now } },
        select: { tokenHash: true },
      });
      await tx.grant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: now } });
      await tx.accessToken.updateMany({ where: { grantId, revokedAt: null }, data: { revokedAt: now } });
      await tx.refreshToken.updateMany({ where: { grantId, revokedAt: null }, data: { revokedAt: now } });
      return live.map((token) => token.tokenHash);
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
