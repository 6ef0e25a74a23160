import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service';
import type { Prisma, StoredFile } from '../generated/prisma/client';

@Injectable()
export class StorageRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The metadata row and the content in one transaction (a nested create): a file is stored whole or not at all. */
  insertStoredFile(data: Omit<Prisma.StoredFileUncheckedCreateInput, 'content'>, content: Buffer): Promise<StoredFile> {
    // A body parser's Buffer, never a view of a SharedArrayBuffer.
    return this.prisma.storedFile.create({ data: { ...data, content: { create: { content: content as Uint8Array<ArrayBuffer> } } } });
  }

  /** By id alone: the id is the capability (whoever holds the URL may fetch the file). */
  findStoredFileById(id: string): Promise<StoredFile | null> {
    return this.prisma.storedFile.findUnique({ where: { id } });
  }

  /** `length` bytes of the content from `offset` (0-based); null when the file has no content. */
  async readContentSlice(id: string, offset: number, length: number): Promise<Buffer | null> {
    const rows = await this.prisma.rows<{ slice: Buffer }>(
      'storage-content-slice',
      'SELECT substring(content FROM $2 FOR $3) AS slice FROM stored_file_contents WHERE file_id = $1',
      [id, offset + 1, length],
    );
    return rows[0]?.slice ?? null;
  }
}
