import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 bits from the CSPRNG, base64url: access and refresh tokens, codes, secrets, session ids. */
export function generateOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Tokens, codes, client secrets and session ids are 256-bit random values, so a plain
 * SHA-256 is a sufficient one-way storage form: there is nothing to brute-force.
 * (Passwords, which are low-entropy, use argon2id instead.) The same hash keys the
 * resource servers' introspection caches and the revocation events.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** Constant-time comparison of two hashes produced by hashToken. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
