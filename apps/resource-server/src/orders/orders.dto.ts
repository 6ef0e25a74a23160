import { z } from 'zod';
import { email, isoOut, ref } from '../common/fields';
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

const OrderItemInput = z.object({
  product_type: z.enum(PRODUCT_TYPES),
  product_id: ref,
  quantity: z.number().int().min(1).max(100).default(1),
});

export const CreateOrder = z
  .object({
    customer_email: email,
    student_id: ref.optional().describe('The student who bought, if they are one'),
    number: z
      .string()
      .trim()
      .min(1)
      .max(50)
      .optional()
      .describe('Your order number (e.g. your checkout’s); one is drawn when absent. Unique in the school'),
    items: z.array(OrderItemInput).min(1).max(50).describe('What was bought: priced from the school’s catalogue, all in one currency'),
    status: z.enum(['pending', 'paid']).default('pending').describe('`paid` records a sale already paid'),
  })
  .describe('A sale made elsewhere (a checkout, a payment processor), recorded in the school');
export class CreateOrderDto extends zodDto(CreateOrder, 'input') {}

/** The changes an order's status may take: a pending order is paid or fails; a paid one is refunded. */
export const ORDER_TRANSITIONS = { paid: ['pending'], failed: ['pending'], refunded: ['paid'] } as const;

export const UpdateOrderStatus = z.object({
  status: z.enum(['paid', 'failed', 'refunded']).describe('pending → paid or failed; paid → refunded'),
});
export class UpdateOrderStatusDto extends zodDto(UpdateOrderStatus, 'input') {}

export const ListOrdersQuery = pageQuery.extend({
  status: z.enum(ORDER_STATUSES).optional().describe('Only orders in this status'),
  student_id: ref.optional().describe('Only orders of this student'),
});
export class ListOrdersQueryDto extends zodDto(ListOrdersQuery, 'input') {}
