export { purgeInBatches, type AdvisoryLockingTransaction, type BatchedPurge, type BatchedPurgePass, type PurgeLimits } from './batched-purge';
