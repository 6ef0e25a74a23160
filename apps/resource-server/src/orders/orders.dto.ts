import { z } from 'zod';
import { isoOut, ref } from '../common/fields';
import { pageQuery } from '../common/pagination';
import { zodDto } from '../common/validation';

export const ORDER_STATUSES = ['pending', 'paid', 'refunded', 'failed'] as const;
export const PRODUCT_TYPES = ['course', 'digital_product', 'membership_plan'] as const;

const OrderItemView = z.object({
  id: z.string(),
  product_type: z.enum(PRODUCT_TYPES),
  product_id: z.string(),
  title: z.string().describe('The product’s title when it was sold'),
  quantity: z.number().int(),
  unit_price_cents: z.number().int(),
  total_cents: z.number().int(),
});

export const OrderView = z.object({
  id: z.string(),
  number: z.string().describe('Human-facing order number'),
  student_id: z.string().nullable(),
  customer_email: z.string(),
  status: z.enum(ORDER_STATUSES),
  currency: z.string(),
  subtotal_cents: z.number().int(),
  discount_cents: z.number().int(),
  total_cents: z.number().int(),
  coupon_code: z.string().nullable(),
  placed_at: isoOut,
  paid_at: isoOut.nullable(),
  refunded_at: isoOut.nullable(),
  items: z.array(OrderItemView),
});
export class OrderDto extends zodDto(OrderView, 'output') {}

export const ListOrdersQuery = pageQuery.extend({
  status: z.enum(ORDER_STATUSES).optional().describe('Only orders in this status'),
  student_id: ref.optional().describe('Only orders of this student'),
});
export class ListOrdersQueryDto extends zodDto(ListOrdersQuery, 'input') {}
