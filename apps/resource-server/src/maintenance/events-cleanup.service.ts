import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import { type CleanupKind, EventsCleanupRepository } from './events-cleanup.repository';

const BATCH_SIZE = 1_000;
/** A pass stops after this many batches of one kind; the next pass goes on. */
const MAX_BATCHES_PER_KIND = 1_000;
const DAY_MS = 86_400_000;

export type CleanupReport = Record<CleanupKind, number>;

/**
 * The events' retention: security events older than AUDIT_EVENTS_RETENTION_DAYS and webhook
 * deliveries older than WEBHOOK_DELIVERIES_RETENTION_DAYS are deleted. Every replica schedules
 * it (a plain unref'd timer, jittered, re-armed once a pass is over); one cleans up at a time:
 * a batch that finds the lock held ends this replica's pass.
 */
@Injectable()
export class EventsCleanupService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('EventsCleanup');
  private readonly settings: ResourceConfig['events'];
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly repository: EventsCleanupRepository,
    @Inject(RESOURCE_CONFIG) config: ResourceConfig,
  ) {
    this.settings = config.events;
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass as of `now`; the counts are logged and returned. */
  async purge(now = new Date()): Promise<CleanupReport> {
    const cutoffs: Record<CleanupKind, Date> = {
      auditEvents: new Date(now.getTime() - this.settings.auditRetentionDays * DAY_MS),
      webhookDeliveries: new Date(now.getTime() - this.settings.deliveriesRetentionDays * DAY_MS),
    };
    const limits = { batchSize: BATCH_SIZE, maxBatchesPerKind: MAX_BATCHES_PER_KIND, stopped: () => this.stopped };
    const { deleted: report, lockHeld } = await this.repository.purge(['auditEvents', 'webhookDeliveries'], cutoffs, limits);
    if (lockHeld) this.logger.debug('another replica is cleaning up: this pass ends here');
    if (report.auditEvents + report.webhookDeliveries > 0) {
      this.logger.log(`purged ${report.auditEvents} security events and ${report.webhookDeliveries} webhook deliveries`);
    }
    return report;
  }

  private schedule(): void {
    const delay = this.settings.cleanupIntervalSeconds * 1000 * (0.9 + Math.random() * 0.2);
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      this.running = this.purge();
      await this.running;
    } catch (error) {
      this.logger.warn(`events clean-up pass failed: ${(error as Error).message}`);
    } finally {
      this.running = undefined;
      if (!this.stopped) this.schedule();
    }
  }
}
