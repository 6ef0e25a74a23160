import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Form, FormSubmission } from '../generated/prisma/client';

export type FormRow = Form & { _count: { submissions: number } };

const WITH_COUNT = { _count: { select: { submissions: true } } } as const;

@Injectable()
export class FormsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findFormsPage(schoolId: string, page: IdPage): Promise<FormRow[]> {
    return this.prisma.form.findMany({
      where: { schoolId, ...afterId(page) },
      include: WITH_COUNT,
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findForm(schoolId: string, id: string): Promise<FormRow | null> {
    return this.prisma.form.findUnique({ where: { schoolId_id: { schoolId, id } }, include: WITH_COUNT });
  }

  findSubmissionsPage(schoolId: string, formId: string, page: IdPage): Promise<FormSubmission[]> {
    return this.prisma.formSubmission.findMany({
      where: { schoolId, formId, ...afterId(page) },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findSubmission(schoolId: string, formId: string, id: string): Promise<FormSubmission | null> {
    return this.prisma.formSubmission.findFirst({ where: { schoolId, formId, id } });
  }
}
