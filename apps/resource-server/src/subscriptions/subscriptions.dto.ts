import { z } from 'zod';
import { dateTime, isoOut, ref } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';

export const SUBSCRIPTION_STATUSES = ['trialing', 'active', 'past_due', 'canceled'] as const;

export const SubscriptionView = z.object({
  id: z.string(),
  plan_id: z.string(),
  student_id: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  started_at: isoOut,
  current_period_end: isoOut,
  canceled_at: isoOut.nullable(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class SubscriptionDto extends zodDto(SubscriptionView, 'output') {}

export const ListSubscriptionsQuery = pageQuery.extend({
  status: z.enum(SUBSCRIPTION_STATUSES).optional().describe('Only subscriptions in this status'),
  plan_id: ref.optional().describe('Only subscriptions to this plan'),
  student_id: ref.optional().describe('Only subscriptions of this student'),
});
export class ListSubscriptionsQueryDto extends zodDto(ListSubscriptionsQuery, 'input') {}

export const CreateSubscription = z.strictObject({
  plan_id: ref,
  student_id: ref,
  status: z.enum(['trialing', 'active']).optional().describe('Default active'),
  started_at: dateTime.optional().describe('Default now'),
});
export class CreateSubscriptionDto extends zodDto(CreateSubscription, 'input') {}

export const UpdateSubscription = z
  .strictObject({
    status: z.enum(SUBSCRIPTION_STATUSES).describe('canceled ends the subscription; it cannot be reopened'),
    current_period_end: dateTime,
  })
  .partial();
export class UpdateSubscriptionDto extends zodDto(UpdateSubscription, 'input') {}
