import { isWellFormedVerifier, verifierMatchesChallenge } from './pkce';

describe('PKCE S256 (RFC 7636)', () => {
  // The example of RFC 7636 Appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('accepts the verifier of the RFC example', () => {
    expect(verifierMatchesChallenge(verifier, challenge)).toBe(true);
  });

  it('refuses another verifier', () => {
    expect(verifierMatchesChallenge(`${verifier.slice(0, -1)}A`, challenge)).toBe(false);
  });

  it('refuses the challenge itself used as a verifier (the plain method)', () => {
    expect(verifierMatchesChallenge(challenge, challenge)).toBe(false);
  });

  it.each([
    ['42 characters', 'a'.repeat(42), false],
    ['43 characters', 'a'.repeat(43), true],
    ['128 characters', 'a'.repeat(128), true],
    ['129 characters', 'a'.repeat(129), false],
    ['a character outside the unreserved set', `${'a'.repeat(43)}+`, false],
  ])('verifier of %s is well-formed: %s', (_name, value, expected) => {
    expect(isWellFormedVerifier(value)).toBe(expected);
  });
});
