import { Module } from '@nestjs/common';
import { DeliveryRepository } from './delivery.repository';
import { DeliveryWorker } from './delivery-worker';
import { WebhookSecrets } from './webhook-secrets';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** The school owners' webhook subscriptions (API) and the delivery of their events (worker). */
@Module({
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookSecrets, DeliveryRepository, DeliveryWorker],
  exports: [WebhookSecrets],
})
export class WebhooksModule {}
