import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EVENT_BUS, type EventBus } from '@platform/event-bus';
import { randomUUID } from 'node:crypto';

const HEARTBEAT_MS = 1_000;

/**
 * Whether this instance hears every revocation event, so that state it keeps in memory about
 * tokens (active-access-tokens.ts) may be trusted. The rule is the one of the resource
 * servers' caches (libs/bearer-auth: trustPeriod): nothing held in memory is used while
 * events may be being lost, nor after, since an event lost meanwhile would leave a revoked
 * token behind; trust comes back as a new period, and its owner starts afresh.
 *
 * The bus judged here is the bus itself: every second this instance publishes a heartbeat on
 * a channel of its own and must hear it back before the next one. A failed publish, an
 * unanswered heartbeat (Redis gone, frozen, or the subscription cut) or the bus saying that
 * its subscription came back (EventBus.onMissedMessages) ends trust; the next heartbeat heard
 * in full starts a new period. A bus that cannot lose messages (the in-process LocalEventBus
 * of the single-process mode implements no onMissedMessages) is always trusted.
 */
@Injectable()
export class RevocationTrust implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RevocationTrust.name);
  private readonly canLoseMessages: boolean;
  private readonly channel = `auth-server:heartbeat:${randomUUID()}`;
  private readonly handlers: (() => void)[] = [];
  private trusted: boolean;
  private period = 0;
  private sent = 0;
  private received = 0;
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => Promise<void>;

  constructor(@Inject(EVENT_BUS) private readonly bus: EventBus) {
    this.canLoseMessages = typeof bus.onMissedMessages === 'function';
    this.trusted = !this.canLoseMessages;
  }

  async onModuleInit(): Promise<void> {
    if (!this.canLoseMessages) return;
    this.bus.onMissedMessages?.(() => this.lose('the event subscription was interrupted'));
    this.unsubscribe = await this.bus.subscribe<number>(this.channel, (beat) => this.heard(beat));
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.timer.unref();
    await this.beat();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.unsubscribe?.().catch(() => undefined);
  }

  /**
   * Names the current stretch of trust, or undefined while nothing held in memory may be used.
   * What was read from the database during one stretch may be kept only if the stretch is still
   * the current one.
   */
  trustPeriod(): number | undefined {
    return this.trusted ? this.period : undefined;
  }

  /** Called whenever trust ends and whenever it comes back: the owner forgets what it holds. */
  onChange(handler: () => void): void {
    this.handlers.push(handler);
  }

  private async beat(): Promise<void> {
    if (this.sent > this.received) this.lose(`heartbeat ${this.sent} not heard back within ${HEARTBEAT_MS} ms`);
    const beat = ++this.sent;
    try {
      await this.bus.publish(this.channel, beat);
    } catch (error) {
      this.lose(`could not publish: ${(error as Error).message}`);
    }
  }

  private heard(beat: unknown): void {
    if (typeof beat !== 'number') return;
    this.received = Math.max(this.received, beat);
    if (this.trusted || this.received < this.sent) return;
    this.period++;
    this.trusted = true;
    // Period 1 is the start, not a recovery.
    if (this.period > 1) this.logger.log('revocation events are heard again: in-memory token state is used again, from empty');
    this.changed();
  }

  private lose(reason: string): void {
    if (!this.trusted) return;
    this.trusted = false;
    this.period++;
    this.logger.warn(`revocation events may be lost (${reason}): in-memory token state is bypassed`);
    this.changed();
  }

  private changed(): void {
    for (const handler of this.handlers) handler();
  }
}
