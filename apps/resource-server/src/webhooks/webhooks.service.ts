import { Inject, Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { isSpecialUseLiteral } from '@platform/outbound-http';
import { v7 as uuidv7 } from 'uuid';
import { notFound, write } from '../common/errors';
import { iso, isoOrNull } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import type { WebhookDelivery, WebhookSubscription } from '../generated/prisma/client';
import { ViewerService } from '../tenancy/viewer.service';
import { WebhookSecrets } from './webhook-secrets';
import { newSigningSecret } from './webhook-signature';
import type {
  CreateWebhookDto,
  DeliveryDto,
  ListDeliveriesQueryDto,
  ListWebhooksQueryDto,
  UpdateWebhookDto,
  WebhookDto,
  WebhookWithSecretDto,
} from './webhooks.dto';
import { WebhooksRepository } from './webhooks.repository';

export function toWebhookView(subscription: WebhookSubscription): WebhookDto {
  return {
    id: subscription.id,
    url: subscription.url,
    description: subscription.description,
    event_types: subscription.eventTypes,
    status: subscription.status as WebhookDto['status'],
    paused_reason: subscription.pausedReason,
    paused_at: isoOrNull(subscription.pausedAt),
    consecutive_failures: subscription.consecutiveFailures,
    previous_secret_expires_at:
      subscription.previousSecretExpiresAt && subscription.previousSecretExpiresAt > new Date() ? iso(subscription.previousSecretExpiresAt) : null,
    created_at: iso(subscription.createdAt),
    updated_at: iso(subscription.updatedAt),
  };
}

export function toDeliveryView(delivery: WebhookDelivery): DeliveryDto {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status as DeliveryDto['status'],
    attempts: delivery.attempts,
    next_attempt_at: delivery.status === 'pending' ? iso(delivery.nextAttemptAt) : null,
    last_attempt_at: isoOrNull(delivery.lastAttemptAt),
    last_status: delivery.lastStatus,
    last_error: delivery.lastError,
    delivered_at: isoOrNull(delivery.deliveredAt),
    created_at: iso(delivery.createdAt),
  };
}

const OWNERS_ONLY = 'manage its webhooks';

/**
 * A school owner's webhook subscriptions: each an https endpoint, the event types it receives and
 * its signing secret (shown once, at creation and at each rotation), and the deliveries made to it.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly webhooks: WebhooksRepository,
    private readonly secrets: WebhookSecrets,
    @Inject(RESOURCE_CONFIG) private readonly config: ResourceConfig,
  ) {}

  async list(principal: AuthPrincipal, query: ListWebhooksQueryDto): Promise<Page<WebhookDto>> {
    const { schoolId } = await this.viewers.owner(principal, OWNERS_ONLY);
    const page = idPage(query);
    return toPage(await this.webhooks.findSubscriptionsPage(schoolId, page), page.take, byId, toWebhookView);
  }

  async get(principal: AuthPrincipal, id: string): Promise<WebhookDto> {
    const { schoolId } = await this.viewers.owner(principal, OWNERS_ONLY);
    return toWebhookView(await this.requireSubscription(schoolId, id));
  }

  async create(principal: AuthPrincipal, input: CreateWebhookDto): Promise<WebhookWithSecretDto> {
    const { schoolId, userId } = await this.viewers.owner(principal, OWNERS_ONLY);
    this.secrets.check();
    this.checkDestination(input.url);
    const id = uuidv7();
    const secret = newSigningSecret();
    const subscription = await write(
      () =>
        this.webhooks.insertSubscription({
          id,
          schoolId,
          url: input.url,
          eventTypes: input.event_types,
          description: input.description ?? '',
          secret: this.secrets.seal(secret, id),
          createdBy: userId,
        }),
      { notFound: 'school' },
    );
    return { ...toWebhookView(subscription), secret };
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateWebhookDto): Promise<WebhookDto> {
    const { schoolId } = await this.viewers.owner(principal, OWNERS_ONLY);
    if (input.url !== undefined) this.checkDestination(input.url);
    const status =
      input.status === 'active'
        ? { status: 'active', pausedReason: null, pausedAt: null, consecutiveFailures: 0 }
        : input.status === 'paused'
          ? { status: 'paused', pausedReason: 'paused by an owner', pausedAt: new Date() }
          : {};
    const subscription = await write(
      () => this.webhooks.updateSubscription(schoolId, id, { url: input.url, eventTypes: input.event_types, description: input.description, ...status }),
      { notFound: 'webhook' },
    );
    return toWebhookView(subscription);
  }

  /** Its pending and past deliveries go with it. */
  async remove(principal: AuthPrincipal, id: string): Promise<void> {
    const { schoolId } = await this.viewers.owner(principal, OWNERS_ONLY);
    await write(() => this.webhooks.deleteSubscription(schoolId, id), { notFound: 'webhook' });
  }

  /**
   * A new secret, shown once; the previous one signs beside it for
   * WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS, so the receiver can switch without missing a delivery.
   */
  async rotateSecret(principal: AuthPrincipal, id: string): Promise<WebhookWithSecretDto> {
    const { schoolId } = await this.viewers.owner(principal, OWNERS_ONLY);
    this.secrets.check();
    const current = await this.requireSubscription(schoolId, id);
    const secret = newSigningSecret();
    const overlapEnds = new Date(Date.now() + this.config.events.webhooks.rotationOverlapSeconds * 1000);
    const subscription = await write(
      () =>
        this.webhooks.updateSubscription(schoolId, id, {
          secret: this.secrets.seal(secret, id),
          previousSecret: current.secret,
          previousSecretExpiresAt: overlapEnds,
        }),
      { notFound: 'webhook' },
    );
    return { ...toWebhookView(subscription), secret };
  }

  async listDeliveries(principal: AuthPrincipal, id: string, query: ListDeliveriesQueryDto): Promise<Page<DeliveryDto>> {
    const { schoolId } = await this.viewers.owner(principal, OWNERS_ONLY);
    await this.requireSubscription(schoolId, id);
    const page = idPage(query);
    return toPage(await this.webhooks.findDeliveriesPage(schoolId, id, query.status, page), page.take, byId, toDeliveryView);
  }

  /** The delivery again, from its first attempt (once the subscription is active). */
  async redeliver(principal: AuthPrincipal, id: string, deliveryId: string): Promise<DeliveryDto> {
    const { schoolId } = await this.viewers.owner(principal, OWNERS_ONLY);
    const delivery = await this.webhooks.requeueDelivery(schoolId, id, deliveryId, new Date());
    if (!delivery) throw notFound('delivery');
    return toDeliveryView(delivery);
  }

  private checkDestination(url: string): void {
    if (isSpecialUseLiteral(new URL(url), this.config.events.webhooks)) {
      throw new InvalidRequestError('url: a loopback, private or other special-use address never receives webhooks');
    }
  }

  private async requireSubscription(schoolId: string, id: string): Promise<WebhookSubscription> {
    const subscription = await this.webhooks.findSubscription(schoolId, id);
    if (!subscription) throw notFound('webhook');
    return subscription;
  }
}
