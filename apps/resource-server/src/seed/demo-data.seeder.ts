import { Injectable, Logger } from '@nestjs/common';
import { prismaCode } from '../common/errors';
import { PrismaService } from '../database/prisma.service';
import { demoTenants, type TenantSeed } from './demo-data';

/**
 * Seeds the demo schools (only when config.seedDemoData, which loadResourceConfig refuses in
 * production). Idempotent: a school that exists is left alone, so restarts keep whatever was
 * changed through the API. Each school is written in one transaction: all of it or nothing.
 */
@Injectable()
export class DemoDataSeeder {
  private readonly logger = new Logger(DemoDataSeeder.name);

  constructor(private readonly prisma: PrismaService) {}

  async seed(now = new Date()): Promise<void> {
    for (const tenant of demoTenants(now)) {
      if (await this.schoolExists(tenant.school.id)) continue;
      try {
        await this.insertTenant(tenant);
        this.logger.log(`demo school ${tenant.school.name} (${tenant.school.id}) created`);
      } catch (error) {
        // Another instance seeded it first.
        if (prismaCode(error) === 'P2002') continue;
        throw error;
      }
    }
  }

  private async schoolExists(id: string): Promise<boolean> {
    return (await this.prisma.school.count({ where: { id } })) > 0;
  }

  private insertTenant(seed: TenantSeed): Promise<void> {
    return this.prisma.$transaction(
      async (tx) => {
        await tx.school.create({ data: seed.school });
        await tx.appearance.create({ data: seed.appearance });
        await tx.lecturer.createMany({ data: seed.lecturers });
        await tx.course.createMany({ data: seed.courses });
        await tx.section.createMany({ data: seed.sections });
        await tx.lesson.createMany({ data: seed.lessons });
        await tx.student.createMany({ data: seed.students });
        await tx.enrollment.createMany({ data: seed.enrollments });
        await tx.member.createMany({ data: seed.members });
        await tx.coupon.createMany({ data: seed.coupons });
        await tx.order.createMany({ data: seed.orders });
        await tx.orderItem.createMany({ data: seed.orderItems });
        await tx.post.createMany({ data: seed.posts });
        await tx.comment.createMany({ data: seed.comments });
        await tx.event.createMany({ data: seed.events });
        await tx.membershipPlan.createMany({ data: seed.membershipPlans });
        await tx.subscription.createMany({ data: seed.subscriptions });
        await tx.digitalProduct.createMany({ data: seed.digitalProducts });
        await tx.page.createMany({ data: seed.pages });
        await tx.form.createMany({ data: seed.forms });
        await tx.formSubmission.createMany({ data: seed.formSubmissions });
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
  }
}
