import { z } from 'zod';
import { isoOut } from '../common/fields';
import { zodDto } from '../common/validation';

export const StoredFileView = z.object({
  id: z.string(),
  url: z.string().describe('Where the file is served: anyone holding this URL may fetch it'),
  content_type: z.string(),
  size: z.number().int().describe('Bytes'),
  filename: z.string().nullable(),
  sha256: z.string().describe('Hex SHA-256 of the content'),
  created_at: isoOut,
});
export class StoredFileDto extends zodDto(StoredFileView, 'output') {}

/** No path separators, no control characters (they would end up in a response header). */
function isPlainFileName(name: string): boolean {
  return ![...name].some((char) => char === '/' || char === '\\' || char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
}

export const UploadQuery = z.object({
  filename: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine(isPlainFileName, 'a file name without slashes or control characters')
    .optional()
    .describe('Name to serve the file under (Content-Disposition)'),
});
export class UploadQueryDto extends zodDto(UploadQuery, 'input') {}
