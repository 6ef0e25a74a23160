import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Order, OrderItem } from '../generated/prisma/client';

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

  findOrder(schoolId: string, id: string): Promise<OrderRow | null> {
    return this.prisma.order.findUnique({ where: { schoolId_id: { schoolId, id } }, include: WITH_ITEMS });
  }
}
