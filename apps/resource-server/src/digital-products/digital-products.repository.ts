import { Injectable } from '@nestjs/common';
import { flagFilter } from '../common/fields';
import { afterId, type IdPage } from '../common/pagination';
import { PrismaService } from '../database/prisma.service';
import type { DigitalProduct, Prisma } from '../generated/prisma/client';

@Injectable()
export class DigitalProductsRepository {
  constructor(private readonly prisma: PrismaService) {}

  findProductsPage(schoolId: string, filter: { publishedOnly: boolean; published?: boolean }, page: IdPage): Promise<DigitalProduct[]> {
    return this.prisma.digitalProduct.findMany({
      where: {
        schoolId,
        ...flagFilter('published', filter.publishedOnly, filter.published),
        ...afterId(page),
      },
      orderBy: { id: 'asc' },
      take: page.take + 1,
    });
  }

  findProduct(schoolId: string, id: string, publishedOnly: boolean): Promise<DigitalProduct | null> {
    return this.prisma.digitalProduct.findFirst({ where: { schoolId, id, ...(publishedOnly ? { published: true } : {}) } });
  }

  async storedFileExists(schoolId: string, fileId: string): Promise<boolean> {
    return (await this.prisma.storedFile.count({ where: { schoolId, id: fileId } })) > 0;
  }

  async findSchoolCurrency(schoolId: string): Promise<string> {
    const school = await this.prisma.school.findUniqueOrThrow({ where: { id: schoolId }, select: { currency: true } });
    return school.currency;
  }

  insertProduct(schoolId: string, data: Omit<Prisma.DigitalProductUncheckedCreateInput, 'schoolId'>): Promise<DigitalProduct> {
    return this.prisma.digitalProduct.create({ data: { ...data, schoolId } });
  }

  updateProduct(schoolId: string, id: string, data: Prisma.DigitalProductUncheckedUpdateInput): Promise<DigitalProduct> {
    return this.prisma.digitalProduct.update({ where: { schoolId_id: { schoolId, id } }, data });
  }

  async deleteProduct(schoolId: string, id: string): Promise<void> {
    await this.prisma.digitalProduct.delete({ where: { schoolId_id: { schoolId, id } } });
  }
}
