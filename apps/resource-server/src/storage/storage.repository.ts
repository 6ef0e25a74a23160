import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, StoredFile } from '../generated/prisma/client';

@Injectable()
export class StorageRepository {
  constructor(private readonly prisma: PrismaService) {}

  insertStoredFile(data: Prisma.StoredFileUncheckedCreateInput): Promise<StoredFile> {
    return this.prisma.storedFile.create({ data });
  }

  /** By id alone: the id is the capability (whoever holds the URL may fetch the file). */
  findStoredFileById(id: string): Promise<StoredFile | null> {
    return this.prisma.storedFile.findUnique({ where: { id } });
  }
}
