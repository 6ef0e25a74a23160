import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Coupon, Prisma } from '../generated/prisma/client';

@Injectable()
export class CouponsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findCouponsPage(schoolId: string, code: string | undefined, page: IdPage): Promise<Coupon[]> {
    return this.prisma.coupon.findMany({
      where: { schoolId, ...(code !== undefined ? { code: code.toUpperCase() } : {}), ...afterId(page) },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findCoupon(schoolId: string, id: string): Promise<Coupon | null> {
    return this.prisma.coupon.findUnique({ where: { schoolId_id: { schoolId, id } } });
  }

  insertCoupon(schoolId: string, data: Omit<Prisma.CouponUncheckedCreateInput, 'schoolId'>): Promise<Coupon> {
    return this.prisma.coupon.create({ data: { ...data, schoolId } });
  }

  updateCoupon(schoolId: string, id: string, data: Prisma.CouponUncheckedUpdateInput): Promise<Coupon> {
    return this.prisma.coupon.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deleteCoupon(schoolId: string, id: string): Promise<void> {
    await this.prisma.coupon.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}
