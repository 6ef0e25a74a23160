import { createHash } from 'node:crypto';
import { hashesEqual } from '../../crypto/tokens';

/** RFC 7636 §4.1: code_verifier = 43*128unreserved, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~" */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export function isWellFormedVerifier(verifier: string): boolean {
  return VERIFIER.test(verifier);
}

/** RFC 7636 §4.6: the S256 challenge of a verifier, BASE64URL-ENCODE(SHA256(ASCII(code_verifier))). */
export function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** RFC 7636 §4.6: BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) == code_challenge */
export function verifierMatchesChallenge(verifier: string, challenge: string): boolean {
  return hashesEqual(challengeOf(verifier), challenge);
}
