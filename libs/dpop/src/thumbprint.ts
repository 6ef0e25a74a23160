/**
 * The shape of an RFC 7638 JWK SHA-256 thumbprint in base64url without padding: 43 characters.
 * RFC 9449 §10: dpop_jkt "the JWK SHA-256 Thumbprint ... of the proof-of-possession public key".
 */
const SHA256_THUMBPRINT = /^[\w-]{43}$/;

export function isSha256Thumbprint(value: string): boolean {
  return SHA256_THUMBPRINT.test(value);
}
