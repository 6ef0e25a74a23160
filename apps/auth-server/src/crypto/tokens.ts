import { randomFillSync, timingSafeEqual } from 'node:crypto';
import { accessTokenKey } from '@platform/contracts';

/**
 * Bytes of the CSPRNG, drawn 8 KB at a time and each handed out once, as Node's own
 * randomUUID() pools its entropy: a randomBytes() call is a call into OpenSSL plus a getpid(2)
 * (its fork check), ~2.5 µs where a draw from the pool is ~0.15 µs, and a token request draws
 * twice (issue 12). A worker thread loads this module anew (a pool of its own), and cluster
 * processes are new processes, never forks of this one: no two pools hold the same bytes.
 */
const randomPool = { bytes: Buffer.allocUnsafe(8192), offset: 8192 };

/** `size` fresh random bytes as base64url (the pool's bytes are encoded before anyone else draws). */
function randomBase64url(size: number): string {
  if (randomPool.offset + size > randomPool.bytes.length) {
    randomFillSync(randomPool.bytes);
    randomPool.offset = 0;
  }
  const start = randomPool.offset;
  randomPool.offset += size;
  return randomPool.bytes.toString('base64url', start, start + size);
}

/** 256 bits from the CSPRNG, base64url: access and refresh tokens, codes, secrets, session ids. */
export function generateOpaqueToken(): string {
  return randomBase64url(32);
}

/**
 * A client id: 128 random bits (public, but never guessable), base64url. Drawn again when it
 * would begin with "-" (1 in 64): command lines read such an argument as options
 * (`npm run clients -- show -AbC…`). The cost is 0.02 of a bit.
 */
export function generateClientId(): string {
  for (;;) {
    const id = randomBase64url(16);
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
