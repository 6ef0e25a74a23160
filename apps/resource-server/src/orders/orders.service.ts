import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { notFound } from '../common/errors';
import { iso, isoOrNull } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import { ViewerService } from '../tenancy/viewer.service';
import type { ListOrdersQueryDto, OrderDto } from './orders.dto';
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

/** Orders are read only through the API (checkout writes them) and private to the school. */
@Injectable()
export class OrdersService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly orders: OrdersRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListOrdersQueryDto): Promise<Page<OrderDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    const page = idPage(query);
    const rows = await this.orders.findOrdersPage(schoolId, { status: query.status, studentId: query.student_id }, page);
    return toPage(rows, page.take, byId, toOrderView);
  }

  async get(principal: AuthPrincipal, id: string): Promise<OrderDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const order = await this.orders.findOrder(schoolId, id);
    if (!order) throw notFound('order');
    return toOrderView(order);
  }
}
