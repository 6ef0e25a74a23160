/** The one statement the lock needs from a transaction; a Prisma transaction client has it. */
export interface AdvisoryLockingTransaction {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/** How far one pass goes: set by the service that schedules it. */
export interface PurgeLimits {
  /** The most rows one batch deletes. */
  batchSize: number;
  /** A pass stops after this many batches of one kind; the next pass goes on. */
  maxBatchesPerKind: number;
  /** Asked before every batch: true ends the pass there (the service is stopping). */
  stopped: () => boolean;
}

export interface BatchedPurge<Kind extends string, Tx extends AdvisoryLockingTransaction> extends PurgeLimits {
  /** The kinds of rows, in the order the pass purges them. */
  kinds: readonly Kind[];
  /** The job's advisory lock: a constant no other statement of the platform locks (Prisma's migrations use 72707369). */
  lockKey: number;
  /** Runs `work` as one transaction (PrismaClient.$transaction). */
  transaction: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
  /** Deletes at most `batchSize` rows of `kind` through `tx`: the rows deleted. */
  deleteBatch: (tx: Tx, kind: Kind, batchSize: number) => Promise<number>;
}

export interface BatchedPurgePass<Kind extends string> {
  /** The rows deleted, by kind. */
  deleted: Record<Kind, number>;
  /** The pass ended at a batch that found the lock held: another replica is cleaning up. */
  lockHeld: boolean;
}

/**
 * One pass of a clean-up job: each kind in turn, in batches of at most `batchSize` rows, a kind
 * done once a batch deletes fewer. Each batch is one transaction, so none holds many row locks
 * or runs long.
 *
 * One replica cleans up at a time: each batch first takes the job's advisory lock without
 * waiting, and a batch that finds it held ends the pass (the replica holding it is doing the
 * work already). A transaction-level lock, not a session one, so that it works through a
 * transaction-pooling PgBouncer and is released with the batch whatever happens to the process.
 */
export async function purgeInBatches<Kind extends string, Tx extends AdvisoryLockingTransaction>(job: BatchedPurge<Kind, Tx>): Promise<BatchedPurgePass<Kind>> {
  const deleted = Object.fromEntries(job.kinds.map((kind) => [kind, 0])) as Record<Kind, number>;
  for (const kind of job.kinds) {
    for (let batch = 0; batch < job.maxBatchesPerKind && !job.stopped(); batch++) {
      const count = await job.transaction(async (tx) => {
        const [{ locked }] = await tx.$queryRawUnsafe<{ locked: boolean }[]>('SELECT pg_try_advisory_xact_lock($1::bigint) AS locked', job.lockKey);
        return locked ? job.deleteBatch(tx, kind, job.batchSize) : null;
      });
      if (count === null) return { deleted, lockHeld: true };
      deleted[kind] += count;
      if (count < job.batchSize) break;
    }
  }
  return { deleted, lockHeld: false };
}
