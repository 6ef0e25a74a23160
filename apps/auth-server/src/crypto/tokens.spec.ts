import { generateClientId, generateOpaqueToken, hashesEqual, hashToken } from './tokens';

describe('token and id generation', () => {
  it('draws client ids of 128 bits, base64url, never beginning with "-" (a command line would read one as options)', () => {
    const ids = Array.from({ length: 10_000 }, generateClientId);
    // With a plain base64url draw, 10,000 ids would hold ~156 that begin with "-".
    expect(ids.filter((id) => id.startsWith('-'))).toEqual([]);
    expect(ids.every((id) => /^[A-Za-z0-9_-]{22}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.some((id) => id.startsWith('_'))).toBe(true);
  });

  it('draws opaque tokens of 256 bits and compares their hashes in constant time', () => {
    const token = generateOpaqueToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hashesEqual(hashToken(token), hashToken(token))).toBe(true);
    expect(hashesEqual(hashToken(token), hashToken(`${token}x`))).toBe(false);
    expect(hashesEqual(hashToken(token), 'short')).toBe(false);
  });
});

