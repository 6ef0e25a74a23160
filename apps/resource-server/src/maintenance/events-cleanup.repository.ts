import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';

/** What the clean-up removes, each in its own batches. */
export type CleanupKind = 'auditEvents' | 'webhookDeliveries';

/**
 * The advisory lock every clean-up batch takes first (a constant no other statement of the
 * resource server locks; Prisma's migrations use 72707369).
 */
export const EVENTS_CLEANUP_LOCK_KEY = 7_231_004_131;

/**
 * Deletes old rows in bounded batches, one transaction each: at most `batchSize` ids picked,
 * then deleted. One replica cleans up at a time: each batch first takes a transaction-level
 * advisory lock without waiting (released with the batch whatever happens to the process, and
 * usable through a transaction-pooling PgBouncer), as the authorization server's clean-up does.
 */
@Injectable()
export class EventsCleanupRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The rows deleted, or null when another replica holds the clean-up lock (this batch did nothing). */
  purgeBatch(kind: CleanupKind, before: Date, batchSize: number): Promise<number | null> {
    return this.prisma.$transaction(async (tx) => {
      const [{ locked }] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(${EVENTS_CLEANUP_LOCK_KEY}::bigint) AS locked`;
      if (!locked) return null;
      const page = { select: { id: true }, take: batchSize, orderBy: { id: 'asc' as const } };
      if (kind === 'auditEvents') {
        const where = { occurredAt: { lt: before } };
        const ids = (await tx.auditEvent.findMany({ where, ...page })).map((row) => row.id);
        return ids.length === 0 ? 0 : (await tx.auditEvent.deleteMany({ where: { AND: [where, { id: { in: ids } }] } })).count;
      }
      const where = { createdAt: { lt: before } };
      const ids = (await tx.webhookDelivery.findMany({ where, ...page })).map((row) => row.id);
      return ids.length === 0 ? 0 : (await tx.webhookDelivery.deleteMany({ where: { AND: [where, { id: { in: ids } }] } })).count;
    });
  }
}
