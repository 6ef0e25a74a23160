import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { ConflictError, notFound, write } from '../common/errors';
import { iso, isoOrNull } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { Subscription } from '../generated/prisma/client';
import { ViewerService } from '../tenancy/viewer.service';
import type { CreateSubscriptionDto, ListSubscriptionsQueryDto, SubscriptionDto, UpdateSubscriptionDto } from './subscriptions.dto';
import { SubscriptionsRepository } from './subscriptions.repository';

export function toSubscriptionView(subscription: Subscription): SubscriptionDto {
  return {
    id: subscription.id,
    plan_id: subscription.planId,
    student_id: subscription.studentId,
    status: subscription.status as SubscriptionDto['status'],
    started_at: iso(subscription.startedAt),
    current_period_end: iso(subscription.currentPeriodEnd),
    canceled_at: isoOrNull(subscription.canceledAt),
    created_at: iso(subscription.createdAt),
    updated_at: iso(subscription.updatedAt),
  };
}

/** The end of the first billing period: one month or one year after the start (UTC). */
export function periodEnd(start: Date, interval: string): Date {
  const end = new Date(start);
  if (interval === 'year') end.setUTCFullYear(end.getUTCFullYear() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  return end;
}

/** Subscriptions are private to the school. They are canceled, never deleted. */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly subscriptions: SubscriptionsRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListSubscriptionsQueryDto): Promise<Page<SubscriptionDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    const page = idPage(query);
    const rows = await this.subscriptions.findSubscriptionsPage(
      schoolId,
      { status: query.status, planId: query.plan_id, studentId: query.student_id },
      page,
    );
    return toPage(rows, page.take, byId, toSubscriptionView);
  }

  async get(principal: AuthPrincipal, id: string): Promise<SubscriptionDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const subscription = await this.subscriptions.findSubscription(schoolId, id);
    if (!subscription) throw notFound('subscription');
    return toSubscriptionView(subscription);
  }

  async create(principal: AuthPrincipal, input: CreateSubscriptionDto): Promise<SubscriptionDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const plan = await this.subscriptions.findPlan(schoolId, input.plan_id);
    if (!plan) throw new InvalidRequestError('plan_id: no such membership plan in this school');
    if (!plan.active) throw new InvalidRequestError('plan_id: the plan takes no new subscribers');
    if (!(await this.subscriptions.studentExists(schoolId, input.student_id))) {
      throw new InvalidRequestError('student_id: no such student in this school');
    }
    const startedAt = input.started_at ?? new Date();
    const subscription = await write(
      () =>
        this.subscriptions.insertSubscription(schoolId, {
          planId: input.plan_id,
          studentId: input.student_id,
          status: input.status ?? 'active',
          startedAt,
          currentPeriodEnd: periodEnd(startedAt, plan.interval),
        }),
      { notFound: 'school' },
    );
    return toSubscriptionView(subscription);
  }

  async update(principal: AuthPrincipal, id: string, input: UpdateSubscriptionDto): Promise<SubscriptionDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const current = await this.subscriptions.findSubscription(schoolId, id);
    if (!current) throw notFound('subscription');
    if (current.status === 'canceled' && input.status !== undefined && input.status !== 'canceled') {
      throw new ConflictError('A canceled subscription cannot be reopened: create a new one');
    }
    const canceling = input.status === 'canceled' && current.status !== 'canceled';
    const subscription = await write(
      () =>
        this.subscriptions.updateSubscription(schoolId, id, {
          status: input.status,
          currentPeriodEnd: input.current_period_end,
          ...(canceling ? { canceledAt: new Date() } : {}),
        }),
      { notFound: 'subscription' },
    );
    return toSubscriptionView(subscription);
  }
}
