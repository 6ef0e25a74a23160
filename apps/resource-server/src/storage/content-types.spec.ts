import { UPLOAD_PATH } from '@platform/route-table';
import { FILES_PATH } from './storage.service';
import { contentMatches, isUploadContentType, mediaType, servedContentType } from './content-types';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe('upload content types', () => {
  it.each([
    ['image/png', true],
    ['application/pdf', true],
    ['text/plain', true],
    ['text/html', false],
    ['image/svg+xml', false],
    ['application/octet-stream', false],
  ])('%s allowed: %s', (type, allowed) => {
    expect(isUploadContentType(type)).toBe(allowed);
  });

  it('reduces a Content-Type header to its media type', () => {
    expect(mediaType('Image/PNG; charset=binary')).toBe('image/png');
    expect(mediaType(undefined)).toBe('');
  });

  it.each([
    ['a PNG labelled image/png', 'image/png', png, true],
    ['a PDF labelled application/pdf', 'application/pdf', Buffer.from('%PDF-1.7\n...'), true],
    ['a JPEG labelled image/jpeg', 'image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]), true],
    ['a GIF labelled image/gif', 'image/gif', Buffer.from('GIF89a...'), true],
    ['a WebP labelled image/webp', 'image/webp', Buffer.from('RIFF\0\0\0\0WEBPVP8 '), true],
    ['HTML labelled image/png', 'image/png', Buffer.from('<html><script>alert(1)</script>'), false],
    ['a PNG labelled application/pdf', 'application/pdf', png, false],
    ['UTF-8 text labelled text/plain', 'text/plain', Buffer.from('Grüße, 世界\n'), true],
    ['a PNG labelled text/plain', 'text/plain', png, false],
    ['invalid UTF-8 labelled text/csv', 'text/csv', Buffer.from([0x61, 0xff, 0x62]), false],
  ] as const)('%s matches: %s', (_name, type, content, matches) => {
    expect(contentMatches(type, content)).toBe(matches);
  });

  it('serves text with its charset', () => {
    expect(servedContentType('text/plain')).toBe('text/plain; charset=utf-8');
    expect(servedContentType('image/png')).toBe('image/png');
  });
});

describe('the upload route', () => {
  it('is the path the gateway lets UPLOAD_MAX_BYTES through to', () => {
    expect(`/${FILES_PATH}`).toBe(UPLOAD_PATH);
  });
});
