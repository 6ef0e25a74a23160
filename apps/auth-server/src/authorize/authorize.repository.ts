import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

export interface ApprovedAuthorization {
  clientId: string;
  userId: string;
  schoolId: string;
  scope: string;
  resource: string;
  nonce: string | null;
  authTime: Date;
  codeHash: string;
  redirectUri: string;
  codeChallenge: string;
  codeExpiresAt: Date;
}

@Injectable()
export class AuthorizeRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One transaction: the grant, its authorization code, and the client's first-authorization
   * mark (unauthorized clients are purged after a while, so the mark must not be lost when
   * the code is created, nor set when it is not).
   */
  async insertGrantWithCode(approved: ApprovedAuthorization, now: Date): Promise<{ grantId: string }> {
    return this.prisma.$transaction(async (tx) => {
      const grant = await tx.grant.create({
        data: {
          clientId: approved.clientId,
          userId: approved.userId,
          schoolId: approved.schoolId,
          scope: approved.scope,
          resource: approved.resource,
          nonce: approved.nonce,
          authTime: approved.authTime,
        },
        select: { id: true },
      });
      await tx.authorizationCode.create({
        data: {
          codeHash: approved.codeHash,
          grantId: grant.id,
          redirectUri: approved.redirectUri,
          codeChallenge: approved.codeChallenge,
          expiresAt: approved.codeExpiresAt,
        },
      });
      await tx.client.updateMany({
        where: { id: approved.clientId, firstAuthorizedAt: null },
        data: { firstAuthorizedAt: now },
      });
      return { grantId: grant.id };
    });
  }
}
