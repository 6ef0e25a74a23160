import { Inject, Injectable } from '@nestjs/common';
import { TemporarilyUnavailableError } from '@platform/oauth-errors';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import type { WebhookSubscription } from '../generated/prisma/client';
import { SecretBox } from './secret-box';

/** The secrets a subscription signs with now: its current one, and its previous one during a rotation's overlap. */
@Injectable()
export class WebhookSecrets {
  private readonly box?: SecretBox;

  constructor(@Inject(RESOURCE_CONFIG) config: ResourceConfig) {
    const key = config.events.webhooks.secretsKey;
    this.box = key ? new SecretBox(key) : undefined;
  }

  get enabled(): boolean {
    return this.box !== undefined;
  }

  /** The box, or 503: without WEBHOOK_SECRETS_KEY no secret can be kept, so no webhook exists. */
  private requireBox(): SecretBox {
    if (!this.box) throw new TemporarilyUnavailableError('Webhooks are not enabled on this platform (WEBHOOK_SECRETS_KEY is not set)');
    return this.box;
  }

  check(): void {
    this.requireBox();
  }

  seal(secret: string, subscriptionId: string): string {
    return this.requireBox().seal(secret, subscriptionId);
  }

  signingSecrets(subscription: Pick<WebhookSubscription, 'id' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>, now: Date): string[] {
    const box = this.requireBox();
    const secrets = [box.open(subscription.secret, subscription.id)];
    if (subscription.previousSecret && subscription.previousSecretExpiresAt && subscription.previousSecretExpiresAt > now) {
      secrets.push(box.open(subscription.previousSecret, subscription.id));
    }
    return secrets;
  }
}
