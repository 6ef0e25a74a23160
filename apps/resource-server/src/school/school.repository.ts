import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, School } from '../generated/prisma/client';

@Injectable()
export class SchoolRepository {
  constructor(private readonly prisma: PrismaService) {}

  findSchool(schoolId: string): Promise<School | null> {
    return this.prisma.school.findUnique({ where: { id: schoolId } });
  }

  updateSchool(schoolId: string, data: Prisma.SchoolUpdateInput): Promise<School> {
    return this.prisma.school.update({ where: { id: schoolId }, data });
  }
}
