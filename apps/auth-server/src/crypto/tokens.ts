import { randomBytes, timingSafeEqual } from 'node:crypto';
import { accessTokenKey } from '@platform/contracts';

/** 256 bits from the CSPRNG, base64url: access and refresh tokens, codes, secrets, session ids. */
export function generateOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * A client id: 128 random bits (public, but never guessable), base64url. Drawn again when it
 * would begin with "-" (1 in 64): command lines read such an argument as options
 * (`npm run clients -- show -AbC…`). The cost is 0.02 of a bit.
 */
export function generateClientId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * Tokens, codes, client secrets and session ids are 256-bit random values, so a plain
 * SHA-256 is a sufficient one-way storage form: there is nothing to brute-force.
 * (Passwords, which are low-entropy, use argon2id instead.) It is the very function the
 * resource servers key their introspection caches by and revocation events carry
 * (libs/contracts accessTokenKey): one implementation, or revocations stop evicting.
 */
export const hashToken: (token: string) => string = accessTokenKey;

/** Constant-time comparison of two hashes produced by hashToken. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
