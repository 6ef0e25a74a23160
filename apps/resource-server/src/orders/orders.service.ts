import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError } from '@platform/oauth-errors';
import { ConflictError, notFound, write } from '../common/errors';
import { iso, isoOrNull } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import { ViewerService } from '../tenancy/viewer.service';
import type { BusinessChange } from '../outbox/business-event';
import { EventOutbox } from '../outbox/event-outbox';
import { type CreateOrderDto, type ListOrdersQueryDto, ORDER_TRANSITIONS, type OrderDto, type UpdateOrderStatusDto } from './orders.dto';
import { type OrderRow, OrdersRepository } from './orders.repository';

type ProductType = OrderDto['items'][number]['product_type'];

export function toOrderView(order: OrderRow): OrderDto {
  return {
    id: order.id,
    number: order.number,
    student_id: order.studentId,
    customer_email: order.customerEmail,
    status: order.status as OrderDto['status'],
    currency: order.currency,
    subtotal_cents: order.subtotalCents,
    discount_cents: order.discountCents,
    total_cents: order.totalCents,
    coupon_code: order.couponCode,
    placed_at: iso(order.placedAt),
    paid_at: isoOrNull(order.paidAt),
    refunded_at: isoOrNull(order.refundedAt),
    items: order.items.map((item) => ({
      id: item.id,
      product_type: item.productType as ProductType,
      product_id: item.productId,
      title: item.title,
      quantity: item.quantity,
      unit_price_cents: item.unitPriceCents,
      total_cents: item.totalCents,
    })),
  };
}

const orderEvent = (type: BusinessChange['type'], order: OrderRow): BusinessChange => ({
  type,
  subject: { type: 'order', id: order.id },
  data: toOrderView(order),
});

/** A drawn order number: 40 random bits in Crockford-like base32, readable over the phone. */
function drawOrderNumber(): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  return `ORD-${[...randomBytes(8)].map((byte) => alphabet[byte % 32]).join('')}`;
}

/**
 * Orders are private to the school. A checkout or payment processor records its sales here
 * (priced from the school's catalogue) and moves them through pending → paid → refunded; each
 * step reports its event (order.created, order.paid, order.refunded) in its own transaction.
 */
@Injectable()
export class OrdersService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly orders: OrdersRepository,
    private readonly outbox: EventOutbox,
  ) {}

  async list(principal: AuthPrincipal, query: ListOrdersQueryDto): Promise<Page<OrderDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    const page = idPage(query);
    const rows = await this.orders.findOrdersPage(schoolId, { status: query.status, studentId: query.student_id }, page);
    return toPage(rows, page.take, byId, toOrderView);
  }

  async create(principal: AuthPrincipal, input: CreateOrderDto): Promise<OrderDto> {
    const { schoolId } = await this.viewers.staff(principal);
    if (input.student_id !== undefined && !(await this.orders.studentExists(schoolId, input.student_id))) {
      throw new InvalidRequestError('student_id: no such student in this school');
    }
    const items = await Promise.all(
      input.items.map(async (item, index) => {
        const product = await this.orders.findProductPrice(schoolId, item.product_type, item.product_id);
        if (!product) throw new InvalidRequestError(`items.${index}.product_id: no such ${item.product_type} in this school`);
        return { ...item, ...product };
      }),
    );
    const currency = items[0].currency;
    if (items.some((item) => item.currency !== currency)) throw new InvalidRequestError('items: every product of an order must be priced in one currency');
    const total = items.reduce((sum, item) => sum + item.priceCents * item.quantity, 0);
    const now = new Date();
    const order = {
      number: input.number ?? drawOrderNumber(),
      studentId: input.student_id ?? null,
      customerEmail: input.customer_email,
      status: input.status,
      currency,
      subtotalCents: total,
      totalCents: total,
      placedAt: now,
      paidAt: input.status === 'paid' ? now : null,
    };
    const rows = items.map((item) => ({
      productType: item.product_type,
      productId: item.product_id,
      courseId: item.courseId,
      title: item.title,
      quantity: item.quantity,
      unitPriceCents: item.priceCents,
      totalCents: item.priceCents * item.quantity,
    }));
    const created = await write(
      () =>
        this.outbox.write(
          schoolId,
          principal,
          (tx) => this.orders.insertOrder(schoolId, order, rows, tx),
          (row) => [orderEvent('order.created', row), ...(row.status === 'paid' ? [orderEvent('order.paid', row)] : [])],
        ),
      { notFound: 'school', conflict: 'An order with this number already exists in the school' },
    );
    return toOrderView(created);
  }

  /** A status change the order's current status allows (ORDER_TRANSITIONS), with its event when it has one. */
  async updateStatus(principal: AuthPrincipal, id: string, input: UpdateOrderStatusDto): Promise<OrderDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const from = ORDER_TRANSITIONS[input.status];
    const updated = await this.outbox.write(
      schoolId,
      principal,
      async (tx) => {
        const moved = await this.orders.updateOrderStatus(schoolId, id, from, input.status, new Date(), tx);
        const order = await this.orders.findOrder(schoolId, id, tx);
        if (!order) throw notFound('order');
        if (!moved) throw new ConflictError(`The order is ${order.status}: only a ${from.join(' or ')} order can become ${input.status}`);
        return order;
      },
      (order) => (order.status === 'paid' || order.status === 'refunded' ? [orderEvent(`order.${order.status}`, order)] : []),
    );
    return toOrderView(updated);
  }

  async get(principal: AuthPrincipal, id: string): Promise<OrderDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const order = await this.orders.findOrder(schoolId, id);
    if (!order) throw notFound('order');
    return toOrderView(order);
  }
}
