import { Injectable } from '@nestjs/common';
import type { IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, WebhookDelivery, WebhookSubscription } from '../generated/prisma/client';

/** Newest first: a log is read from its end. The cursor is the last id of the previous page. */
const beforeId = (page: IdPage) => (page.afterId === undefined ? {} : { id: { lt: page.afterId } });

/** The subscriptions and their deliveries, always within one school (the owner's). */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly prisma: PrismaService) {}

  findSubscriptionsPage(schoolId: string, page: IdPage): Promise<WebhookSubscription[]> {
    return this.prisma.webhookSubscription.findMany({
      where: { schoolId, ...(page.afterId === undefined ? {} : { id: { gt: page.afterId } }) },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findSubscription(schoolId: string, id: string): Promise<WebhookSubscription | null> {
    return this.prisma.webhookSubscription.findUnique({ where: { schoolId_id: { schoolId, id } } });
  }

  insertSubscription(data: Prisma.WebhookSubscriptionUncheckedCreateInput): Promise<WebhookSubscription> {
    return this.prisma.webhookSubscription.create({ data });
  }

  updateSubscription(schoolId: string, id: string, data: Prisma.WebhookSubscriptionUncheckedUpdateInput): Promise<WebhookSubscription> {
    return this.prisma.webhookSubscription.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deleteSubscription(schoolId: string, id: string): Promise<void> {
    await this.prisma.webhookSubscription.delete({ where: { schoolId_id: { schoolId, id } } });
  }

  findDeliveriesPage(schoolId: string, subscriptionId: string, status: string | undefined, page: IdPage): Promise<WebhookDelivery[]> {
    return this.prisma.webhookDelivery.findMany({
      where: { schoolId, subscriptionId, ...(status === undefined ? {} : { status }), ...beforeId(page) },
      orderBy: { id: 'desc' },
      take: page.take + 1,
    });
  }

  /** Queues a delivery again from its first attempt, whatever became of it. */
  async requeueDelivery(schoolId: string, subscriptionId: string, id: string, now: Date): Promise<WebhookDelivery | null> {
    const { count } = await this.prisma.webhookDelivery.updateMany({
      where: { schoolId, subscriptionId, id },
      data: { status: 'pending', attempts: 0, nextAttemptAt: now, deliveredAt: null, lastError: null },
    });
    return count === 0 ? null : this.prisma.webhookDelivery.findUnique({ where: { id } });
  }
}
