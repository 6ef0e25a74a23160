import { z } from 'zod';
import { cents, currency, isoOut, longText, name, queryFlag } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';
import { schoolQuery } from '../tenancy/viewer';

export const PLAN_INTERVALS = ['month', 'year'] as const;

export const MembershipPlanView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  price_cents: z.number().int().describe('Price per interval'),
  currency: z.string(),
  interval: z.enum(PLAN_INTERVALS),
  features: z.array(z.string()),
  active: z.boolean().describe('Inactive plans take no new subscribers and are hidden from the public'),
  created_at: isoOut,
  updated_at: isoOut,
});
export class MembershipPlanDto extends zodDto(MembershipPlanView, 'output') {}

export const ListMembershipPlansQuery = pageQuery.extend({
  ...schoolQuery.shape,
  active: queryFlag.optional().describe('Token callers: filter by active state (anonymous callers only see active plans)'),
});
export class ListMembershipPlansQueryDto extends zodDto(ListMembershipPlansQuery, 'input') {}

const planFields = {
  name,
  description: longText.optional(),
  price_cents: cents,
  currency: currency.optional().describe('Defaults to the school’s currency'),
  interval: z.enum(PLAN_INTERVALS),
  features: z.array(z.string().trim().min(1).max(200)).max(50).optional(),
  active: z.boolean().optional(),
};

export const CreateMembershipPlan = z.strictObject(planFields);
export class CreateMembershipPlanDto extends zodDto(CreateMembershipPlan, 'input') {}

export const UpdateMembershipPlan = z.strictObject(planFields).partial();
export class UpdateMembershipPlanDto extends zodDto(UpdateMembershipPlan, 'input') {}
