import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { MembershipPlan, Prisma, Subscription } from '../generated/prisma/client';

export interface SubscriptionFilter {
  status?: string;
  planId?: string;
  studentId?: string;
}

@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findSubscriptionsPage(schoolId: string, filter: SubscriptionFilter, page: IdPage): Promise<Subscription[]> {
    return this.prisma.subscription.findMany({
      where: {
        schoolId,
        ...(filter.status !== undefined ? { status: filter.status } : {}),
        ...(filter.planId !== undefined ? { planId: filter.planId } : {}),
        ...(filter.studentId !== undefined ? { studentId: filter.studentId } : {}),
        ...afterId(page),
      },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findSubscription(schoolId: string, id: string): Promise<Subscription | null> {
    return this.prisma.subscription.findUnique({ where: { schoolId_id: { schoolId, id } } });
  }

  findPlan(schoolId: string, id: string): Promise<Pick<MembershipPlan, 'active' | 'interval'> | null> {
    return this.prisma.membershipPlan.findUnique({ where: { schoolId_id: { schoolId, id } }, select: { active: true, interval: true } });
  }

  async studentExists(schoolId: string, id: string): Promise<boolean> {
    return (await this.prisma.student.count({ where: { schoolId, id } })) > 0;
  }

  insertSubscription(schoolId: string, data: Omit<Prisma.SubscriptionUncheckedCreateInput, 'schoolId'>): Promise<Subscription> {
    return this.prisma.subscription.create({ data: { ...data, schoolId } });
  }

  updateSubscription(schoolId: string, id: string, data: Prisma.SubscriptionUncheckedUpdateInput): Promise<Subscription> {
    return this.prisma.subscription.update({ where: { schoolId_id: { schoolId, id } }, data });
  }
}
