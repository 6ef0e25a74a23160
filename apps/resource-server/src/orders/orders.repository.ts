import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Order, OrderItem, Prisma } from '../generated/prisma/client';
import type { Db } from '../outbox/event-outbox';

export type OrderRow = Order & { items: OrderItem[] };

const WITH_ITEMS = { items: { orderBy: { id: 'asc' } } } as const;

@Injectable()
export class OrdersRepository {
  constructor(private readonly prisma: PrismaService) {}

  findOrdersPage(schoolId: string, filter: { status?: string; studentId?: string }, page: IdPage): Promise<OrderRow[]> {
    return this.prisma.order.findMany({
      where: {
        schoolId,
        ...(filter.status !== undefined ? { status: filter.status } : {}),
        ...(filter.studentId !== undefined ? { studentId: filter.studentId } : {}),
        ...afterId(page),
      },
      include: WITH_ITEMS,
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findOrder(schoolId: string, id: string, db: Db = this.prisma): Promise<OrderRow | null> {
    return db.order.findUnique({ where: { schoolId_id: { schoolId, id } }, include: WITH_ITEMS });
  }

  /** What a product sells for, if the school has it: a course, a digital product or a membership plan. */
  async findProductPrice(schoolId: string, type: string, id: string): Promise<{ title: string; priceCents: number; currency: string; courseId: string | null } | null> {
    const where = { schoolId_id: { schoolId, id } };
    const select = { priceCents: true, currency: true } as const;
    switch (type) {
      case 'course': {
        const course = await this.prisma.course.findUnique({ where, select: { ...select, title: true, id: true } });
        return course && { title: course.title, priceCents: course.priceCents, currency: course.currency, courseId: course.id };
      }
      case 'digital_product': {
        const product = await this.prisma.digitalProduct.findUnique({ where, select: { ...select, title: true } });
        return product && { ...product, courseId: null };
      }
      default: {
        const plan = await this.prisma.membershipPlan.findUnique({ where, select: { ...select, name: true } });
        return plan && { title: plan.name, priceCents: plan.priceCents, currency: plan.currency, courseId: null };
      }
    }
  }

  async studentExists(schoolId: string, id: string): Promise<boolean> {
    return (await this.prisma.student.count({ where: { schoolId, id } })) > 0;
  }

  async insertOrder(
    schoolId: string,
    order: Omit<Prisma.OrderUncheckedCreateInput, 'schoolId' | 'items'>,
    items: Omit<Prisma.OrderItemUncheckedCreateInput, 'schoolId' | 'orderId'>[],
    db: Db,
  ): Promise<OrderRow> {
    const created = await db.order.create({ data: { ...order, schoolId } });
    await db.orderItem.createMany({ data: items.map((item) => ({ ...item, schoolId, orderId: created.id })) });
    return db.order.findUniqueOrThrow({ where: { id: created.id }, include: WITH_ITEMS });
  }

  /** Moves an order from one of `from` to `to`; false when it was in none of them (or is not the school's). */
  async updateOrderStatus(schoolId: string, id: string, from: readonly string[], to: string, at: Date, db: Db): Promise<boolean> {
    const stamp = to === 'paid' ? { paidAt: at } : to === 'refunded' ? { refundedAt: at } : {};
    const { count } = await db.order.updateMany({ where: { schoolId, id, status: { in: [...from] } }, data: { status: to, ...stamp } });
    return count === 1;
  }
}
