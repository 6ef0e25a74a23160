import { Injectable } from '@nestjs/common';
import { type BatchedPurgePass, type PurgeLimits, purgeInBatches } from '@platform/batched-purge';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';

/** What one clean-up pass removes, each in its own batches. */
export type PurgeKind =
  | 'unusedClients'
  | 'expiredCodes'
  | 'deadAccessTokens'
  | 'deadRefreshTokens'
  | 'emptyGrants'
  | 'expiredSessions'
  | 'expiredConsentTokens'
  | 'expiredClientAssertions'
  | 'expiredDpopProofs'
  | 'lapsedConsents'
  | 'sentSecurityEvents';

export interface PurgeCutoffs {
  now: Date;
  /** Clients created before this that never completed an authorization go. */
  unusedClientsCreatedBefore: Date;
  /**
   * Codes and tokens that expired or were revoked before this go; consumed consent tokens, used
   * client assertions, used DPoP proofs and remembered consents that expired before it too, and
   * security events the resource server took before it.
   */
  deadBefore: Date;
}

/**
 * The advisory lock every clean-up batch takes first (any constant no other statement of the
 * platform locks; Prisma's migrations use 72707369).
 */
export const CLEAN_UP_LOCK_KEY = 7_231_004_119;

/**
 * Deletes dead rows in bounded batches under the clean-up lock (see purgeInBatches). Each batch
 * picks at most `batchSize` ids, then deletes those still matching the condition (a client
 * authorized or a row changed in between is left alone).
 */
