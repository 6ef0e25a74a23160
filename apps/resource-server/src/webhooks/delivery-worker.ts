import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { OutboundError, postOutbound } from '@platform/outbound-http';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import { type AttemptOutcome, type ClaimedDelivery, DeliveryRepository } from './delivery.repository';
import { nextAttemptDelaySeconds, retryAfterSeconds } from './delivery-schedule';
import { WebhookSecrets } from './webhook-secrets';
import { signedHeaders } from './webhook-signature';

/** Outbox events fanned out per transaction, and deliveries sent at once by one replica. */
const DISPATCH_BATCH = 200;
const CONCURRENT_DELIVERIES = 10;
/** How long past an attempt's timeout its claim holds before another worker may take the delivery. */
const LEASE_MARGIN_SECONDS = 30;

const USER_AGENT = 'course-platform-webhooks/1';

/** What an answer (or its absence) means for the delivery (Standard Webhooks, "Delivery success and failure"). */
export function outcomeOf(
  answer: { status: number; headers: Record<string, string | string[] | undefined> } | OutboundError,
  attempt: number,
  settings: { maxAttempts: number; retryBaseSeconds: number },
  now = new Date(),
): AttemptOutcome {
  if (!(answer instanceof OutboundError) && answer.status >= 200 && answer.status < 300) return { kind: 'delivered', status: answer.status };
  const status = answer instanceof OutboundError ? null : answer.status;
  const error = answer instanceof OutboundError ? answer.message : `HTTP ${answer.status}`;
  // 410 Gone: "no longer interested in receiving webhooks" — stop now rather than for 3 days.
  if (status === 410) return { kind: 'failed', status, error, pauseReason: 'the endpoint answered 410 Gone' };
  if (attempt >= settings.maxAttempts) {
    return { kind: 'failed', status, error, pauseReason: `a delivery failed ${attempt} times (last: ${error})` };
  }
  const retryAfter = answer instanceof OutboundError ? undefined : retryAfterSeconds(answer.headers['retry-after'], now);
  return { kind: 'retry', status, error, delaySeconds: nextAttemptDelaySeconds(attempt, settings.retryBaseSeconds, retryAfter) };
}

/**
 * Every replica runs this loop (WEBHOOK_DELIVERY_ENABLED): fan the outbox out, take the due
 * deliveries, send each signed, record how it went. The next pass is armed once the previous
 * one has finished; the timer is unref'd; shutdown waits for the pass under way.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly settings: ResourceConfig['events']['webhooks'];
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  private stopped = false;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly secrets: WebhookSecrets,
    @Inject(RESOURCE_CONFIG) config: ResourceConfig,
  ) {
    this.settings = config.events.webhooks;
  }

  /** Without WEBHOOK_SECRETS_KEY the loop still empties the outbox (no subscription can exist): it never grows unread. */
  onApplicationBootstrap(): void {
    if (this.settings.deliveryEnabled) this.schedule();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** One pass: every outbox event fanned out, then one batch of due deliveries sent. The deliveries attempted. */
  async runOnce(): Promise<number> {
    while (!this.stopped && (await this.deliveries.dispatchOutbox(DISPATCH_BATCH)) === DISPATCH_BATCH);
    if (this.stopped || !this.secrets.enabled) return 0;
    const claimed = await this.deliveries.claimDue(CONCURRENT_DELIVERIES, Math.ceil(this.settings.timeoutMs / 1000) + LEASE_MARGIN_SECONDS);
    await Promise.all(claimed.map((delivery) => this.attempt(delivery)));
    return claimed.length;
  }

  /** Sends one claimed delivery and records the outcome. */
  async attempt(delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    const now = new Date();
    let answer: Awaited<ReturnType<typeof postOutbound>> | OutboundError;
    try {
      const secrets = this.secrets.signingSecrets({ ...delivery, id: delivery.subscriptionId }, now);
      const headers = signedHeaders(secrets, delivery.eventId, Math.floor(now.getTime() / 1000), delivery.payload);
      answer = await postOutbound(
        new URL(delivery.url),
        { headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers }, body: delivery.payload },
        this.settings,
      );
    } catch (error) {
      answer = error instanceof OutboundError ? error : new OutboundError('unreachable', (error as Error).message);
    }
    const outcome = outcomeOf(answer, delivery.attempts, this.settings);
    await this.deliveries.recordOutcome(delivery, outcome);
    if (outcome.kind !== 'delivered') this.logger.debug(`delivery ${delivery.id} attempt ${delivery.attempts}: ${outcome.error}`);
    return outcome;
  }

  private schedule(): void {
    this.timer = setTimeout(() => void this.tick(), this.settings.pollIntervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      this.running = this.runOnce();
      // A full batch: more may be due at once.
      while ((await this.running) === CONCURRENT_DELIVERIES && !this.stopped) this.running = this.runOnce();
    } catch (error) {
      this.logger.warn(`webhook pass failed: ${(error as Error).message}`);
    } finally {
      this.running = undefined;
      if (!this.stopped) this.schedule();
    }
  }
}
