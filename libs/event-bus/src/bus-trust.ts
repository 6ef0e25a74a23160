import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EventBus } from './event-bus';

const HEARTBEAT_MS = 1_000;

export interface BusTrustOptions {
  /** Names the heartbeat channel and the log lines, e.g. "auth-server". */
  name: string;
  /** What its owner holds in memory, for the log lines, e.g. "in-memory token state". */
  holds: string;
}

/**
 * The one answer to "may state kept in memory about tokens be used?": only while this process
 * hears every event published on the bus (revocations). An event lost meanwhile would leave a
 * revoked token behind, so nothing held is used while events may be being lost, nor after:
 * trust comes back as a new period, and the owner starts afresh (onChange). Used by the
 * resource servers' answer cache (libs/bearer-auth TokenValidator) and the auth server's live
 * access tokens (RevocationTrust).
 *
 * Fed by the bus itself: every second this process publishes a heartbeat on a channel of its
 * own and must hear it back before the next one. Trust ends at a failed publish, an unanswered
 * heartbeat (Redis gone, frozen, or the subscription cut), the bus saying that its subscription
 * came back after a gap (EventBus.onMissedMessages), or an owner that shares the bus's Redis
 * saying a command failed (interrupted()). A heartbeat sent after that and heard back starts a
 * new period. A bus that cannot lose messages (the in-process LocalEventBus implements no
 * onMissedMessages) is always trusted, in period 0.
 */
export class BusTrust {
  private readonly logger: Logger;
  private readonly canLoseMessages: boolean;
  private readonly channel: string;
  private readonly handlers: (() => void)[] = [];
  private trusted: boolean;
  private period = 0;
  private sent = 0;
  private received = 0;
  /** Heartbeats sent when trust last ended: only a later one, heard back, brings it back. */
  private sentAtLoss = 0;
  private running = false;
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => Promise<void>;

  constructor(
    private readonly bus: EventBus,
    private readonly options: BusTrustOptions,
  ) {
    this.logger = new Logger(`${options.name}:BusTrust`);
    this.canLoseMessages = typeof bus.onMissedMessages === 'function';
    this.channel = `${options.name}:heartbeat:${randomUUID()}`;
    this.trusted = !this.canLoseMessages;
  }

  /** Subscribes to its heartbeat and sends the first one (trust comes when it is heard back). */
  async start(): Promise<void> {
    if (!this.canLoseMessages || this.running) return;
    this.running = true;
    this.bus.onMissedMessages?.(() => this.interrupted('the event subscription was interrupted'));
    this.unsubscribe = await this.bus.subscribe<number>(this.channel, (beat) => this.heard(beat));
    // The judgement waits for the poll phase: after the event loop stalled past a beat (a long
    // synchronous task), the echo already in the socket is read first, and a stall alone does
    // not pass for a lost message.
    this.timer = setInterval(() => setImmediate(() => void this.beat()), HEARTBEAT_MS);
    this.timer.unref();
    await this.beat();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearInterval(this.timer);
    await this.unsubscribe?.().catch(() => undefined);
  }

  /**
   * Names the current stretch of trust, or undefined while nothing held in memory may be used.
   * What was read during one stretch may be kept only if the stretch is still the current one.
   */
  trustPeriod(): number | undefined {
    return this.trusted ? this.period : undefined;
  }

  /** Called whenever trust ends and whenever it comes back: the owner forgets what it holds. */
  onChange(handler: () => void): void {
    this.handlers.push(handler);
  }

  /**
   * Events may be being lost: a command on the Redis the bus uses failed or went unanswered.
   * Nothing for a bus that cannot lose messages.
   */
  interrupted(reason: string): void {
    if (!this.canLoseMessages || !this.running || !this.trusted) return;
    this.trusted = false;
    this.period++;
    this.sentAtLoss = this.sent;
    this.logger.warn(`events may be lost (${reason}): ${this.options.holds} is bypassed`);
    this.changed();
  }

  private async beat(): Promise<void> {
    if (!this.running) return;
    if (this.sent > this.received) this.interrupted(`heartbeat ${this.sent} not heard back within ${HEARTBEAT_MS} ms`);
    const beat = ++this.sent;
    try {
      await this.bus.publish(this.channel, beat);
    } catch (error) {
      this.interrupted(`could not publish: ${(error as Error).message}`);
    }
  }

  private heard(beat: unknown): void {
    if (typeof beat !== 'number') return;
    this.received = Math.max(this.received, beat);
    if (this.trusted || !this.running || this.received < this.sent || this.received <= this.sentAtLoss) return;
    this.period++;
    this.trusted = true;
    // Period 1 is the start, not a recovery.
    if (this.period > 1) this.logger.log(`events are heard again: ${this.options.holds} is used again, from empty`);
    this.changed();
  }

  private changed(): void {
    for (const handler of this.handlers) handler();
  }
}