@Injectable()
export class MaintenanceRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** One pass over `kinds` as of `cutoffs`: the rows deleted, and whether another replica held the clean-up lock. */
  purge(kinds: readonly PurgeKind[], cutoffs: PurgeCutoffs, limits: PurgeLimits): Promise<BatchedPurgePass<PurgeKind>> {
    return purgeInBatches<PurgeKind, Prisma.TransactionClient>({
      ...limits,
      kinds,
      lockKey: CLEAN_UP_LOCK_KEY,
      transaction: (work) => this.prisma.$transaction(work),
      deleteBatch: (tx, kind, batchSize) => this.deleteBatch(tx, kind, cutoffs, batchSize),
    });
  }

  private async deleteBatch(tx: Prisma.TransactionClient, kind: PurgeKind, cutoffs: PurgeCutoffs, batchSize: number): Promise<number> {
    const { now, unusedClientsCreatedBefore, deadBefore } = cutoffs;
    const dead = { OR: [{ expiresAt: { lt: deadBefore } }, { revokedAt: { lt: deadBefore } }] };
    const ids = async (rows: Promise<{ id: string }[]>) => (await rows).map((row) => row.id);
    const page = { select: { id: true }, take: batchSize, orderBy: { id: 'asc' as const } };
    switch (kind) {
      case 'unusedClients': {
        // firstAuthorizedAt is set in the transaction that creates a client's first grant.
        // Staff integrations wait for their first user as long as staff keep them.
        const where = { kind: { not: 'integration' }, firstAuthorizedAt: null, createdAt: { lt: unusedClientsCreatedBefore }, grants: { none: {} } };
        const batch = await ids(tx.client.findMany({ where, ...page }));
        return batch.length === 0 ? 0 : (await tx.client.deleteMany({ where: { AND: [where, { id: { in: batch } }] } })).count;
      }
      case 'expiredCodes': {
        // Consumed codes are kept until then too: a replay within the grace still revokes its grant.
        const where = { expiresAt: { lt: deadBefore } };
        const batch = await ids(tx.authorizationCode.findMany({ where, ...page }));
        return batch.length === 0 ? 0 : (await tx.authorizationCode.deleteMany({ where: { AND: [where, { id: { in: batch } }] } })).count;
      }
      case 'deadAccessTokens': {
        const batch = await ids(tx.accessToken.findMany({ where: dead, ...page }));
        return batch.length === 0 ? 0 : (await tx.accessToken.deleteMany({ where: { AND: [dead, { id: { in: batch } }] } })).count;
      }
      case 'deadRefreshTokens': {
        // A rotated refresh token stays until it expires: presenting it again is reuse (RFC 9700 §4.14.2).
        const batch = await ids(tx.refreshToken.findMany({ where: dead, ...page }));
        return batch.length === 0 ? 0 : (await tx.refreshToken.deleteMany({ where: { AND: [dead, { id: { in: batch } }] } })).count;
      }
      case 'emptyGrants': {
        // Nothing left that could be exchanged, refreshed or revoked: the grant is history.
        const where = { createdAt: { lt: deadBefore }, codes: { none: {} }, accessTokens: { none: {} }, refreshTokens: { none: {} } };
        const batch = await ids(tx.grant.findMany({ where, ...page }));
        return batch.length === 0 ? 0 : (await tx.grant.deleteMany({ where: { AND: [where, { id: { in: batch } }] } })).count;
      }
      case 'expiredSessions': {
        const where = { expiresAt: { lte: now } };
        const batch = await ids(tx.session.findMany({ where, ...page }));
        return batch.length === 0 ? 0 : (await tx.session.deleteMany({ where: { AND: [where, { id: { in: batch } }] } })).count;
      }
      case 'expiredConsentTokens': {
        // Once expired, a token is refused before its row is looked at; the grace covers
        // instances whose clocks run behind this one's.
        const where = { expiresAt: { lt: deadBefore } };
        const rows = await tx.consumedConsentToken.findMany({ where, select: { idHash: true }, take: batchSize, orderBy: { idHash: 'asc' } });
        if (rows.length === 0) return 0;
        const batch = rows.map((row) => row.idHash);
        return (await tx.consumedConsentToken.deleteMany({ where: { AND: [where, { idHash: { in: batch } }] } })).count;
      }
      case 'expiredClientAssertions': {
        // An expired assertion is refused before its jti is looked at (client-auth/client-assertion.ts).
        const where = { expiresAt: { lt: deadBefore } };
        const rows = await tx.usedClientAssertion.findMany({ where, select: { idHash: true }, take: batchSize, orderBy: { idHash: 'asc' } });
        if (rows.length === 0) return 0;
        const batch = rows.map((row) => row.idHash);
        return (await tx.usedClientAssertion.deleteMany({ where: { AND: [where, { idHash: { in: batch } }] } })).count;
      }
      case 'expiredDpopProofs': {
        // A proof past its window is refused by its iat before its jti is looked at (@platform/dpop).
        const where = { expiresAt: { lt: deadBefore } };
        const rows = await tx.usedDpopProof.findMany({ where, select: { idHash: true }, take: batchSize, orderBy: { idHash: 'asc' } });
        if (rows.length === 0) return 0;
        const batch = rows.map((row) => row.idHash);
        return (await tx.usedDpopProof.deleteMany({ where: { AND: [where, { idHash: { in: batch } }] } })).count;
      }
      case 'lapsedConsents': {
        // A lapsed consent answers for nothing (authorize/remembered-consent.ts); its row holds the
        // approving browser's families and network, kept no longer than the consent itself.
        const where = { expiresAt: { lt: deadBefore } };
        const batch = await ids(tx.consent.findMany({ where, ...page }));
        return batch.length === 0 ? 0 : (await tx.consent.deleteMany({ where: { AND: [where, { id: { in: batch } }] } })).count;
      }
      case 'sentSecurityEvents': {
        // Sent: the audit log holds them (unsent ones wait for the relay, however old).
        const where = { sentAt: { lt: deadBefore } };
        const batch = await ids(tx.securityEventOutbox.findMany({ where, ...page }));
        return batch.length === 0 ? 0 : (await tx.securityEventOutbox.deleteMany({ where: { AND: [where, { id: { in: batch } }] } })).count;
      }
    }
  }
}
