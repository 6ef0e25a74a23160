import { Inject, Injectable } from '@nestjs/common';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';

/**
 * Uploaded bytes on disk under STORAGE_DIR, named by file id only (`ab/abcdef...`): the id is
 * random base64url, so no caller-influenced text ever becomes part of a path.
 */
@Injectable()
export class FileStore {
  constructor(@Inject(RESOURCE_CONFIG) private readonly config: ResourceConfig) {}

  private pathOf(id: string): string {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(id)) throw new Error(`not a file id: ${id}`);
    return join(this.config.storage.dir, id.slice(0, 2), id);
  }

  /** Written to a temporary name and renamed, so a reader never sees half a file. */
  async put(id: string, content: Buffer): Promise<void> {
    const path = this.pathOf(id);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, content, { flag: 'wx' });
    await rename(temporary, path);
  }

  async remove(id: string): Promise<void> {
    await unlink(this.pathOf(id)).catch(() => undefined);
  }

  /** The file's stream and size, or null when it is not on disk. */
  async open(id: string): Promise<{ stream: ReadStream; size: number } | null> {
    const path = this.pathOf(id);
    try {
      const { size } = await stat(path);
      return { stream: createReadStream(path), size };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
}
