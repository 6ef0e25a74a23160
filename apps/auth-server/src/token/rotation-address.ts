import { hash } from 'node:crypto';

/**
 * What a rotated-out refresh token keeps of the client address that rotated it
 * (refresh_tokens.rotation_address_tag), so that a late presentation from that same address can
 * be told from one from elsewhere (grants/refresh-reuse.ts): 16 bits of a SHA-256 over the
 * token's own hash and the address bucket (IPv4 as is, IPv6 per /64). Never the address: each
 * of the 65,536 values stands for ~65,000 IPv4 addresses, salted per token so rows cannot be
 * compared with each other; a presentation from another address matches by chance once in
 * 65,536 (then it is refused without revoking the grant, the stale-session answer).
 */
export function rotationAddressTag(tokenHash: string, addressBucket: string): string {
  return hash('sha256', `${tokenHash} ${addressBucket}`, 'hex').slice(0, 4);
}
