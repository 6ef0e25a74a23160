import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { ingestAuthorization, securityEventBatchSchema } from '@platform/contracts';
import { AUTH_CONFIG, type AuthConfig } from '../config/auth-config';
import { type ClaimedSecurityEvent, SecurityEventOutbox } from './security-event-outbox';
import { relayBackoffSeconds } from './relay-backoff';
import type { SecurityEventsConfig } from '../config/security-events-config';

/**
 * Events per ingest request: well under the ingest's MAX_EVENTS_PER_INGEST and, at the largest an
 * event can be (4 KiB of data), under the resource server's 1 MiB body limit.
 */
export const RELAY_BATCH_SIZE = 100;
/** How long past a request's timeout its claim holds before another relay may take its events. */
const LEASE_MARGIN_SECONDS = 30;
/** The first retry's delay (relay-backoff.ts). */
const RETRY_BASE_SECONDS = 1;

/** How one ingest request went. */
type Sent = { ok: true } | { ok: false; error: string };

/**
 * Sends the outbox's events to the resource server's ingest (POST RESOURCE_SERVER_URL +
 * /internal/security-events, the introspection client's credentials in HTTP Basic), in batches.
 * Every replica runs it: each batch is claimed with FOR UPDATE SKIP LOCKED and a lease
 * (SecurityEventOutbox.claim), so an event goes to one relay at a time; at least once, since a
 * relay that dies after sending and before marking sends nothing more but the lease gives the
 * events to the next one, and the ingest records each id once. A batch the ingest did not take
 * waits with a backoff (relay-backoff.ts); sent events are marked, and the clean-up purges them.
 *
 * The next pass is armed once the previous has finished (a full batch is followed at once by the
 * next); the timer is unref'd; shutdown waits for the pass under way.
 */
@Injectable()
export class SecurityEventsRelay implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('SecurityEventsRelay');
  private readonly settings: SecurityEventsConfig;
  private readonly ingestUrl: string;
  private readonly authorization: string;
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly outbox: SecurityEventOutbox,
    @Inject(AUTH_CONFIG) config: AuthConfig,
  ) {
    this.settings = config.securityEvents;
    this.ingestUrl = config.securityEvents.ingestUrl;
    this.authorization = ingestAuthorization(config.introspectionClient.id, config.introspectionClient.secret);
  }

  onApplicationBootstrap(): void {
    if (this.settings.relayEnabled) this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One batch claimed, sent and settled. The number of events claimed (0: nothing was due). */
  async relayOnce(): Promise<number> {
    const claimed = (await this.outbox.claim(RELAY_BATCH_SIZE, Math.ceil(this.settings.timeoutMs / 1000) + LEASE_MARGIN_SECONDS)).sort((a, b) =>
      a.id < b.id ? -1 : 1,
    );
    if (claimed.length === 0) return 0;
    const { sendable, refused } = partition(claimed);
    if (refused.length > 0) {
      // A recording mistake (too much data, say): the ingest would refuse the whole batch for it,
      // every time. Logged by id and reason, never by content.
      for (const { event, problem } of refused) this.logger.error(`security event ${event.id} dropped, the ingest would refuse it: ${problem}`);
      await this.outbox.drop(refused.map(({ event }) => event.id));
    }
    if (sendable.length === 0) return claimed.length;
    const sent = await this.send(sendable);
    if (sent.ok) {
      await this.outbox.markSent(sendable.map((event) => event.id));
    } else {
      this.logger.warn(`${sendable.length} security event(s) not taken by ${this.ingestUrl}, retried later: ${sent.error}`);
      await this.outbox.retryLater(
        sendable,
        sendable.map((event) => relayBackoffSeconds(event.attempts, RETRY_BASE_SECONDS)),
        sent.error,
      );
    }
    return claimed.length;
  }

  private async send(events: readonly ClaimedSecurityEvent[]): Promise<Sent> {
    try {
      const response = await fetch(this.ingestUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: this.authorization },
        // The payloads are the events' JSON as recorded: joined, not parsed and written again.
        body: `[${events.map((event) => event.payload).join(',')}]`,
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      });
      const answer = await response.text();
      if (response.ok) return { ok: true };
      return { ok: false, error: `HTTP ${response.status} ${answer.slice(0, 300)}` };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      return { ok: false, error: `${(error as Error).message}${cause ? ` (${cause})` : ''}` };
    }
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.tick(), this.settings.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      this.running = this.relayOnce();
      // A full batch: more may be due at once.
      while ((await this.running) === RELAY_BATCH_SIZE && !this.stopped) this.running = this.relayOnce();
    } catch (error) {
      // The database away, say: the next pass tries again.
      this.logger.warn(`security event relay pass failed: ${(error as Error).message}`);
    } finally {
      this.running = undefined;
      if (!this.stopped) this.schedule();
    }
  }
}

/** The events the ingest will take, and those it never would, each with its first problem. */
function partition(claimed: readonly ClaimedSecurityEvent[]): {
  sendable: ClaimedSecurityEvent[];
  refused: { event: ClaimedSecurityEvent; problem: string }[];
} {
  const sendable: ClaimedSecurityEvent[] = [];
  const refused: { event: ClaimedSecurityEvent; problem: string }[] = [];
  for (const event of claimed) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(event.payload);
    } catch {
      refused.push({ event, problem: 'not JSON' });
      continue;
    }
    const checked = securityEventBatchSchema.safeParse([parsed]);
    if (checked.success) sendable.push(event);
    else refused.push({ event, problem: checked.error.issues.map((issue) => `${issue.path.slice(1).join('.')}: ${issue.message}`).join('; ') });
  }
  return { sendable, refused };
}
