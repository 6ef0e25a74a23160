import { keyDigest } from '@platform/rate-limits';
import { generateOpaqueToken } from '../crypto/tokens';

/**
 * Every refresh token of a grant starts with the grant's family id: 12 random base64url
 * characters drawn at the code exchange and carried into each successor (and each sibling of
 * the reuse window), followed by 256 random bits. The per-grant limit reads it from the
 * presented token, so a grant over its budget is refused before its token rotates: a refusal
 * after the rotation would leave the client holding a rotated-out token, whose next use would
 * look like reuse. Dex encodes its refresh tokens' ids for the same reason: to know what a
 * token belongs to before the lookup.
 *
 * The family id is no credential: the whole token is hashed and looked up as before, so a
 * changed prefix is an unknown token. It only names a counter, which a caller can spend only
 * with a token of that family.
 */
const FAMILY_LENGTH = 12;
/** A family id and an opaque token (generateOpaqueToken: 43 characters). */
const FAMILY_TOKEN_LENGTH = FAMILY_LENGTH + 43;

/** 72 random bits: the first 12 base64url characters of an opaque token's 256. */
export function newRefreshFamily(): string {
  return generateOpaqueToken().slice(0, FAMILY_LENGTH);
}

/** The family a presented refresh token names; undefined for tokens issued before families (or not ours). */
export function refreshFamilyOf(token: string): string | undefined {
  return token.length === FAMILY_TOKEN_LENGTH ? token.slice(0, FAMILY_LENGTH) : undefined;
}

/** The counter key of a family (keys never hold any part of a token as is). */
export function familyKey(family: string): string {
  return keyDigest(`family ${family}`);
}
