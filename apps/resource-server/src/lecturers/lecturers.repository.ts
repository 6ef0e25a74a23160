import { Injectable } from '@nestjs/common';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { Lecturer, Prisma } from '../generated/prisma/client';

@Injectable()
export class LecturersRepository {
  constructor(private readonly prisma: PrismaService) {}

  findLecturersPage(schoolId: string, page: IdPage): Promise<Lecturer[]> {
    return this.prisma.lecturer.findMany({
      where: { schoolId, ...afterId(page) },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findLecturer(schoolId: string, id: string): Promise<Lecturer | null> {
    return this.prisma.lecturer.findUnique({ where: { schoolId_id: { schoolId, id } } });
  }

  insertLecturer(schoolId: string, data: Omit<Prisma.LecturerUncheckedCreateInput, 'schoolId'>): Promise<Lecturer> {
    return this.prisma.lecturer.create({ data: { ...data, schoolId } });
  }

  updateLecturer(schoolId: string, id: string, data: Prisma.LecturerUncheckedUpdateInput): Promise<Lecturer> {
    return this.prisma.lecturer.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deleteLecturer(schoolId: string, id: string): Promise<void> {
    await this.prisma.lecturer.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}
