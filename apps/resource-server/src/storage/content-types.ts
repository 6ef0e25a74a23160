/**
 * What may be uploaded: images browsers render safely, PDFs and plain text. No HTML, SVG or
 * anything else a browser would execute; the served files also carry a sandboxing CSP and
 * `nosniff`. The declared type must match the content: an upload labelled image/png has to
 * start like a PNG.
 */
export const UPLOAD_CONTENT_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'application/pdf',
  'text/plain',
  'text/csv',
  'text/markdown',
] as const;

export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];

export function isUploadContentType(value: string): value is UploadContentType {
  return (UPLOAD_CONTENT_TYPES as readonly string[]).includes(value);
}

/** `image/PNG; charset=x` -> `image/png`. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
}

const startsWith = (content: Buffer, bytes: number[], offset = 0) =>
  content.length >= offset + bytes.length && bytes.every((byte, i) => content[offset + i] === byte);

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

const SIGNATURES: Record<Exclude<UploadContentType, `text/${string}`>, (content: Buffer) => boolean> = {
  'image/png': (c) => startsWith(c, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (c) => startsWith(c, [0xff, 0xd8, 0xff]),
  'image/gif': (c) => startsWith(c, ascii('GIF87a')) || startsWith(c, ascii('GIF89a')),
  'image/webp': (c) => startsWith(c, ascii('RIFF')) && startsWith(c, ascii('WEBP'), 8),
  'application/pdf': (c) => startsWith(c, ascii('%PDF-')),
};

/** Text uploads must be UTF-8 without NUL bytes (a NUL is the mark of a binary file). */
function isText(content: Buffer): boolean {
  if (content.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(content);
    return true;
  } catch {
    return false;
  }
}

export function contentMatches(type: UploadContentType, content: Buffer): boolean {
  if (type.startsWith('text/')) return isText(content);
  return SIGNATURES[type as keyof typeof SIGNATURES](content);
}

/** The stored type as served: text gets its charset. */
export function servedContentType(type: string): string {
  return type.startsWith('text/') ? `${type}; charset=utf-8` : type;
}
