import { Injectable } from '@nestjs/common';
import { flagFilter } from '../common/fields';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { MembershipPlan, Prisma } from '../generated/prisma/client';

@Injectable()
export class MembershipPlansRepository {
  constructor(private readonly prisma: PrismaService) {}

  findPlansPage(schoolId: string, filter: { activeOnly: boolean; active?: boolean }, page: IdPage): Promise<MembershipPlan[]> {
    return this.prisma.membershipPlan.findMany({
      where: {
        schoolId,
        ...flagFilter('active', filter.activeOnly, filter.active),
        ...afterId(page),
      },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findPlan(schoolId: string, id: string, activeOnly: boolean): Promise<MembershipPlan | null> {
    return this.prisma.membershipPlan.findFirst({ where: { schoolId, id, ...(activeOnly ? { active: true } : {}) } });
  }

  async findSchoolCurrency(schoolId: string): Promise<string> {
    const school = await this.prisma.school.findUniqueOrThrow({ where: { id: schoolId }, select: { currency: true } });
    return school.currency;
  }

  insertPlan(schoolId: string, data: Omit<Prisma.MembershipPlanUncheckedCreateInput, 'schoolId'>): Promise<MembershipPlan> {
    return this.prisma.membershipPlan.create({ data: { ...data, schoolId } });
  }

  updatePlan(schoolId: string, id: string, data: Prisma.MembershipPlanUncheckedUpdateInput): Promise<MembershipPlan> {
    return this.prisma.membershipPlan.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  /** Refused (P2003) while the plan has subscriptions. */
  async deletePlan(schoolId: string, id: string): Promise<void> {
    await this.prisma.membershipPlan.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}
