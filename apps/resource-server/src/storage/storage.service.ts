import { Inject, Injectable, StreamableFile } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '@platform/oauth-errors';
import { createHash, randomBytes } from 'node:crypto';
import { notFound } from '../common/errors';
import { API_PREFIX, iso } from '../common/fields';
import { RESOURCE_CONFIG, type ResourceConfig } from '../config/resource-config';
import type { StoredFile } from '../generated/prisma/client';
import { ViewerService } from '../tenancy/viewer.service';
import { contentMatches, isUploadContentType, mediaType, servedContentType, UPLOAD_CONTENT_TYPES } from './content-types';
import type { StoredFileDto } from './storage.dto';
import { StorageRepository } from './storage.repository';
import { CONTENT_SLICE_BYTES, storedContentStream } from './stored-content';

export const FILES_PATH = `${API_PREFIX}/storage/files`;

/** 144 random bits, base64url: the file's id and the capability to fetch it. */
export const newFileId = (): string => randomBytes(18).toString('base64url');

/** `inline` with an ASCII fallback name and the exact UTF-8 name (RFC 6266 §4.3, RFC 8187). */
export function contentDisposition(filename: string | null): string {
  if (!filename) return 'inline';
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `inline; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export interface ServedFile {
  file: StreamableFile;
  headers: Record<string, string>;
}

@Injectable()
export class StorageService {
  constructor(
    @Inject(RESOURCE_CONFIG) private readonly config: ResourceConfig,
    private readonly viewers: ViewerService,
    private readonly storage: StorageRepository,
  ) {}

  async upload(principal: AuthPrincipal, contentType: string | undefined, content: unknown, filename?: string): Promise<StoredFileDto> {
    const { schoolId, userId } = await this.viewers.staff(principal);
    const type = mediaType(contentType);
    // The body parsers accept only these types; checked again so the service stands alone.
    if (!isUploadContentType(type)) {
      throw new UnsupportedMediaTypeError(`Content-Type must be one of ${UPLOAD_CONTENT_TYPES.join(', ')}`);
    }
    if (!Buffer.isBuffer(content) || content.length === 0) throw new InvalidRequestError('request body: the file is empty');
    if (content.length > this.config.storage.maxUploadBytes) {
      throw new PayloadTooLargeError(`request body: files are at most ${this.config.storage.maxUploadBytes} bytes`);
    }
    if (!contentMatches(type, content)) throw new InvalidRequestError(`request body: the content is not ${type}`);

    // In the database, not on this replica's disk: any replica serves the file.
    const stored = await this.storage.insertStoredFile(
      {
        id: newFileId(),
        schoolId,
        uploadedBy: userId,
        filename: filename ?? null,
        contentType: type,
        size: content.length,
        sha256: createHash('sha256').update(content).digest('hex'),
      },
      content,
    );
    return this.toView(stored);
  }

  /**
   * Public for whoever holds the URL. Served so that a browser cannot be made to run it:
   * nosniff, and a CSP that sandboxes the document and allows nothing.
   */
  async serve(id: string): Promise<ServedFile> {
    const stored = await this.storage.findStoredFileById(id);
    // The first slice read now: a file without its content is a 404, not a broken 200.
    const first = stored ? await this.storage.readContentSlice(id, 0, Math.min(CONTENT_SLICE_BYTES, stored.size)) : null;
    if (!stored || !first) throw notFound('file');
    const content = storedContentStream(stored.size, first, (offset, length) => this.storage.readContentSlice(id, offset, length));
    return {
      file: new StreamableFile(content, {
        type: servedContentType(stored.contentType),
        length: stored.size,
        disposition: contentDisposition(stored.filename),
      }),
      headers: {
        etag: `"${stored.sha256}"`,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cross-origin-resource-policy': 'cross-origin',
      },
    };
  }

  private toView(stored: StoredFile): StoredFileDto {
    return {
      id: stored.id,
      url: `${this.config.resource}/${FILES_PATH}/${stored.id}`,
      content_type: stored.contentType,
      size: stored.size,
      filename: stored.filename,
      sha256: stored.sha256,
      created_at: iso(stored.createdAt),
    };
  }
}
