import { accessTokenKey } from './events';

describe('accessTokenKey', () => {
  it('is SHA-256 in base64url (the FIPS 180-2 "abc" vector), the hash the authorization server stores', () => {
    expect(accessTokenKey('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('hashes the UTF-8 bytes of the token', () => {
    expect(accessTokenKey('é')).toBe(Buffer.from('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c', 'hex').toString('base64url').replace(/=+$/, ''));
  });
});
