import { INPUT_LIMITS } from '@platform/service-runtime';
import { longText, publication, slugify } from './fields';

describe('slugify', () => {
  it.each([
    ['Intro to SQL!', 'intro-to-sql'],
    ['  Grüße aus Köln ', 'grusse-aus-koln'],
    ['C# & .NET -- Basics', 'c-net-basics'],
    ['!!!', 'item'],
  ])('%j -> %j', (title, slug) => {
    expect(slugify(title)).toBe(slug);
  });

  it('stays within 80 characters and never ends in a hyphen', () => {
    const slug = slugify(`${'a'.repeat(79)} b`);
    expect(slug.length).toBeLessThanOrEqual(80);
    expect(slug).not.toMatch(/-$/);
  });
});

describe('publication', () => {
  const first = new Date('2026-01-01T00:00:00Z');

  it('stamps the first publication and keeps it when saved again', () => {
    expect(publication(true, null).publishedAt).toBeInstanceOf(Date);
    expect(publication(true, first)).toEqual({ publishedAt: first });
  });

  it('clears it on unpublishing and leaves it alone otherwise', () => {
    expect(publication(false, first)).toEqual({ publishedAt: null });
    expect(publication(undefined, first)).toEqual({});
  });
});

describe('longText', () => {
  it('is within what the JSON parser lets through (INPUT_LIMITS.jsonStringLength): the field, not the parser, says how long', () => {
    expect(longText.maxLength).toBeLessThanOrEqual(INPUT_LIMITS.jsonStringLength);
  });
});
