import { Injectable } from '@nestjs/common';
import { type BatchedPurgePass, type PurgeLimits, purgeInBatches } from '@platform/batched-purge';
import type { Prisma } from '../generated/prisma/client';
import { PrismaService } from '../database/prisma.service';

/** What the clean-up removes, each in its own batches. */
export type CleanupKind = 'auditEvents' | 'webhookDeliveries';

/**
 * The advisory lock every clean-up batch takes first (a constant no other statement of the
 * resource server locks; Prisma's migrations use 72707369).
 */
export const EVENTS_CLEANUP_LOCK_KEY = 7_231_004_131;

/**
 * Deletes old rows in bounded batches under the clean-up lock (see purgeInBatches), as the
 * authorization server's clean-up does: each batch picks at most `batchSize` ids, then deletes them.
 */
@Injectable()
export class EventsCleanupRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** One pass over `kinds`, each up to its cutoff: the rows deleted, and whether another replica held the clean-up lock. */
  purge(kinds: readonly CleanupKind[], cutoffs: Record<CleanupKind, Date>, limits: PurgeLimits): Promise<BatchedPurgePass<CleanupKind>> {
    return purgeInBatches<CleanupKind, Prisma.TransactionClient>({
      ...limits,
      kinds,
      lockKey: EVENTS_CLEANUP_LOCK_KEY,
      transaction: (work) => this.prisma.$transaction(work),
      deleteBatch: (tx, kind, batchSize) => this.deleteBatch(tx, kind, cutoffs[kind], batchSize),
    });
  }

  private async deleteBatch(tx: Prisma.TransactionClient, kind: CleanupKind, before: Date, batchSize: number): Promise<number> {
    const page = { select: { id: true }, take: batchSize, orderBy: { id: 'asc' as const } };
    if (kind === 'auditEvents') {
      const where = { occurredAt: { lt: before } };
      const ids = (await tx.auditEvent.findMany({ where, ...page })).map((row) => row.id);
      return ids.length === 0 ? 0 : (await tx.auditEvent.deleteMany({ where: { AND: [where, { id: { in: ids } }] } })).count;
    }
    const where = { createdAt: { lt: before } };
    const ids = (await tx.webhookDelivery.findMany({ where, ...page })).map((row) => row.id);
    return ids.length === 0 ? 0 : (await tx.webhookDelivery.deleteMany({ where: { AND: [where, { id: { in: ids } }] } })).count;
  }
}
