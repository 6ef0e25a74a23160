import { randomBytes } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';

/**
 * argon2id (@node-rs/argon2: a napi build shipped per platform on the npm registry; the
 * `argon2` package's prebuilt binary crashed Node 20 here) with OWASP's baseline parameters (19 MiB, 2 iterations, 1 lane). Memory per
 * attempt is what a burst of concurrent logins multiplies, so this stays modest; raising it
 * later is safe: needsRehash() upgrades stored hashes at the next successful login.
 */
export const PASSWORD_HASH_OPTIONS = {
  algorithm: Algorithm.Argon2id,
  memoryCost: 19 * 1024,
  timeCost: 2,
  parallelism: 1,
} as const;

/** Longer input is refused before hashing; the login form caps it at the same length. */
export const MAX_PASSWORD_LENGTH = 1024;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PASSWORD_HASH_OPTIONS);
}

/** False for a wrong password and for a hash argon2 cannot read (never throws). */
export async function verifyPasswordHash(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/** True when a stored PHC string ($argon2id$v=19$m=…,t=…,p=…$…) uses other parameters. */
export function passwordNeedsRehash(storedHash: string): boolean {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(storedHash);
  if (!match) return true;
  const [, memory, time, lanes] = match.map(Number);
  return (
    memory !== PASSWORD_HASH_OPTIONS.memoryCost ||
    time !== PASSWORD_HASH_OPTIONS.timeCost ||
    lanes !== PASSWORD_HASH_OPTIONS.parallelism
  );
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash of a random password with the current parameters, made once per process. Verifying
 * against it when the email is unknown makes that answer take as long as a wrong password,
 * so response time does not reveal which emails have an account.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('base64url'));
  return dummyHash;
}

/** Emails are stored and compared lowercased and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
