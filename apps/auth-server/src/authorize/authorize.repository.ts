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

/** A consent form's token as its answer consumes it. */
export interface ConsentTokenUse {
  /** SHA-256 of the token's id: the id itself is never stored. */
  idHash: string;
  /** When the token would stop being accepted anyway; the row is purged after that. */
  expiresAt: Date;
}

@Injectable()
export class AuthorizeRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * One transaction: the consent token consumed, the grant, its authorization code, and the
   * client's first-authorization mark (unauthorized clients are purged after a while, so the
   * mark must not be lost when the code is created, nor set when it is not). Null, and nothing
   * written, when the token was consumed before: by an earlier answer, on any instance. Two
   * concurrent answers with one token meet on the primary key: the second waits for the first
   * to commit and then inserts nothing.
   */
  async insertGrantWithCode(approved: ApprovedAuthorization, consentToken: ConsentTokenUse, now: Date): Promise<{ grantId: string } | null> {
    return this.prisma.$transaction(async (tx) => {
      const consumed = await tx.consumedConsentToken.createMany({ data: [consentToken], skipDuplicates: true });
      if (consumed.count === 0) return null;
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

  /** A denial consumes its consent token too; false when the token was consumed before. */
  async consumeConsentToken(consentToken: ConsentTokenUse): Promise<boolean> {
    const consumed = await this.prisma.consumedConsentToken.createMany({ data: [consentToken], skipDuplicates: true });
    return consumed.count === 1;
  }
}
