import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import type { LimitsConfig } from '../config/limits-config';
import { MaintenanceRepository, type PurgeKind } from './maintenance.repository';

/** Order matters: tokens and codes go before the grants they leave empty. */
export const PURGE_ORDER: readonly PurgeKind[] = [
  'unusedClients',
  'expiredCodes',
  'deadAccessTokens',
  'deadRefreshTokens',
  'emptyGrants',
  'expiredSessions',
  'expiredConsentTokens',
  'expiredClientAssertions',
  'expiredDpopProofs',
  'lapsedConsents',
  'sentSecurityEvents',
];

export type PurgeReport = Record<PurgeKind, number>;

/** A pass stops after this many batches of one kind; the next pass goes on. */
const MAX_BATCHES_PER_KIND = 1_000;

/**
 * The clean-up job: registered clients that never completed an authorization (open
 * registration must not let anyone fill the table for good), codes and tokens dead for longer
 * than the grace, grants with nothing left, expired sessions, the records of answered consent
 * forms and of used client assertions (private_key_jwt jti) once they have expired, remembered
 * consents once they have lapsed, and security events the relay has sent (each past the grace).
 *
 * Scheduled with a plain timer rather than @nestjs/schedule: the next pass is armed only when
 * the previous one has finished (a setInterval or @Interval would start a second pass while a
 * slow one still runs), the timer is unref'd (it never keeps a process or a test alive), the
 * delay is jittered so several instances drift apart, and nothing else has to be registered
 * (ScheduleModule.forRoot() in the app module). Every replica schedules it; one cleans up at a
 * time: a batch that finds the clean-up lock held (MaintenanceRepository) ends this replica's
 * pass, which the replica holding the lock is doing already. There is no CronJob to run.
 */
@Injectable()
export class MaintenanceService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Maintenance');
  private readonly settings: LimitsConfig['maintenance'];
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly repository: MaintenanceRepository,
    @Inject(AUTH_CONFIG) config: AuthConfig,
  ) {
    this.settings = config.limits.maintenance;
  }

  onApplicationBootstrap(): void {
    if (this.settings.enabled) this.schedule();
  }

  /** Before the database closes: no new pass, and the running one stops at its next batch. */
  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass over every kind of dead row, as of `now`; the counts are logged and returned. */
  async purge(now = new Date()): Promise<PurgeReport> {
    const cutoffs = {
      now,
      unusedClientsCreatedBefore: new Date(now.getTime() - this.settings.clientUnusedTtlSeconds * 1000),
      deadBefore: new Date(now.getTime() - this.settings.graceSeconds * 1000),
    };
    const limits = { batchSize: this.settings.batchSize, maxBatchesPerKind: MAX_BATCHES_PER_KIND, stopped: () => this.stopped };
    const { deleted: report, lockHeld } = await this.repository.purge(PURGE_ORDER, cutoffs, limits);
    if (lockHeld) this.logger.debug('another replica is cleaning up: this pass ends here');
    const total = PURGE_ORDER.reduce((sum, kind) => sum + report[kind], 0);
    const line = PURGE_ORDER.map((kind) => `${kind} ${report[kind]}`).join(', ');
    if (total > 0) this.logger.log(`purged ${total} rows: ${line}`);
    else this.logger.debug(`nothing to purge`);
    return report;
  }

  private schedule(): void {
    const delay = this.settings.intervalSeconds * 1000 * (0.9 + Math.random() * 0.2);
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      this.running = this.purge();
      await this.running;
    } catch (error) {
      // A database outage, say: the next pass tries again.
      this.logger.warn(`clean-up pass failed: ${(error as Error).message}`);
    } finally {
      this.running = undefined;
      if (!this.stopped) this.schedule();
    }
  }
}
