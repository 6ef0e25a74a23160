import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Appearance, Prisma } from '../generated/prisma/client';

@Injectable()
export class AppearanceRepository {
  constructor(private readonly prisma: PrismaService) {}

  findAppearance(schoolId: string): Promise<Appearance | null> {
    return this.prisma.appearance.findUnique({ where: { schoolId } });
  }

  /** The first change creates the school's theme from the defaults. */
  upsertAppearance(schoolId: string, data: Omit<Prisma.AppearanceUncheckedCreateInput, 'schoolId'>): Promise<Appearance> {
    return this.prisma.appearance.upsert({
      where: { schoolId },
      create: { ...data, schoolId },
      update: data,
    });
  }
}
