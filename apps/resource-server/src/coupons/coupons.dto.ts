import { z } from 'zod';
import { cents, currency, dateTime, isoOut } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';

export const CouponView = z.object({
  id: z.string(),
  code: z.string(),
  percent_off: z.number().int().nullable().describe('Set for a percentage discount'),
  amount_off_cents: z.number().int().nullable().describe('Set for a fixed discount, in currency'),
  currency: z.string().nullable(),
  max_redemptions: z.number().int().nullable(),
  redemptions: z.number().int(),
  valid_from: isoOut.nullable(),
  valid_until: isoOut.nullable(),
  active: z.boolean(),
  created_at: isoOut,
  updated_at: isoOut,
});
export class CouponDto extends zodDto(CouponView, 'output') {}

export const ListCouponsQuery = pageQuery.extend({
  code: z.string().max(32).optional().describe('Only the coupon with this code (case-insensitive)'),
});
export class ListCouponsQueryDto extends zodDto(ListCouponsQuery, 'input') {}

const couponFields = {
  code: z
    .string()
    .regex(/^[A-Za-z0-9_-]{3,32}$/, '3 to 32 letters, digits, hyphens or underscores')
    .transform((code) => code.toUpperCase()),
  percent_off: z.number().int().min(1).max(100).nullable().optional().describe('Exactly one of percent_off and amount_off_cents'),
  amount_off_cents: cents.min(1).nullable().optional(),
  currency: currency.nullable().optional().describe('Required with amount_off_cents'),
  max_redemptions: z.number().int().min(1).nullable().optional(),
  valid_from: dateTime.nullable().optional(),
  valid_until: dateTime.nullable().optional(),
  active: z.boolean().optional(),
};

export const CreateCoupon = z.strictObject(couponFields);
export class CreateCouponDto extends zodDto(CreateCoupon, 'input') {}

export const UpdateCoupon = z.strictObject(couponFields).partial();
export class UpdateCouponDto extends zodDto(UpdateCoupon, 'input') {}
