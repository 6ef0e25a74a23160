import { randomBytes } from 'node:crypto';
import { SecretBox } from './secret-box';

describe('SecretBox (AES-256-GCM)', () => {
  const box = new SecretBox(randomBytes(32));

  it('seals a secret so that only the same key and subscription open it', () => {
    const sealed = box.seal('whsec_abc', 'sub-1');
    expect(sealed).not.toContain('abc');
    expect(box.open(sealed, 'sub-1')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'sub-2')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'sub-1')).toThrow();
  });

  it('refuses a changed ciphertext', () => {
    const [version, iv, sealed, tag] = box.seal('whsec_abc', 'sub-1').split('.');
    const flipped = Buffer.from(sealed, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([version, iv, flipped.toString('base64url'), tag].join('.'), 'sub-1')).toThrow();
  });
});
