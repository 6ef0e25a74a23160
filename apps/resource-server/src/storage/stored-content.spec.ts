import { text } from 'node:stream/consumers';
import { storedContentStream } from './stored-content';

describe('storedContentStream', () => {
  const content = Buffer.from('abcdefghij');
  const slices = (source: Buffer, reads: string[]) => async (offset: number, length: number) => {
    reads.push(`${offset}+${length}`);
    return source.subarray(offset, offset + length);
  };

  it('reads the rest in slices after the first, one at a time', async () => {
    const reads: string[] = [];
    const stream = storedContentStream(content.length, content.subarray(0, 4), slices(content, reads), 4);
    expect(await text(stream)).toBe('abcdefghij');
    expect(reads).toEqual(['4+4', '8+2']);
  });

  it('fails rather than end early when the content comes back short (deleted meanwhile)', async () => {
    const stream = storedContentStream(content.length, content.subarray(0, 4), async () => null, 4);
    await expect(text(stream)).rejects.toThrow('stored content ended at byte 4 of 10');
  });
});
