import { isClientIdSyntax, MAX_CLIENT_ID_LENGTH } from './client-id';

describe('isClientIdSyntax (RFC 6749 Appendix A.1 client-id = *VSCHAR, bounded)', () => {
  it.each([
    ['a registered id', 'pX0bN6vYxkq2c3T9aA1b_w', true],
    ['a client_id URL of the longest length', `https://app.example.com/${'x'.repeat(MAX_CLIENT_ID_LENGTH - 24)}`, true],
    ['printable ASCII with a space', 'my client', true],
    ['empty', '', false],
    ['one character too long', 'x'.repeat(MAX_CLIENT_ID_LENGTH + 1), false],
    ['a control character', 'client\n', false],
    ['non-ASCII', 'clïent', false],
  ])('%s: %s', (_case, value, expected) => {
    expect(isClientIdSyntax(value)).toBe(expected);
  });
});
